package bounce

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func TestParseHeaderFoldingAndJunk(t *testing.T) {
	t.Parallel()
	raw := "From MAILER-DAEMON Tue Mar  5 10:12:02 2024\r\n" + // mbox separator: skipped
		"Subject: Undelivered\r\n\tMail  Returned\r\n  to Sender\r\n" +
		"this line is junk\r\n" +
		"X-Empty:\r\n" +
		"Subject : second\r\n" +
		"\r\n" +
		"body line\r\n"
	h, body := parseHeader([]byte(raw))
	if got := h.get("subject"); got != "Undelivered Mail Returned to Sender" {
		t.Errorf("folded subject = %q", got)
	}
	if got := h.values("subject"); len(got) != 2 || got[1] != "second" {
		t.Errorf("subject values = %q", got)
	}
	if !h.has("x-empty") || h.get("x-empty") != "" {
		t.Errorf("empty field lost: %+v", h)
	}
	if h.has("this line is junk") || len(h) != 3 {
		t.Errorf("fields = %+v, want 3", h)
	}
	if string(body) != "body line\r\n" {
		t.Errorf("body = %q", body)
	}
}

func TestParseBlocks(t *testing.T) {
	t.Parallel()
	// Whitespace-only separator lines and several blank lines.
	raw := "Reporting-MTA: dns; a\n\n \nFinal-Recipient: rfc822; x@y\nAction: failed\n\t\n\nFinal-Recipient: rfc822; z@y\n"
	blocks := parseBlocks([]byte(raw))
	if len(blocks) != 3 || blocks[1].get("action") != "failed" || blocks[2].get("final-recipient") != "rfc822; z@y" {
		t.Fatalf("blocks = %+v", blocks)
	}
}

func TestDecodeTransfer(t *testing.T) {
	t.Parallel()
	tests := []struct{ cte, in, want string }{
		{"quoted-printable", "caf=C3=A9 =3D ok=\r\nsoft=\nbreak", "café = oksoftbreak"},
		{"Quoted-Printable", "bad =ZZ escape and trailing =", "bad =ZZ escape and trailing ="},
		{"quoted-printable", "soft with space=  \r\nnext", "soft with spacenext"},
		{"base64", "aGVsbG8g\r\nd29ybGQ=\r\n", "hello world"},
		{"BASE64", "aGVs!!bG8\n", "hello"},           // junk bytes ignored
		{"base64", "aGVsbG8gd29ybGQ", "hello world"}, // no padding
		{"base64", "aGVsbG8gd29ybGQ=trailing", "hello world"},
		{"base64", "a", ""},
		{"7bit", "as is=3D", "as is=3D"},
		{"", "as is", "as is"},
	}
	for _, tc := range tests {
		if got := string(decodeTransfer(tc.cte, []byte(tc.in))); got != tc.want {
			t.Errorf("decodeTransfer(%q, %q) = %q, want %q", tc.cte, tc.in, got, tc.want)
		}
	}
}

func TestSplitMultipart(t *testing.T) {
	t.Parallel()
	body := "preamble\r\n--b\r\nA: 1\r\n\r\none\r\n--b  \r\n\r\ntwo\r\n--bb\r\nnot a delimiter\r\n--b--\r\nepilogue\r\n--b\r\nignored"
	parts := splitMultipart([]byte(body), "b")
	want := []string{"A: 1\r\n\r\none", "\r\ntwo\r\n--bb\r\nnot a delimiter"}
	if len(parts) != len(want) {
		t.Fatalf("parts = %q", parts)
	}
	for i := range want {
		if string(parts[i]) != want[i] {
			t.Errorf("part %d = %q, want %q", i, parts[i], want[i])
		}
	}
	// Without a close delimiter the last part runs to the end.
	parts = splitMultipart([]byte("--b\nx\n--b\ny"), "b")
	if len(parts) != 2 || string(parts[1]) != "y" {
		t.Errorf("unterminated: %q", parts)
	}
	// A delimiter inside a line is not one.
	parts = splitMultipart([]byte("--b\nsee --b here\n--b--"), "b")
	if len(parts) != 1 || string(parts[0]) != "see --b here" {
		t.Errorf("mid-line delimiter: %q", parts)
	}
}

