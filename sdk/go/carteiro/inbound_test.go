package carteiro_test

import (
	"bytes"
	"context"
	"errors"
	"mime"
	"net/http"
	"strings"
	"testing"

	"github.com/carteiro/carteiro/sdk/go/carteiro"
)

// TestAttachmentKeepsBytesAndName: Attachment asks for any media type, and
// returns the bytes whole with the type and the file name the server's
// Content-Disposition gives (RFC 2231 for a non-ASCII name).
func TestAttachmentKeepsBytesAndName(t *testing.T) {
	data := []byte("%PDF-1.4\x00\xff binary")
	c, seen := scripted(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept") != "*/*" {
			t.Errorf("Accept %q", r.Header.Get("Accept"))
		}
		w.Header().Set("Content-Type", "application/pdf")
		w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": "nota fiscal nº 42.pdf"}))
		_, _ = w.Write(data)
	})
	got, err := c.InboundEmails.Attachment(context.Background(), "m1", "2")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Data, data) || got.ContentType != "application/pdf" || got.Filename != "nota fiscal nº 42.pdf" {
		t.Fatalf("got %q %q %q", got.Data, got.ContentType, got.Filename)
	}
	if r := seen(); len(r) != 1 || r[0].method != http.MethodGet || r[0].path != "/v1/product/inbound-emails/m1/attachments/2" {
		t.Fatalf("requests %+v", r)
	}
}

// TestOversizedAnswerIsAnErrorNotACut: an answer past the client's bound
// is ErrAnswerTooLarge, once, never a shorter value that looks whole.
func TestOversizedAnswerIsAnErrorNotACut(t *testing.T) {
	c, seen := scripted(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"emails":[],"pad":"` + strings.Repeat("x", 33<<20) + `"}`))
	})
	_, err := c.Emails.ListPage(context.Background(), nil)
	if !errors.Is(err, carteiro.ErrAnswerTooLarge) {
		t.Fatalf("err %v", err)
	}
	if n := len(seen()); n != 1 {
		t.Fatalf("%d requests: an oversized answer was retried", n)
	}
}
