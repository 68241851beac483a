package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-msgauth/dkim"

	"github.com/carteiro/carteiro/internal/dnscheck"
	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

// relayServer starts Carteiro relaying to an in-process SMTP server, with
// a verified sending domain.
func relayServer(t *testing.T, b testserver.Backend, env map[string]string) (*testserver.TestServer, *testutil.SMTPServer, createdDomain) {
	t.Helper()
	smtp := testutil.NewSMTPServer(t)
	ts, d := relayServerTo(t, b, smtp, env)
	return ts, smtp, d
}

// relayServerTo starts Carteiro relaying to smtp, with a verified sending
// domain.
func relayServerTo(t *testing.T, b testserver.Backend, smtp *testutil.SMTPServer, env map[string]string) (*testserver.TestServer, createdDomain) {
	t.Helper()
	settings := map[string]string{
		"CARTEIRO_DELIVERY":                 "relay",
		"CARTEIRO_RELAY_URL":                fmt.Sprintf("smtp+plain://%s", smtp.Addr()),
		"CARTEIRO_RELAY_ACCEPT_IS_DELIVERY": "true",
		"CARTEIRO_SMTP_TIMEOUT":             "2s",
	}
	for k, v := range env {
		settings[k] = v
	}
	ts := testserver.StartServer(t, b, settings)
	d := createDomain(t, ts, ts.LiveKey, "shop.example")
	publish(ts, d)
	testserver.Must(t, verify(t, ts, ts.LiveKey, d.ID).Status == "verified", "domain not verified")
	return ts, d
}

// verifyDKIM checks the message's DKIM signature against the test DNS.
func verifyDKIM(t *testing.T, ts *testserver.TestServer, raw []byte) {
	t.Helper()
	resolver, err := dnscheck.NewResolver(ts.DNS.Addr(), 2*time.Second)
	testserver.Must(t, err == nil, "resolver: %v", err)
	verifications, err := dkim.VerifyWithOptions(bytes.NewReader(raw), &dkim.VerifyOptions{
		LookupTXT: func(domain string) ([]string, error) { return resolver.LookupTXT(context.Background(), domain) },
	})
	testserver.Must(t, err == nil && len(verifications) == 1, "dkim verify: %v (%d signatures)", err, len(verifications))
	v := verifications[0]
	testserver.Must(t, v.Err == nil, "DKIM signature does not verify: %v", v.Err)
	testserver.Must(t, v.Domain == "shop.example", "signed by %s", v.Domain)
	for _, h := range []string{"from", "to", "subject", "date", "message-id"} {
		signed := slices.ContainsFunc(v.HeaderKeys, func(k string) bool { return strings.EqualFold(k, h) })
		testserver.Must(t, signed, "header %s not signed: %v", h, v.HeaderKeys)
	}
}

