package mta

import (
	"bytes"
	"errors"
	"mime"
	"net/mail"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro"
)

func TestBuildFullStructure(t *testing.T) {
	t.Parallel()
	m := sampleMessage()
	raw, err := Build(m)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	assertWireSafe(t, raw)
	msg, root := parseMessage(t, raw)

	// Inline parts are related to the HTML; other attachments are mixed
	// in outermost.
	want := "multipart/mixed(multipart/related(multipart/alternative(text/plain,text/html),image/png),application/pdf)"
	if got := root.shape(); got != want {
		t.Fatalf("structure %s, want %s", got, want)
	}
	related := root.children[0]
	if related.params["type"] != "multipart/alternative" {
		t.Errorf("multipart/related type=%q, want multipart/alternative", related.params["type"])
	}
	alt := related.children[0]
	if got := string(alt.children[0].body); got != crlf(m.Text) {
		t.Errorf("text body %q, want %q", got, crlf(m.Text))
	}
	if got := string(alt.children[1].body); got != m.HTML {
		t.Errorf("html body %q, want %q", got, m.HTML)
	}
	if cs := alt.children[0].params["charset"]; cs != "utf-8" {
		t.Errorf("text charset %q", cs)
	}

	image := related.children[1]
	if got := image.header.Get("Content-ID"); got != "<logo>" {
		t.Errorf("inline Content-ID %q, want <logo>", got)
	}
	if d, _, _ := mime.ParseMediaType(image.header.Get("Content-Disposition")); d != "inline" {
		t.Errorf("inline disposition %q", d)
	}
	if !bytes.Equal(image.body, m.Attachments[0].Content) {
		t.Errorf("inline bytes differ")
	}

	pdf := root.children[1]
	if !bytes.Equal(pdf.body, m.Attachments[1].Content) {
		t.Errorf("attachment bytes differ: got %d bytes, want %d", len(pdf.body), len(m.Attachments[1].Content))
	}
	disposition, params, err := mime.ParseMediaType(pdf.header.Get("Content-Disposition"))
	if err != nil || disposition != "attachment" || params["filename"] != "invoice.pdf" {
		t.Errorf("attachment disposition %q %v (%v)", disposition, params, err)
	}
	if pdf.params["name"] != "invoice.pdf" {
		t.Errorf("attachment Content-Type name=%q", pdf.params["name"])
	}

	h := msg.Header
	checks := map[string]string{
		"Subject":               "Your invoice #42",
		"Message-ID":            "<" + m.MessageID + ">",
		"MIME-Version":          "1.0",
		"Date":                  "Fri, 14 Mar 2025 15:09:26 +0000",
		"List-Unsubscribe":      m.Headers["List-Unsubscribe"],
		"List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
		"X-Entity-Ref-Id":       "42",
	}
	for name, want := range checks {
		if got := h.Get(name); got != want {
			t.Errorf("header %s = %q, want %q", name, got, want)
		}
	}
	assertAddresses(t, h, "From", "Acme Billing <billing@example.com>")
	assertAddresses(t, h, "To", "Ana Lima <ana@example.org>", "bob@example.net")
	assertAddresses(t, h, "Cc", "carol@example.org")
	assertAddresses(t, h, "Reply-To", "support@example.com")
	if _, ok := h["Bcc"]; ok {
		t.Error("a Bcc header was written")
	}
	date, err := h.Date()
	if err != nil || !date.Equal(m.Date) {
		t.Errorf("Date parses to %v (%v), want %v", date, err, m.Date)
	}
}

// assertAddresses parses an address header and compares the mailboxes.
func assertAddresses(t *testing.T, h mail.Header, name string, want ...string) {
	t.Helper()
	list, err := h.AddressList(name)
	if err != nil {
		t.Fatalf("header %s %q does not parse: %v", name, h.Get(name), err)
	}
	var got []string
	for _, a := range list {
		got = append(got, carteiro.Address{Name: a.Name, Email: a.Address}.String())
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("header %s = %q, want %q", name, got, want)
	}
}

