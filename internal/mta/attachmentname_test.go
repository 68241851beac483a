package mta

import (
	"mime"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro"
)

// legacyParam reads parameter name from a header value as a reader that
// ignores RFC 2231 does (older Outlook): only name="..." counts, and its
// RFC 2047 encoded words are decoded; name*= and name*0*= are unknown
// parameters to it.
func legacyParam(t *testing.T, value, name string) string {
	t.Helper()
	for _, param := range splitParams(value)[1:] {
		key, v, ok := strings.Cut(strings.TrimSpace(param), "=")
		if !ok || !strings.EqualFold(key, name) {
			continue
		}
		v = strings.TrimSuffix(strings.TrimPrefix(v, `"`), `"`)
		decoded, err := new(mime.WordDecoder).DecodeHeader(v)
		if err != nil {
			t.Fatalf("decode %q: %v", v, err)
		}
		return decoded
	}
	return ""
}

// splitParams splits at semicolons outside quoted strings; the header is
// unfolded first, as a reader does.
func splitParams(v string) []string {
	v = strings.NewReplacer("\r\n", "", "\n", "").Replace(v)
	var out []string
	quoted, start := false, 0
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '"':
			quoted = !quoted
		case ';':
			if !quoted {
				out = append(out, v[start:i])
				start = i + 1
			}
		}
	}
	return append(out, v[start:])
}

// TestAttachmentNamesForReadersWithoutRFC2231 is D70: names outside ASCII
// reach a reader that ignores RFC 2231 through filename= and name=, and a
// reader that knows RFC 2231 (Go's mime) still gets the same name.
func TestAttachmentNamesForReadersWithoutRFC2231(t *testing.T) {
	names := []string{
		"relatório de ação.pdf",
		"請求書_2024年3月分_株式会社サンプル商事_御中_最終版_確認済み.xlsx", // longer than one encoded word
		"plain-ascii.txt",
	}
	for _, name := range names {
		m := &Message{MessageID: "a@shop.example", Date: time.Unix(1700000000, 0), From: carteiro.Address{Email: "a@shop.example"},
			To: []carteiro.Address{{Email: "b@example.org"}}, Subject: "s", Text: "t",
			Attachments: []carteiro.Attachment{{Filename: name, Content: []byte("x")}}}
		raw, err := Build(m)
		if err != nil {
			t.Fatal(err)
		}
		assertWireSafe(t, raw)
		_, root := parseMessage(t, raw)
		if len(root.children) != 2 {
			t.Fatalf("%s: shape %s", name, root.shape())
		}
		att := root.children[1]
		disposition, contentType := att.header.Get("Content-Disposition"), att.header.Get("Content-Type")
		if got := legacyParam(t, disposition, "filename"); got != name {
			t.Errorf("legacy reader: filename %q, want %q (Content-Disposition %q)", got, name, disposition)
		}
		if got := legacyParam(t, contentType, "name"); got != name {
			t.Errorf("legacy reader: name %q, want %q (Content-Type %q)", got, name, contentType)
		}
		if _, params, err := mime.ParseMediaType(disposition); err != nil || params["filename"] != name {
			t.Errorf("RFC 2231 reader: filename %q (%v), want %q", params["filename"], err, name)
		}
		if att.params["name"] != name {
			t.Errorf("RFC 2231 reader: name %q, want %q", att.params["name"], name)
		}
	}
}