func TestMediaTypeOfLenient(t *testing.T) {
	t.Parallel()
	mt, params := mediaTypeOf(`Multipart/Report; report-type=delivery-status; boundary="x y"; broken`)
	if mt != "multipart/report" || params["boundary"] != "x y" || params["report-type"] != "delivery-status" {
		t.Errorf("got %q %v", mt, params)
	}
	if mt, _ := mediaTypeOf(""); mt != "text/plain" {
		t.Errorf("default media type = %q", mt)
	}
}

// TestPartBudget checks that MaxParts holds across nesting, so a message
// made of thousands of tiny parts costs bounded work.
func TestPartBudget(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("Content-Type: multipart/mixed; boundary=outer\n\n")
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&b, "--outer\nContent-Type: multipart/mixed; boundary=in%d\n\n", i)
		for j := 0; j < 50; j++ {
			fmt.Fprintf(&b, "--in%d\n\npart %d.%d\n", i, i, j)
		}
		fmt.Fprintf(&b, "--in%d--\n", i)
	}
	b.WriteString("--outer--\n")
	root := parseMessage([]byte(b.String()))
	count := 0
	root.walk(func(*part) bool { count++; return true })
	if count != MaxParts {
		t.Errorf("parsed %d parts, want MaxParts (%d)", count, MaxParts)
	}
}

// TestDepthLimit nests message/rfc822 far deeper than maxDepth.
func TestDepthLimit(t *testing.T) {
	t.Parallel()
	msg := []byte("Subject: core\n\nhello")
	for i := 0; i < 50; i++ {
		msg = append([]byte("Content-Type: message/rfc822\n\n"), msg...)
	}
	root := parseMessage(msg)
	depth := 0
	for p := root; len(p.children) > 0; p = p.children[0] {
		depth++
	}
	if depth > maxDepth {
		t.Errorf("depth %d exceeds maxDepth %d", depth, maxDepth)
	}
}

func TestHTMLToText(t *testing.T) {
	t.Parallel()
	got := htmlToText(`<p>Delivery has failed to these recipients:</p><div>a@example.org</div>x &amp; y<br>z`)
	for _, want := range []string{"Delivery has failed to these recipients:\n", "\na@example.org\n", "x & y\nz"} {
		if !strings.Contains(got, want) {
			t.Errorf("htmlToText = %q, missing %q", got, want)
		}
	}
	if got := htmlToText("unterminated <tag"); got != "unterminated " {
		t.Errorf("unterminated tag: %q", got)
	}
}

func TestAddressHelpers(t *testing.T) {
	t.Parallel()
	if got := typedAddress("RFC822; <Alice@Example.ORG>", false); got != "alice@example.org" {
		t.Errorf("typedAddress = %q", got)
	}
	if got := typedAddress("rfc822;a+2Bb+3Dc@x.org", true); got != "a+b=c@x.org" {
		t.Errorf("xtext = %q", got)
	}
	if got := typedAddress("rfc822;a+2Bb@x.org", false); got != "a+2bb@x.org" {
		t.Errorf("Final-Recipient is not xtext: %q", got)
	}
	if got := mailFrom("<bounces+AbC.dEf@bounces.shop.example>"); got != "bounces+AbC.dEf@bounces.shop.example" {
		t.Errorf("mailFrom keeps case: %q", got)
	}
	if got := messageID(" \t<x.y@z>  (comment)"); got != "x.y@z" {
		t.Errorf("messageID = %q", got)
	}
	if got := messageID("bare@id"); got != "bare@id" {
		t.Errorf("bare messageID = %q", got)
	}
	if got := addressList(`"Doe, J" <J@X.org>, k@y.org`); len(got) != 2 || got[0] != "j@x.org" {
		t.Errorf("addressList = %q", got)
	}
	if got := addressList("a@x.org b@y.org; <broken"); len(got) != 2 {
		t.Errorf("addressList fallback = %q", got)
	}
	if bytes.Contains([]byte(normalizeAddress("<x@y.org>.")), []byte(">")) {
		t.Error("brackets kept")
	}
}
