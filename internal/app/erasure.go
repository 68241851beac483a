package app

import (
	"context"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
)

// Erasure is what erasing a person removed (D78).
type Erasure struct {
	ContactsDeleted int64
	EmailsRedacted  int64
	// InboundDeleted counts the received messages from the address that
	// were deleted (D75, D78).
	InboundDeleted int64
}

// ErasePerson erases an address from the organization's data (D78): its
// contacts leave every audience, the emails to or from it lose their
// content and show it as erased@erased.invalid (recipients, timeline and
// webhook deliveries alike), and a suppression (manual, category all)
// keeps it from being mailed again; the suppression keeps the address, as
// not mailing it requires. A live key erases both modes' emails, a test
// key only test mode's (D7). No webhook event is raised: it would carry the
// address to other systems again. A second call finds nothing left and
// answers zeros.
func (a *App) ErasePerson(ctx context.Context, p *Principal, email string) (*Erasure, error) {
	if err := p.requireFull(); err != nil {
		return nil, err
	}
	addr, err := carteiro.ParseAddress("email", email)
	if err != nil {
		return nil, err
	}
	if addr.Name != "" {
		return nil, carteiro.Invalid("email", "invalid_email")
	}
	x := store.NewEraser(addr.Email)
	// The suppression first: an attempt starting while the rest is
	// erased already leaves the address out (D46's gate orders the two).
	err = a.store.InTx(ctx, func(tx *store.Tx) error {
		return a.suppressIn(ctx, tx, p.Org.ID, addr.Email, "manual", "manual", CategoryAll, nil)
	})
	if err != nil {
		return nil, storeErr(err)
	}
	var out Erasure
	if out.ContactsDeleted, err = a.store.DeleteContactsOf(ctx, p.Org.ID, x); err != nil {
		return nil, storeErr(err)
	}
	modes := []carteiro.Mode{carteiro.ModeTest}
	if p.Mode() == carteiro.ModeLive {
		modes = append(modes, carteiro.ModeLive)
	}
	ids, err := a.store.EmailsOf(ctx, p.Org.ID, modes, x)
	if err != nil {
		return nil, storeErr(err)
	}
	if out.EmailsRedacted, err = a.store.RedactEmails(ctx, ids, x, a.clock.Now()); err != nil {
		return nil, storeErr(err)
	}
	// Received mail is live data: a test key leaves it (D7), and its
	// webhook logs keep the message (with the address erased).
	receivedDeleted := p.Mode() == carteiro.ModeLive
	if receivedDeleted {
		if out.InboundDeleted, err = a.eraseInbound(ctx, p.Org.ID, addr.Email); err != nil {
			return nil, storeErr(err)
		}
	}
	if _, err := a.store.RedactWebhookDeliveries(ctx, p.Org.ID, x, receivedDeleted); err != nil {
		return nil, storeErr(err)
	}
	return &out, nil
}

// eraseBatch bounds the received messages deleted per transaction.
const eraseBatch = 200

// eraseInbound deletes the organization's received messages from address
// (D78), in batches.
func (a *App) eraseInbound(ctx context.Context, orgID, address string) (int64, error) {
	var total int64
	for {
		var n int
		err := a.store.InTx(ctx, func(tx *store.Tx) error {
			var err error
			n, err = tx.EraseInboundFrom(ctx, orgID, address, eraseBatch)
			return err
		})
		total += int64(n)
		if err != nil || n < eraseBatch {
			return total, err
		}
	}
}
