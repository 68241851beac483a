package app_test

import (
	"slices"
	"testing"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
	"github.com/carteiro/carteiro/internal/mta"
)

// Accepting email (POST /emails, batches, D21, D22, D29) and what its
// delivery attempt records (D23 to D26, D46), through the use cases over a
// real SQLite store and a scripted transport.

func TestSendIsQueuedThenSent(t *testing.T) {
	b := setup(t)
	res, err := b.app.SendEmail(b.ctx, b.live, request("carol@example.net"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != carteiro.EmailQueued || res.Replayed {
		t.Fatalf("accepted as %+v, want queued and not replayed", res)
	}
	if got := b.email(t, res.ID).Status; got != carteiro.EmailQueued {
		t.Fatalf("stored as %s before delivery, want queued", got)
	}
	b.deliver(t, res.ID)
	e := b.email(t, res.ID)
	if e.Status != carteiro.EmailSent || e.SentAt == nil || e.Attempts != 1 {
		t.Fatalf("after delivery: status %s, sentAt %v, attempts %d; want sent once", e.Status, e.SentAt, e.Attempts)
	}
	want := []string{"queued", "processing", "sent"}
	if got := b.eventTypes(t, res.ID); !slices.Equal(got, want) {
		t.Fatalf("timeline %q, want %q", got, want)
	}
	// A job run again (River retries it) sends nothing twice.
	b.deliver(t, res.ID)
	if n := b.transport.handedOver("carol@example.net"); n != 1 {
		t.Fatalf("handed to SMTP %d times, want once", n)
	}
}

// 4.1: a batch item that fails validation fails alone; the others commit.
func TestBatchItemsFailAlone(t *testing.T) {
	b := setup(t)
	bad := request() // no recipient
	items, err := b.app.SendBatch(b.ctx, b.live, []*app.SendRequest{request("a@example.net"), bad, request("c@example.net")})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 3 || items[0].Result == nil || items[2].Result == nil || items[1].Err == nil || items[1].Result != nil {
		t.Fatalf("items %+v: want the first and last accepted, the second refused", items)
	}
	if carteiro.AsError(items[1].Err).Code != carteiro.CodeValidation {
		t.Fatalf("second item: %v, want a validation error", items[1].Err)
	}
	for _, i := range []int{0, 2} {
		if got := b.email(t, items[i].Result.ID).Status; got != carteiro.EmailQueued {
			t.Fatalf("item %d stored as %s, want queued", i, got)
		}
	}
}

// D22: one key, one email; the same key with another body is refused; a
// key repeated inside one batch replays the item before it.
func TestIdempotencyKeyReplaysOneEmail(t *testing.T) {
	b := setup(t)
	r := request("carol@example.net")
	r.IdempotencyKey, r.BodyHash = "order-42", "hash-1"
	first, err := b.app.SendEmail(b.ctx, b.live, r)
	if err != nil {
		t.Fatal(err)
	}
	again, err := b.app.SendEmail(b.ctx, b.live, r)
	if err != nil {
		t.Fatal(err)
	}
	if again.ID != first.ID || !again.Replayed {
		t.Fatalf("second send %+v, want a replay of %s", again, first.ID)
	}
	other := request("dave@example.net")
	other.IdempotencyKey, other.BodyHash = "order-42", "hash-2"
	if _, err := b.app.SendEmail(b.ctx, b.live, other); carteiro.AsError(err).Code != carteiro.CodeIdempotencyReused {
		t.Fatalf("same key, other body: %v, want %s", err, carteiro.CodeIdempotencyReused)
	}
	x, y := request("erin@example.net"), request("erin@example.net")
	x.IdempotencyKey, x.BodyHash = "batch-key", "h"
	y.IdempotencyKey, y.BodyHash = "batch-key", "h"
	items, err := b.app.SendBatch(b.ctx, b.live, []*app.SendRequest{x, y})
	if err != nil {
		t.Fatal(err)
	}
	if items[0].Result == nil || items[1].Result == nil || items[1].Result.ID != items[0].Result.ID || !items[1].Result.Replayed {
		t.Fatalf("batch items %+v %+v: want the second to replay the first", items[0], items[1])
	}
	// The window is 24 hours: after it the key accepts a new email.
	b.clock.Advance(25 * time.Hour)
	later, err := b.app.SendEmail(b.ctx, b.live, other)
	if err != nil || later.ID == first.ID || later.Replayed {
		t.Fatalf("after the window: %+v, %v; want a new email", later, err)
	}
}

// D21, D29: a scheduled email cancelled before its time is never handed
// over, and its timeline says so.
func TestCancelledScheduledEmailIsNotSent(t *testing.T) {
	b := setup(t)
	r := request("carol@example.net")
	at := b.clock.Now().Add(time.Hour)
	r.ScheduledAt = &at
	res, err := b.app.SendEmail(b.ctx, b.live, r)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != carteiro.EmailScheduled {
		t.Fatalf("accepted as %s, want scheduled", res.Status)
	}
	if err := b.app.CancelEmail(b.ctx, b.live, res.ID); err != nil {
		t.Fatal(err)
	}
	b.clock.Advance(time.Hour)
	b.deliver(t, res.ID)
	if n := b.transport.handedOver("carol@example.net"); n != 0 {
		t.Fatalf("cancelled email handed to SMTP %d times", n)
	}
	if e := b.email(t, res.ID); e.Status != carteiro.EmailCancelled {
		t.Fatalf("status %s, want cancelled", e.Status)
	}
	if err := b.app.CancelEmail(b.ctx, b.live, res.ID); carteiro.AsError(err).Code != carteiro.CodeInvalidState {
		t.Fatalf("second cancel: %v, want %s", err, carteiro.CodeInvalidState)
	}
}

// D46: a hard bounce suppresses its address, and the next email to it is
// not handed over.
func TestHardBounceSuppressesTheAddress(t *testing.T) {
	b := setup(t)
	b.transport.answer("gone@example.net", mta.Result{Class: mta.ClassPermanent, Code: 550, Enhanced: "5.1.1", Message: "user unknown"})
	first := b.sendAndDeliver(t, "gone@example.net")
	e := b.email(t, first)
	if e.Status != carteiro.EmailBounced || e.BouncedAt == nil || e.LastError != "550 5.1.1 user unknown" {
		t.Fatalf("after a 550: %s, bouncedAt %v, lastError %q", e.Status, e.BouncedAt, e.LastError)
	}
	next := b.sendAndDeliver(t, "gone@example.net")
	if n := b.transport.handedOver("gone@example.net"); n != 1 {
		t.Fatalf("handed to SMTP %d times, want once (the second email suppressed)", n)
	}
	if got := b.eventTypes(t, next); !slices.Contains(got, "suppressed") {
		t.Fatalf("second email's timeline %q: want suppressed", got)
	}
}

// D23: a deferral is retried; one still deferred when the window closes
// fails the email.
func TestDeferralRetriesUntilTheWindowCloses(t *testing.T) {
	b := setup(t)
	b.transport.answer("slow@example.net", mta.Result{Class: mta.ClassTemporary, Code: 451, Enhanced: "4.7.1", Message: "greylisted"})
	id := b.sendAndDeliver(t, "slow@example.net")
	if e := b.email(t, id); e.Status != carteiro.EmailQueued || e.LastError != "451 4.7.1 greylisted" {
		t.Fatalf("after a 451: %s, lastError %q; want queued for a retry", e.Status, e.LastError)
	}
	b.clock.Advance(72 * time.Hour)
	b.deliver(t, id)
	e := b.email(t, id)
	if e.Status != carteiro.EmailFailed || e.FailedAt == nil || e.Attempts != 2 {
		t.Fatalf("after the window: %s, failedAt %v, attempts %d; want failed after 2", e.Status, e.FailedAt, e.Attempts)
	}
	want := []string{"queued", "processing", "delivery_delayed", "processing", "failed"}
	if got := b.eventTypes(t, id); !slices.Equal(got, want) {
		t.Fatalf("timeline %q, want %q", got, want)
	}
}

// D7, D30: a test key's email is simulated, never handed to SMTP.
func TestTestModeEmailIsSimulated(t *testing.T) {
	b := setup(t)
	res, err := b.app.SendEmail(b.ctx, b.test, request("bounced@example.net"))
	if err != nil {
		t.Fatal(err)
	}
	b.deliver(t, res.ID)
	if n := b.transport.handedOver("bounced@example.net"); n != 0 {
		t.Fatalf("sandbox email handed to SMTP %d times", n)
	}
	e, err := b.app.GetEmail(b.ctx, b.test, res.ID)
	if err != nil {
		t.Fatal(err)
	}
	if e.Status != carteiro.EmailBounced {
		t.Fatalf("simulated bounce: %s, want bounced", e.Status)
	}
}