func TestRelayDeliveryBytes(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts, smtp, _ := relayServer(t, b, nil)
		png := []byte("\x89PNG\r\n\x1a\nfake image bytes")
		pdf := bytes.Repeat([]byte("%PDF-1.4 receipt "), 200)
		res := send(t, ts, ts.LiveKey, map[string]any{
			"from":    map[string]string{"email": "orders@shop.example", "name": "Loja Exemplo"},
			"to":      []any{"Ana <ana@customer.example>"},
			"cc":      "carlos@customer.example",
			"bcc":     []string{"audit@shop.example"},
			"replyTo": "support@shop.example",
			"subject": "Seu pedido nº 42 foi enviado",
			"html":    `<p>Olá Ana!</p><img src="cid:logo">`,
			"text":    "Olá Ana!",
			"headers": map[string]string{"X-Order-Id": "42"},
			"attachments": []map[string]string{
				{"filename": "logo.png", "content": b64(png), "contentType": "image/png", "disposition": "inline", "cid": "logo"},
				{"filename": "recibo.pdf", "content": b64(pdf), "contentType": "application/pdf", "disposition": "attachment"},
			},
			"tags": []map[string]string{{"name": "order", "value": "42"}},
		})
		msgs, err := smtp.WaitForMessages(3, 10*time.Second)
		testserver.Must(t, err == nil, "not every message reached the SMTP server: %v", err)
		m := msgs[0]
		// One transaction per recipient, each with its own return path
		// (D65), all with the same bytes; Bcc only in the envelope.
		var to []string
		for _, each := range msgs {
			testserver.Must(t, len(each.To) == 1, "a transaction for %v", each.To)
			to = append(to, each.To[0])
			testserver.Must(t, strings.HasPrefix(each.From, "bounces+") && strings.HasSuffix(each.From, "@bounces.shop.example"), "return path %s", each.From)
			testserver.Must(t, bytes.Equal(each.Data, m.Data), "%s received other bytes", each.To[0])
		}
		slices.Sort(to)
		testserver.Must(t, slices.Equal(to, []string{"ana@customer.example", "audit@shop.example", "carlos@customer.example"}), "envelope to %v", to)
		testserver.Must(t, msgs[0].From != msgs[1].From && msgs[1].From != msgs[2].From && msgs[0].From != msgs[2].From, "return paths shared")
		testserver.Must(t, !bytes.Contains(m.Data, []byte("audit@shop.example")), "the Bcc address is in the message")
		testserver.Must(t, !bytes.Contains(bytes.ReplaceAll(m.Data, []byte("\r\n"), nil), []byte("\n")), "bare LF in the message")
		verifyDKIM(t, ts, m.Data)

		msg, err := mail.ReadMessage(bytes.NewReader(m.Data))
		testserver.Must(t, err == nil, "parse: %v", err)
		h := msg.Header
		dec := new(mime.WordDecoder)
		subject, _ := dec.DecodeHeader(h.Get("Subject"))
		from, _ := mail.ParseAddress(h.Get("From"))
		testserver.Must(t, subject == "Seu pedido nº 42 foi enviado", "subject %q", subject)
		testserver.Must(t, from != nil && from.Name == "Loja Exemplo" && from.Address == "orders@shop.example", "from %v", h.Get("From"))
		testserver.Must(t, strings.Contains(h.Get("To"), "ana@customer.example") && strings.Contains(h.Get("Cc"), "carlos@customer.example"), "to/cc %v %v", h.Get("To"), h.Get("Cc"))
		testserver.Must(t, h.Get("Reply-To") == "support@shop.example" && h.Get("X-Order-Id") == "42", "reply-to/custom header: %v", h)
		testserver.Must(t, h.Get("Message-Id") == "<"+res.ID+"@shop.example>", "message-id %s", h.Get("Message-Id"))

		// multipart/mixed [ multipart/related [ alternative [text, html], logo ], pdf ]
		parts := walkMIME(t, h.Get("Content-Type"), msg.Body)
		testserver.Must(t, parts["text/plain"] == "Olá Ana!", "text part %q", parts["text/plain"])
		testserver.Must(t, strings.Contains(parts["text/html"], "cid:logo"), "html part %q", parts["text/html"])
		testserver.Must(t, parts["image/png <logo>"] == string(png), "inline image bytes differ")
		testserver.Must(t, parts["application/pdf recibo.pdf"] == string(pdf), "attachment bytes differ")

		e := waitStatus(t, ts, ts.LiveKey, res.ID, "delivered")
		testserver.Must(t, e.Attempts == 1 && e.SentAt != nil && e.DeliveredAt != nil && *e.MessageID == res.ID+"@shop.example", "email %+v", e)
		got := eventTypes(events(t, ts, ts.LiveKey, res.ID))
		want := []string{"queued", "processing", "sent", "delivered", "sent", "delivered", "sent", "delivered"}
		testserver.Must(t, slices.Equal(got, want), "timeline %v, want %v", got, want)
	})
}

func b64(b []byte) string {
	const enc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	var out strings.Builder
	for i := 0; i < len(b); i += 3 {
		var n uint32
		k := min(3, len(b)-i)
		for j := 0; j < 3; j++ {
			n <<= 8
			if j < k {
				n |= uint32(b[i+j])
			}
		}
		for j := 0; j < 4; j++ {
			if j <= k {
				out.WriteByte(enc[(n>>(18-6*j))&63])
			} else {
				out.WriteByte('=')
			}
		}
	}
	return out.String()
}

// walkMIME returns every leaf part's decoded body keyed by its type (and
// Content-ID or filename when present).
func walkMIME(t *testing.T, contentType string, body io.Reader) map[string]string {
	t.Helper()
	out := map[string]string{}
	var walk func(ct string, header map[string][]string, r io.Reader)
	walk = func(ct string, header map[string][]string, r io.Reader) {
		mt, params, err := mime.ParseMediaType(ct)
		testserver.Must(t, err == nil, "content type %q: %v", ct, err)
		if strings.HasPrefix(mt, "multipart/") {
			mr := multipart.NewReader(r, params["boundary"])
			for {
				p, err := mr.NextRawPart()
				if err == io.EOF {
					return
				}
				testserver.Must(t, err == nil, "multipart: %v", err)
				walk(p.Header.Get("Content-Type"), p.Header, decodeTransfer(t, p.Header.Get("Content-Transfer-Encoding"), p))
			}
		}
		data, _ := io.ReadAll(r)
		key := mt
		if header != nil {
			if cid := first(header["Content-Id"]); cid != "" {
				key += " " + cid
			} else if cd := first(header["Content-Disposition"]); cd != "" {
				_, p, _ := mime.ParseMediaType(cd)
				key += " " + p["filename"]
			}
		}
		out[key] = string(data)
	}
	walk(contentType, nil, body)
	return out
}

func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}
