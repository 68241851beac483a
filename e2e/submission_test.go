package e2e

import (
	"bytes"
	"mime"
	"net/mail"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
)

// submittedPNG and submittedPDF are the inline image and the attachment of
// submittedMessage, Base64 as a mail client writes them.
var (
	submittedPNG = []byte("\x89PNG\r\n\x1a\nfake image bytes")
	submittedPDF = bytes.Repeat([]byte("%PDF-1.4 receipt "), 200)
)

// submittedMessage is what a mail client sends: html and text, an inline
// image referenced by cid, a PDF, a Message-ID, the X-Carteiro headers of
// D74, a custom header, and the Date and MIME-Version every client adds
// (reserved headers, dropped rather than refused).
func submittedMessage(from string) string {
	return "From: Loja Exemplo <" + from + ">\r\n" +
		"To: Ana <ana@customer.example>\r\n" +
		"Cc: carlos@customer.example\r\n" +
		"Reply-To: support@shop.example\r\n" +
		"Subject: =?UTF-8?Q?Seu_pedido_n=C2=BA_42?=\r\n" +
		"Date: Fri, 27 Nov 2026 10:00:00 +0000\r\n" +
		"Message-ID: <order-42.abc@mua.shop.example>\r\n" +
		"MIME-Version: 1.0\r\n" +
		"X-Order-Id: 42\r\n" +
		"X-Carteiro-Tags: order=42, kind=receipt\r\n" +
		"Content-Type: multipart/mixed; boundary=\"mixed\"\r\n" +
		"\r\n" +
		"--mixed\r\nContent-Type: multipart/related; boundary=\"rel\"\r\n\r\n" +
		"--rel\r\nContent-Type: multipart/alternative; boundary=\"alt\"\r\n\r\n" +
		"--alt\r\nContent-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nOl=C3=A1 Ana!\r\n" +
		"--alt\r\nContent-Type: text/html; charset=UTF-8\r\n\r\n<p>Olá Ana!</p><img src=\"cid:logo\">\r\n" +
		"--alt--\r\n" +
		"--rel\r\nContent-Type: image/png\r\nContent-Transfer-Encoding: base64\r\nContent-ID: <logo>\r\n" +
		"Content-Disposition: inline; filename=\"logo.png\"\r\n\r\n" + b64(submittedPNG) + "\r\n" +
		"--rel--\r\n" +
		"--mixed\r\nContent-Type: application/pdf\r\nContent-Transfer-Encoding: base64\r\n" +
		"Content-Disposition: attachment; filename=\"recibo.pdf\"\r\n\r\n" + wrap76(b64(submittedPDF)) +
		"--mixed--\r\n"
}

func wrap76(s string) string {
	var b strings.Builder
	for len(s) > 76 {
		b.WriteString(s[:76] + "\r\n")
		s = s[76:]
	}
	return b.String() + s + "\r\n"
}

var queuedReply = regexp.MustCompile(`^250 2\.0\.0 queued id=([0-9a-f-]{36})$`)

// TestSubmissionAcceptsLikePostEmails (D74): Go's net/smtp client, after
// STARTTLS and AUTH PLAIN with an API key, sends an HTML+text message with
// an inline image and an attachment. The DATA reply carries the email's
// id; the message reaches the relay DKIM-signed with its parts intact, the
// envelope-only recipient as bcc, the client's Message-ID kept and the
// X-Carteiro headers removed; GET /emails shows it with its key and tags.
func TestSubmissionAcceptsLikePostEmails(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, sink := submissionServer(t, b, nil)
		c := authedClient(t, ts, ts.LiveKey)
		rcpts := []string{"ana@customer.example", "carlos@customer.example", "audit@shop.example"}
		reply := transact(t, c, "orders@shop.example", rcpts, submittedMessage("orders@shop.example"))
		m := queuedReply.FindStringSubmatch(reply)
		testserver.Must(t, m != nil, "DATA reply %q, want 250 2.0.0 queued id=<uuid>", reply)
		id := m[1]

		msgs, err := sink.WaitForMessages(3, 10*time.Second)
		testserver.Must(t, err == nil, "not every message reached the relay: %v", err)
		var to []string
		for _, each := range msgs {
			to = append(to, each.To...)
		}
		slices.Sort(to)
		testserver.Must(t, slices.Equal(to, []string{"ana@customer.example", "audit@shop.example", "carlos@customer.example"}), "envelope to %v", to)
		data := msgs[0].Data
		testserver.Must(t, !bytes.Contains(data, []byte("audit@shop.example")), "the bcc address is in the message")
		testserver.Must(t, !bytes.Contains(data, []byte("X-Carteiro")), "X-Carteiro headers were not removed")
		verifyDKIM(t, ts, data)

		msg, err := mail.ReadMessage(bytes.NewReader(data))
		testserver.Must(t, err == nil, "parse: %v", err)
		h := msg.Header
		subject, _ := new(mime.WordDecoder).DecodeHeader(h.Get("Subject"))
		testserver.Must(t, subject == "Seu pedido nº 42", "subject %q", subject)
		testserver.Must(t, h.Get("Message-Id") == "<order-42.abc@mua.shop.example>", "Message-ID %q not kept", h.Get("Message-Id"))
		testserver.Must(t, h.Get("X-Order-Id") == "42" && h.Get("Reply-To") == "support@shop.example", "custom header/reply-to: %v", h)
		testserver.Must(t, strings.Contains(h.Get("To"), "ana@customer.example") && strings.Contains(h.Get("Cc"), "carlos@customer.example"), "to/cc %v", h)
		mustHaveSubmittedParts(t, msg)

		e := waitStatus(t, ts, ts.LiveKey, id, "delivered")
		testserver.Must(t, e.APIKey != nil && e.APIKey.ID != "", "email has no apiKey: %+v", e)
		testserver.Must(t, len(e.Bcc) == 1 && e.Bcc[0] == "audit@shop.example", "bcc %v", e.Bcc)
		testserver.Must(t, len(e.Tags) == 2 && e.Tags[0].Name == "order" && e.Tags[0].Value == "42", "tags %+v", e.Tags)
	})
}

// mustHaveSubmittedParts checks that a delivered message carries
// submittedMessage's parts: its text, its html, the inline image and the
// attachment, byte for byte.
func mustHaveSubmittedParts(t *testing.T, msg *mail.Message) {
	t.Helper()
	parts := walkMIME(t, msg.Header.Get("Content-Type"), msg.Body)
	testserver.Must(t, parts["text/plain"] == "Olá Ana!\r\n" || parts["text/plain"] == "Olá Ana!", "text part %q", parts["text/plain"])
	testserver.Must(t, strings.Contains(parts["text/html"], `<img src="cid:logo">`), "html part %q", parts["text/html"])
	testserver.Must(t, parts["image/png <logo>"] == string(submittedPNG), "inline image differs: %v", keys(parts))
	testserver.Must(t, parts["application/pdf recibo.pdf"] == string(submittedPDF), "attachment differs: %v", keys(parts))
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