func TestBuildSinglePartBodies(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, text, html, wantType, wantBody string
	}{
		// A message always ends with CRLF, so a single-part body gains one.
		{"text only", "plain\nbody", "", "text/plain", "plain\r\nbody\r\n"},
		{"html only", "", "<b>bold</b>", "text/html", "<b>bold</b>\r\n"},
		{"nothing", "", "", "text/plain", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := sampleMessage()
			m.Text, m.HTML, m.Attachments = tc.text, tc.html, nil
			raw, err := Build(m)
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			assertWireSafe(t, raw)
			_, root := parseMessage(t, raw)
			if root.mediaType != tc.wantType || len(root.children) != 0 {
				t.Fatalf("structure %s, want %s", root.shape(), tc.wantType)
			}
			if string(root.body) != tc.wantBody {
				t.Errorf("body %q, want %q", root.body, tc.wantBody)
			}
		})
	}
}

func TestBuildAlternativeWithoutAttachments(t *testing.T) {
	t.Parallel()
	m := sampleMessage()
	m.Attachments = nil
	raw, err := Build(m)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	_, root := parseMessage(t, raw)
	if got := root.shape(); got != "multipart/alternative(text/plain,text/html)" {
		t.Fatalf("structure %s", got)
	}
}

func TestBuildInlineWithoutHTMLIsMixed(t *testing.T) {
	t.Parallel()
	m := sampleMessage()
	m.HTML = ""
	raw, err := Build(m)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	_, root := parseMessage(t, raw)
	if got := root.shape(); got != "multipart/mixed(text/plain,image/png,application/pdf)" {
		t.Fatalf("structure %s", got)
	}
	if cid := root.children[1].header.Get("Content-ID"); cid != "<logo>" {
		t.Errorf("Content-ID %q kept, want <logo>", cid)
	}
}

func TestBuildNormalizesLineEndingsAndLongLines(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 5000)
	m := sampleMessage()
	m.Attachments = nil
	m.Text = "bare LF\nbare CR\rCRLF\r\n" + long + "\n. leading dot\ntrailing space \n"
	m.HTML = "<p>\r" + long + "</p>\n"
	raw, err := Build(m)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	assertWireSafe(t, raw)
	for i, line := range strings.Split(string(raw), "\r\n") {
		if len(line) > foldAt {
			t.Errorf("line %d is %d characters long, want at most %d", i+1, len(line), foldAt)
		}
	}
	_, root := parseMessage(t, raw)
	wantText := "bare LF\r\nbare CR\r\nCRLF\r\n" + long + "\r\n. leading dot\r\ntrailing space \r\n"
	if got := string(root.children[0].body); got != wantText {
		t.Errorf("text decoded to %q...", truncate(got, 80))
	}
	if got := string(root.children[1].body); got != "<p>\r\n"+long+"</p>\r\n" {
		t.Errorf("html decoded to %q...", truncate(got, 80))
	}
}

