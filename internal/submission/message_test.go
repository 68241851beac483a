package submission

import (
	"errors"
	"testing"

	"github.com/emersion/go-smtp"

	"github.com/carteiro/carteiro"
)

const mappedMessage = "From: Shop <orders@shop.example>\r\n" +
	"To: Ana <ana@customer.example>, only-in-header@customer.example\r\n" +
	"Cc: carlos@customer.example\r\n" +
	"Subject: Hi\r\n" +
	"Date: Fri, 27 Nov 2026 10:00:00 +0000\r\n" +
	"MIME-Version: 1.0\r\n" +
	"Message-ID: <abc@shop.example>\r\n" +
	"X-Mailer: Thunderbird\r\n" +
	"X-Carteiro-Tags: order=42, kind=receipt\r\n" +
	"X-Carteiro-Idempotency-Key: order-42\r\n" +
	"\r\n" +
	"plain body\r\n"

// D74: envelope recipients are the recipients; To/Cc keep their place,
// the rest become bcc; header-only addresses are not sent to. Reserved
// headers are dropped, X-Carteiro ones honoured and removed.
func TestBuildRequestMapsLikePostEmailsD74(t *testing.T) {
	r, err := buildRequest([]string{"ana@customer.example", "carlos@customer.example", "audit@shop.example"}, []byte(mappedMessage))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.To.Items) != 1 || r.To.Items[0].Email != "ana@customer.example" || r.To.Items[0].Name != "Ana" {
		t.Errorf("to %+v", r.To.Items)
	}
	if len(r.Cc.Items) != 1 || len(r.Bcc.Items) != 1 || r.Bcc.Items[0].Email != "audit@shop.example" {
		t.Errorf("cc %+v bcc %+v", r.Cc.Items, r.Bcc.Items)
	}
	if r.From.Email != "orders@shop.example" || *r.Subject != "Hi" || r.Text == nil || *r.Text != "plain body\r\n" {
		t.Errorf("from/subject/text: %+v %q %v", r.From, *r.Subject, r.Text)
	}
	if len(r.Headers) != 1 || r.Headers["X-Mailer"] != "Thunderbird" {
		t.Errorf("custom headers %v, want only X-Mailer", r.Headers)
	}
	if len(r.Tags) != 2 || r.Tags[1] != (carteiro.Tag{Name: "kind", Value: "receipt"}) || r.IdempotencyKey != "order-42" {
		t.Errorf("tags %v key %q", r.Tags, r.IdempotencyKey)
	}
	if r.MessageID != "abc@shop.example" {
		t.Errorf("Message-ID %q not kept", r.MessageID)
	}
}

func TestBuildRequestRefusesUnreadable(t *testing.T) {
	for name, raw := range map[string]string{
		"no From":          "To: a@b.example\r\nSubject: x\r\n\r\nx\r\n",
		"bad tags":         "From: a@b.example\r\nTo: a@b.example\r\nX-Carteiro-Tags: nonsense\r\n\r\nx\r\n",
		"no To recipient":  "From: a@b.example\r\nTo: other@b.example\r\n\r\nx\r\n",
		"broken multipart": "From: a@b.example\r\nTo: a@b.example\r\nContent-Type: multipart/mixed\r\n\r\nx\r\n",
	} {
		_, err := buildRequest([]string{"a@b.example"}, []byte(raw))
		var se *smtp.SMTPError
		if !errors.As(err, &se) || se.Code != 554 || se.EnhancedCode != (smtp.EnhancedCode{5, 6, 0}) {
			t.Errorf("%s: err = %v, want 554 5.6.0", name, err)
		}
	}
}

func TestRefusalCodesD74(t *testing.T) {
	for code, want := range map[string]int{
		carteiro.CodeDomainNotVerified:   550,
		carteiro.CodeForbidden:           550,
		carteiro.CodeWarmupQuotaExceeded: 451,
		carteiro.CodeRateLimited:         451,
		carteiro.CodeValidation:          554,
		carteiro.CodeInternal:            451,
	} {
		if got, _ := refusal(&carteiro.Error{Code: code}); got.Code != want {
			t.Errorf("%s: %d, want %d", code, got.Code, want)
		}
	}
}
