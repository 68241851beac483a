package submission

import (
	"context"
	"crypto/tls"
	"io"
	"net/smtp"
	"strings"
	"testing"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
	"github.com/carteiro/carteiro/internal/ratelimit"
	"github.com/carteiro/carteiro/internal/secrets"
)

// acceptAll authenticates "good" and accepts every message.
type acceptAll struct{ sent int }

func (a *acceptAll) Authenticate(_ context.Context, key string) (*app.Principal, error) {
	if key != "good" {
		return nil, &carteiro.Error{Code: carteiro.CodeInvalidAPIKey}
	}
	return &app.Principal{Org: &carteiro.Organization{ID: "o"}, Key: &carteiro.APIKey{ID: "k"}}, nil
}

func (a *acceptAll) SendEmail(context.Context, *app.Principal, *app.SendRequest) (*app.SendResult, error) {
	a.sent++
	return &app.SendResult{ID: "01a21d0e-9f80-7a0b-9364-51362ea73665"}, nil
}

func startTestServer(t *testing.T, maxBytes int64) (*Server, *acceptAll) {
	t.Helper()
	box, err := secrets.NewBox(secrets.GenerateSecret())
	if err != nil {
		t.Fatal(err)
	}
	cert, err := Certificate(context.Background(), "", "", "localhost", memSettings{}, box)
	if err != nil {
		t.Fatal(err)
	}
	sender := &acceptAll{}
	s, err := Listen(Options{Addr: "127.0.0.1:0", TLS: &tls.Config{Certificates: []tls.Certificate{cert}},
		Limiter: ratelimit.NewMemory(carteiro.SystemClock{}), MaxMessageBytes: maxBytes}, sender)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, sender
}

// authedData authenticates c with the good key and opens a transaction
// from a@shop.example to b@customer.example up to DATA. Loopback may AUTH
// without TLS (D74); net/smtp allows PLAIN to localhost.
func authedData(t *testing.T, c *smtp.Client) io.WriteCloser {
	t.Helper()
	if err := c.Auth(smtp.PlainAuth("", "u", "good", "127.0.0.1")); err != nil {
		t.Fatal(err)
	}
	if err := c.Mail("a@shop.example"); err != nil {
		t.Fatal(err)
	}
	if err := c.Rcpt("b@customer.example"); err != nil {
		t.Fatal(err)
	}
	w, err := c.Data()
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// D74's extensions are offered; a message over the cap gets 552 5.3.4 and
// is not handed to the app.
func TestExtensionsAndSizeCapD74(t *testing.T) {
	s, sender := startTestServer(t, 1000)
	c, err := smtp.Dial(s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Hello("client.example"); err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{"STARTTLS", "AUTH", "SIZE", "8BITMIME", "SMTPUTF8", "PIPELINING", "ENHANCEDSTATUSCODES"} {
		if ok, _ := c.Extension(ext); !ok {
			t.Errorf("%s not offered", ext)
		}
	}
	w := authedData(t, c)
	_, _ = w.Write([]byte("From: a@shop.example\r\nTo: b@customer.example\r\nSubject: big\r\n\r\n" + strings.Repeat(strings.Repeat("x", 70)+"\r\n", 30)))
	err = w.Close()
	if err == nil || !strings.HasPrefix(err.Error(), "552") || !strings.Contains(err.Error(), "5.3.4") {
		t.Fatalf("over the cap: %v, want 552 5.3.4", err)
	}
	if sender.sent != 0 {
		t.Fatal("a message over the cap reached the app")
	}
	// A line over go-smtp's limit is an unreadable message, 554 5.6.0.
	if err := c.Mail("a@shop.example"); err != nil {
		t.Fatal(err)
	}
	if err := c.Rcpt("b@customer.example"); err != nil {
		t.Fatal(err)
	}
	if w, err = c.Data(); err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write([]byte("From: a@shop.example\r\n\r\n" + strings.Repeat("y", 2500) + "\r\n"))
	if err = w.Close(); err == nil || !strings.HasPrefix(err.Error(), "554") || !strings.Contains(err.Error(), "5.6.0") {
		t.Fatalf("a too long line: %v, want 554 5.6.0", err)
	}
}