func TestBuildNonASCIIRoundTrips(t *testing.T) {
	t.Parallel()
	m := sampleMessage()
	m.Subject = "Olá, ação concluída — 日本語のテスト ✓"
	m.From = carteiro.Address{Name: "João Ünïcode, Ltda.", Email: "joao@example.com"}
	m.To = []carteiro.Address{{Name: "Zoë", Email: "zoe@example.org"}, {Name: `Quote "Q" Person`, Email: "q@example.org"}}
	longName := strings.Repeat("relatório anual ção ", 20) + ".pdf"
	m.Attachments = []carteiro.Attachment{
		{Filename: "relatório de ação.pdf", Content: []byte("one"), ContentType: "application/pdf"},
		{Filename: longName, Content: []byte("two"), ContentType: "application/pdf"},
		{Filename: "plain name with spaces.txt", Content: []byte("three")},
	}
	m.Headers = map[string]string{"X-Campaign": "promoção"}
	raw, err := Build(m)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	assertWireSafe(t, raw)
	if has8Bit(raw) {
		t.Error("message has 8-bit bytes; headers should be encoded words and bodies quoted-printable")
	}
	msg, root := parseMessage(t, raw)
	dec := new(mime.WordDecoder)
	for name, want := range map[string]string{"Subject": m.Subject, "X-Campaign": "promoção"} {
		got, err := dec.DecodeHeader(msg.Header.Get(name))
		if err != nil || got != want {
			t.Errorf("%s decodes to %q (%v), want %q", name, got, err, want)
		}
	}
	assertAddresses(t, msg.Header, "From", `"João Ünïcode, Ltda." <joao@example.com>`) // quoted by Address.String (D67)
	assertAddresses(t, msg.Header, "To", "Zoë <zoe@example.org>", `Quote "Q" Person <q@example.org>`)

	wantNames := []string{"relatório de ação.pdf", longName, "plain name with spaces.txt"}
	for i, want := range wantNames {
		part := root.children[1+i]
		_, params, err := mime.ParseMediaType(part.header.Get("Content-Disposition"))
		if err != nil || params["filename"] != want {
			t.Errorf("attachment %d filename %q (%v), want %q", i, params["filename"], err, want)
		}
		if part.params["name"] != want {
			t.Errorf("attachment %d Content-Type name %q, want %q", i, part.params["name"], want)
		}
	}
	if got := root.children[3].mediaType; got != "text/plain" {
		t.Errorf("type guessed from .txt is %q", got)
	}
}

func TestBuildLongHeadersFold(t *testing.T) {
	t.Parallel()
	m := sampleMessage()
	m.Attachments = nil
	words := strings.TrimSpace(strings.Repeat("subject words ", 71)) // 993 characters
	noSpaces := strings.Repeat("s", 998)
	var to []carteiro.Address
	for i := range 50 {
		to = append(to, carteiro.Address{Name: "Recipient Number " + strconv.Itoa(i), Email: "rcpt" + strconv.Itoa(i) + "@example.org"})
	}
	m.To = to
	for _, subject := range []string{words, noSpaces} {
		m.Subject = subject
		raw, err := Build(m)
		if err != nil {
			t.Fatalf("Build: %v", err)
		}
		assertWireSafe(t, raw)
		msg, _ := parseMessage(t, raw)
		got, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
		if err != nil || got != subject {
			t.Errorf("subject of %d characters decodes to %d characters (%v)", len(subject), len(got), err)
		}
		list, err := msg.Header.AddressList("To")
		if err != nil || len(list) != 50 || list[49].Address != "rcpt49@example.org" {
			t.Errorf("To parses to %d addresses (%v)", len(list), err)
		}
	}
}

func TestBuildUndisclosedRecipients(t *testing.T) {
	t.Parallel()
	m := sampleMessage()
	m.To, m.Cc = nil, nil
	raw, err := Build(m)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	msg, _ := parseMessage(t, raw)
	if got := msg.Header.Get("To"); got != "undisclosed-recipients:;" {
		t.Errorf("To = %q", got)
	}
	if _, ok := msg.Header["Cc"]; ok {
		t.Error("empty Cc written")
	}
}

