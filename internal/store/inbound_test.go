package store_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/mimeparse"
	"github.com/carteiro/carteiro/internal/testserver"
)

// TestInboundBodiesStoredOnceInRaw (D75, issue 28's throughput): a
// received message's text and html are written once, in the raw message,
// not again in the parsed parts, so each message writes about half the
// bytes; the raw message comes back byte for byte and the other parsed
// fields as stored.
func TestInboundBodiesStoredOnceInRaw(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		st := openStore(t, b)
		ctx := testContext(t)
		org := createOrg(t, st, "Shop")
		d := createDomain(t, st, org.ID, "shop.example", time.Now())
		body := strings.Repeat("corpo do texto recebido ", 800)
		raw := []byte("From: a@sender.example\r\nTo: b@shop.example\r\nSubject: oi\r\n\r\n" + body + "\r\n")
		e := &carteiro.InboundEmail{ID: uuid.Must(uuid.NewV7()).String(), OrgID: org.ID, DomainID: d.ID, RcptTo: []string{"b@shop.example"},
			Subject: "oi", Message: mimeparse.Parse(raw), Size: int64(len(raw)), ReceivedAt: time.Now()}
		if e.Message.Text == "" || e.Message.Subject != "oi" {
			t.Fatalf("parse: %+v", e.Message)
		}
		if err := st.InsertInboundEmail(ctx, e, raw); err != nil {
			t.Fatal(err)
		}
		var parsed string
		rawQuery(t, st, `SELECT parsed FROM inbound_emails WHERE id = ?`, []any{e.ID}, func(scan func(...any) error) error {
			return scan(&parsed)
		})
		if strings.Contains(parsed, "corpo do texto") || len(parsed) > 1000 {
			t.Errorf("the parsed parts repeat the body (%d bytes): %.200s", len(parsed), parsed)
		}
		got, err := st.InboundEmail(ctx, org.ID, e.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Message.Subject != "oi" || got.Message.Text != "" || len(got.RcptTo) != 1 {
			t.Errorf("stored message %+v", got.Message)
		}
		gotRaw, err := st.InboundRaw(ctx, org.ID, e.ID)
		if err != nil || !bytes.Equal(gotRaw, raw) {
			t.Errorf("raw: %v, equal %v", err, bytes.Equal(gotRaw, raw))
		}
	})
}
