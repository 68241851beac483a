package inbound

import (
	"context"
	"testing"
)

// memoHandler remembers each RCPT's domain in the transaction's Memo and
// reports, at DATA, which domains that Memo holds.
type memoHandler struct {
	*testHandler
	recalled chan []string
}

func (h *memoHandler) AcceptsDomain(ctx context.Context, domain string) bool {
	MemoFrom(ctx).Remember(domain, true)
	return h.testHandler.AcceptsDomain(ctx, domain)
}

func (h *memoHandler) Deliver(ctx context.Context, from string, to []string, raw []byte) error {
	var found []string
	for _, d := range []string{bounceHost, customerHost} {
		if _, ok := MemoFrom(ctx).Recall(d); ok {
			found = append(found, d)
		}
	}
	h.recalled <- found
	return h.testHandler.Deliver(ctx, from, to, raw)
}

// Issue 28: what the handler learned at RCPT (a receiving domain's lookup)
// reaches the DATA of the same transaction, so it is not looked up again,
// and never the next transaction, which asks afresh.
func TestMemoCarriesRcptToDataOfOneTransaction(t *testing.T) {
	t.Parallel()
	h := &memoHandler{testHandler: newTestHandler(), recalled: make(chan []string, 2)}
	srv := startServer(t, Options{}, h)
	c := dial(t, srv)

	if err := c.Mail("a@sender.example", nil); err != nil {
		t.Fatalf("MAIL: %v", err)
	}
	if err := c.Rcpt("x@"+customerHost, nil); err != nil {
		t.Fatalf("RCPT: %v", err)
	}
	if err := sendData(t, c, []byte(dsn)); err != nil {
		t.Fatalf("end of DATA: %v", err)
	}
	if got := <-h.recalled; len(got) != 1 || got[0] != customerHost {
		t.Fatalf("first DATA recalled %q, want [%s]", got, customerHost)
	}

	// The next transaction, to the other domain: the first one's memory
	// is gone.
	if err := c.Mail("a@sender.example", nil); err != nil {
		t.Fatalf("second MAIL: %v", err)
	}
	if err := c.Rcpt("y@"+bounceHost, nil); err != nil {
		t.Fatalf("second RCPT: %v", err)
	}
	if err := sendData(t, c, []byte(dsn)); err != nil {
		t.Fatalf("second end of DATA: %v", err)
	}
	if got := <-h.recalled; len(got) != 1 || got[0] != bounceHost {
		t.Fatalf("second DATA recalled %q, want only [%s]", got, bounceHost)
	}
}