func TestBuildRefusesInjection(t *testing.T) {
	t.Parallel()
	cases := map[string]func(m *Message){
		"subject CRLF":          func(m *Message) { m.Subject = "hi\r\nBcc: victim@example.org" },
		"subject LF":            func(m *Message) { m.Subject = "hi\nX: y" },
		"subject NUL":           func(m *Message) { m.Subject = "hi\x00" },
		"from name LF":          func(m *Message) { m.From.Name = "Evil\nBcc: x@example.org" },
		"from address CR":       func(m *Message) { m.From.Email = "a@example.com\rRCPT TO:<x@y>" },
		"to address":            func(m *Message) { m.To[0].Email = "ana@example.org\r\n.\r\n" },
		"cc address no at":      func(m *Message) { m.Cc[0].Email = "carol" },
		"reply-to angle":        func(m *Message) { m.ReplyTo[0].Email = "a<b>@example.com" },
		"header value CRLF":     func(m *Message) { m.Headers["X-Tag"] = "a\r\nBcc: x@example.org" },
		"header name colon":     func(m *Message) { m.Headers["X-Bad:Name"] = "v" },
		"header name space":     func(m *Message) { m.Headers["X Bad"] = "v" },
		"header name CR":        func(m *Message) { m.Headers["X-Bad\r"] = "v" },
		"reserved From":         func(m *Message) { m.Headers["from"] = "x@example.org" },
		"reserved Content-Type": func(m *Message) { m.Headers["Content-Type"] = "text/plain" },
		"reserved Bcc":          func(m *Message) { m.Headers["BCC"] = "x@example.org" },
		"reply-to twice":        func(m *Message) { m.Headers["Reply-To"] = "x@example.org" },
		"filename LF":           func(m *Message) { m.Attachments[1].Filename = "a\nb.pdf" },
		"content type CRLF":     func(m *Message) { m.Attachments[1].ContentType = "text/plain\r\nX: y" },
		"cid CR":                func(m *Message) { m.Attachments[0].CID = "logo\r" },
		"cid angle":             func(m *Message) { m.Attachments[0].CID = "<logo>" },
		"inline without cid":    func(m *Message) { m.Attachments[0].CID = "" },
		"message id LF":         func(m *Message) { m.MessageID = "a@b\nX: y" },
		"message id brackets":   func(m *Message) { m.MessageID = "<a@b>" },
		"message id empty":      func(m *Message) { m.MessageID = "" },
		"header too long":       func(m *Message) { m.Headers["X-Long"] = strings.Repeat("z", 1000) },
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			m := sampleMessage()
			mutate(m)
			raw, err := Build(m)
			if !errors.Is(err, ErrInvalidMessage) {
				t.Fatalf("Build = %d bytes, err %v; want ErrInvalidMessage", len(raw), err)
			}
		})
	}
}

func TestBuildZeroDateIsNow(t *testing.T) {
	t.Parallel()
	m := sampleMessage()
	m.Date = time.Time{}
	before := time.Now().Add(-time.Second)
	raw, err := Build(m)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	msg, _ := parseMessage(t, raw)
	date, err := msg.Header.Date()
	if err != nil || date.Before(before.Truncate(time.Second)) || date.After(time.Now().Add(time.Second)) {
		t.Errorf("Date %v (%v), want about now", date, err)
	}
}

// The API refuses a custom header that cannot fold under 998 octets (D66,
// carteiro.HeaderFieldFits) so that an accepted email never fails here:
// both must agree on every field.
func TestBuildAgreesWithHeaderFieldFitsD66(t *testing.T) {
	t.Parallel()
	longName := "X-" + strings.Repeat("n", 98)
	values := []string{
		strings.Repeat("v", 990), strings.Repeat("v", 991), strings.Repeat("v", 998),
		strings.Repeat("v", 890), strings.Repeat("v", 897), strings.Repeat("v", 898),
		strings.Repeat("word ", 199) + "abc", "a" + strings.Repeat(" ", 900) + strings.Repeat("b", 100),
		strings.Repeat("ã", 998), "olá " + strings.Repeat("x", 990), "",
	}
	for _, name := range []string{"X-Long", longName} {
		for _, v := range values {
			m := sampleMessage()
			m.Headers = map[string]string{name: v}
			_, err := Build(m)
			fits := carteiro.HeaderFieldFits(name, carteiro.EncodeHeaderValue(v))
			if (err == nil) != fits {
				t.Errorf("%s: %d-octet value: Build error %v, HeaderFieldFits %v", name, len(v), err, fits)
			}
		}
	}
}
