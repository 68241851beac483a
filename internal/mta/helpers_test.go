package mta

import (
	"bytes"
	"context"
	"crypto"
	"encoding/base64"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/dkim"
)

// testKey is one RSA-2048 DKIM key shared by the package's tests: making
// one costs far more than every signature together.
var testKey = sync.OnceValues(func() (testKeyPair, error) {
	privatePEM, publicB64, err := dkim.GenerateKey()
	if err != nil {
		return testKeyPair{}, err
	}
	signer, err := dkim.ParsePrivateKey(privatePEM)
	return testKeyPair{signer: signer, publicB64: publicB64}, err
})

type testKeyPair struct {
	signer    crypto.Signer
	publicB64 string
}

// mustKey returns the shared key or fails the test.
func mustKey(t testing.TB) testKeyPair {
	t.Helper()
	k, err := testKey()
	if err != nil {
		t.Fatalf("generate DKIM key: %v", err)
	}
	return k
}

// sampleMessage is a message with every feature: both bodies, an inline
// image, an attachment, custom headers.
func sampleMessage() *Message {
	return &Message{
		MessageID: "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b@example.com",
		Date:      time.Date(2025, 3, 14, 15, 9, 26, 0, time.UTC),
		From:      carteiro.Address{Name: "Acme Billing", Email: "billing@example.com"},
		To:        []carteiro.Address{{Name: "Ana Lima", Email: "ana@example.org"}, {Email: "bob@example.net"}},
		Cc:        []carteiro.Address{{Email: "carol@example.org"}},
		ReplyTo:   []carteiro.Address{{Email: "support@example.com"}},
		Subject:   "Your invoice #42",
		Text:      "Hello Ana,\nyour invoice is attached.\n",
		HTML:      `<p>Hello Ana,</p><p>your invoice is attached.</p><img src="cid:logo">`,
		Headers: map[string]string{
			"List-Unsubscribe":      "<https://carteiro.example/u/tok>, <mailto:unsub@example.com>",
			"List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
			"X-Entity-Ref-ID":       "42",
		},
		Attachments: []carteiro.Attachment{
			{Filename: "logo.png", Content: []byte("\x89PNG\r\n\x1a\nfake image bytes"), ContentType: "image/png", Disposition: "inline", CID: "logo"},
			{Filename: "invoice.pdf", Content: bytes.Repeat([]byte("%PDF-1.7 binary \x00\xff\n"), 50), ContentType: "application/pdf", Disposition: "attachment"},
		},
	}
}

// assertWireSafe checks the SMTP-level invariants of a built message: CRLF
// line endings only, no NUL, no line over 998 octets.
func assertWireSafe(t *testing.T, raw []byte) {
	t.Helper()
	if err := checkData(raw); err != nil {
		t.Fatalf("message is not CRLF-clean: %v", err)
	}
	for i, line := range bytes.Split(raw, []byte("\r\n")) {
		if len(line) > maxLineOctets {
			t.Fatalf("line %d has %d octets (max %d)", i+1, len(line), maxLineOctets)
		}
	}
}

// node is a parsed MIME part with its body decoded.
type node struct {
	mediaType string
	params    map[string]string
	header    textproto.MIMEHeader
	body      []byte
	children  []*node
}

// parseMessage parses raw with net/mail and mime/multipart.
func parseMessage(t *testing.T, raw []byte) (*mail.Message, *node) {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("net/mail cannot read the message: %v", err)
	}
	return msg, parseNode(t, textproto.MIMEHeader(msg.Header), msg.Body)
}

// parseNode decodes one part, recursing into multiparts.
func parseNode(t *testing.T, h textproto.MIMEHeader, body io.Reader) *node {
	t.Helper()
	mediaType, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil {
		t.Fatalf("Content-Type %q: %v", h.Get("Content-Type"), err)
	}
	n := &node{mediaType: mediaType, params: params, header: h}
	if strings.HasPrefix(mediaType, "multipart/") {
		r := multipart.NewReader(body, params["boundary"])
		for {
			part, err := r.NextRawPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("multipart %s: %v", mediaType, err)
			}
			n.children = append(n.children, parseNode(t, part.Header, part))
		}
		return n
	}
	var decoded io.Reader = body
	switch strings.ToLower(h.Get("Content-Transfer-Encoding")) {
	case "quoted-printable":
		decoded = quotedprintable.NewReader(body)
	case "base64":
		decoded = base64.NewDecoder(base64.StdEncoding, body)
	}
	n.body, err = io.ReadAll(decoded)
	if err != nil {
		t.Fatalf("decode %s body: %v", mediaType, err)
	}
	return n
}

// shape renders the MIME tree as "multipart/mixed(text/plain,...)".
func (n *node) shape() string {
	if len(n.children) == 0 {
		return n.mediaType
	}
	parts := make([]string, len(n.children))
	for i, c := range n.children {
		parts[i] = c.shape()
	}
	return n.mediaType + "(" + strings.Join(parts, ",") + ")"
}

// crlf turns LF line breaks into CRLF, as the builder does.
func crlf(s string) string {
	return strings.ReplaceAll(s, "\n", "\r\n")
}

// testContext is a context bounded well below the test's own timeout.
func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// assertClasses checks each result's recipient and class.
func assertClasses(t *testing.T, results []Result, want map[string]Class) {
	t.Helper()
	if len(results) != len(want) {
		t.Fatalf("got %d results, want %d: %+v", len(results), len(want), results)
	}
	for _, r := range results {
		if w, ok := want[r.Recipient]; !ok || r.Class != w {
			t.Errorf("recipient %s: class %q, want %q (result %+v)", r.Recipient, r.Class, w, r)
		}
	}
}
