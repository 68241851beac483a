package app_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/app"
	"github.com/carteiro/carteiro/internal/dkim"
	"github.com/carteiro/carteiro/internal/mta"
	"github.com/carteiro/carteiro/internal/queue"
	"github.com/carteiro/carteiro/internal/secrets"
	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

// bundle is what a use-case test works with: the App over a real SQLite
// store in a temporary directory (with River's tables, so jobs are written
// as in production), a transport that answers as scripted, the test clock,
// and an organization with a live key and a verified domain.
type bundle struct {
	ctx       context.Context
	app       *app.App
	store     *store.Store
	transport *scriptedTransport
	clock     *testutil.Clock
	live      *app.Principal
	test      *app.Principal // the same organization's test-mode key (D7)
}

func setup(t *testing.T) *bundle {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	st, err := store.Open(ctx, testserver.DatabaseURL(t, testserver.SQLite))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if _, err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	q := queue.New(st, logger)
	if err := q.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	box, err := secrets.NewBox(secrets.GenerateSecret())
	if err != nil {
		t.Fatal(err)
	}
	clock := testutil.NewClock(time.Date(2031, 5, 17, 10, 0, 0, 0, time.UTC))
	tr := &scriptedTransport{}
	a := app.New(app.Deps{Store: st, Queue: q, Clock: clock, Box: box, Logger: logger, Transport: tr},
		app.Config{BounceHost: "bounces.carteiro.test", PublicURL: "http://127.0.0.1:1"})
	// An insert-only client: the test runs the jobs' use cases itself.
	if err := q.Start(ctx, a, queue.Options{Clock: clock}); err != nil {
		t.Fatal(err)
	}

	now := clock.Now()
	org := &carteiro.Organization{ID: uuid.NewString(), Name: "shop", CreatedAt: now}
	if err := st.CreateOrganization(ctx, org); err != nil {
		t.Fatal(err)
	}
	key := func(mode carteiro.Mode) *app.Principal {
		k := &carteiro.APIKey{ID: uuid.NewString(), OrgID: org.ID, Name: string(mode), Mode: mode, Permission: carteiro.PermissionFull,
			Hash: uuid.NewString(), Prefix: "re_" + string(mode), CreatedAt: now}
		if err := st.CreateAPIKey(ctx, k); err != nil {
			t.Fatal(err)
		}
		return &app.Principal{Org: org, Key: k}
	}
	pem, pub, err := dkim.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := box.Seal(pem)
	if err != nil {
		t.Fatal(err)
	}
	d := &carteiro.Domain{ID: uuid.NewString(), OrgID: org.ID, Name: "shop.example.com", Status: carteiro.DomainVerified, DKIMSelector: "cart1",
		DKIMPublicKey: pub, DKIMPrivateKey: sealed, OwnershipToken: "token", VerifiedAt: &now, CreatedAt: now, WarmupStartedAt: &now}
	if err := st.CreateDomain(ctx, d); err != nil {
		t.Fatal(err)
	}
	return &bundle{ctx: ctx, app: a, store: st, transport: tr, clock: clock, live: key(carteiro.ModeLive), test: key(carteiro.ModeTest)}
}

// scriptedTransport answers each recipient with the reply its test gave
// for its address (accepted when none), and remembers what was handed over.
type scriptedTransport struct {
	mu      sync.Mutex
	replies map[string]mta.Result
	sent    []mta.Envelope
}

func (s *scriptedTransport) answer(addr string, r mta.Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.replies == nil {
		s.replies = map[string]mta.Result{}
	}
	r.Recipient = addr
	s.replies[strings.ToLower(addr)] = r
}

func (s *scriptedTransport) Deliver(_ context.Context, env mta.Envelope, _ []byte) []mta.Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent = append(s.sent, env)
	results := make([]mta.Result, len(env.Recipients))
	for i, rcpt := range env.Recipients {
		r, ok := s.replies[strings.ToLower(rcpt)]
		if !ok {
			r = mta.Result{Recipient: rcpt, Class: mta.ClassAccepted, Code: 250, Enhanced: "2.0.0", Message: "queued", Host: "mx.example.com"}
		}
		results[i] = r
	}
	return results
}

// handedOver is how many times rcpt was handed to SMTP.
func (s *scriptedTransport) handedOver(rcpt string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, env := range s.sent {
		for _, r := range env.Recipients {
			if strings.EqualFold(r, rcpt) {
				n++
			}
		}
	}
	return n
}

// request is a minimal valid POST /emails from the verified domain.
func request(to ...string) *app.SendRequest {
	subject, text := "Your order", "It ships today."
	r := &app.SendRequest{From: &app.AddressInput{Text: "orders@shop.example.com"}, Subject: &subject, Text: &text}
	for _, addr := range to {
		r.To.Items = append(r.To.Items, app.AddressInput{Text: addr})
	}
	return r
}

// deliver runs the email's delivery job as the queue's worker would.
func (b *bundle) deliver(t *testing.T, id string) {
	t.Helper()
	if err := b.app.DeliverEmail(b.ctx, id, false, b.clock.Now()); err != nil {
		t.Fatalf("deliver %s: %v", id, err)
	}
}

// sendAndDeliver sends one email to rcpt with the live key and runs its
// delivery job once; it returns the email's id.
func (b *bundle) sendAndDeliver(t *testing.T, rcpt string) string {
	t.Helper()
	res, err := b.app.SendEmail(b.ctx, b.live, request(rcpt))
	if err != nil {
		t.Fatal(err)
	}
	b.deliver(t, res.ID)
	return res.ID
}

func (b *bundle) email(t *testing.T, id string) *carteiro.Email {
	t.Helper()
	e, err := b.app.GetEmail(b.ctx, b.live, id)
	if err != nil {
		t.Fatalf("get email %s: %v", id, err)
	}
	return e
}

// eventTypes is the email's timeline, oldest first.
func (b *bundle) eventTypes(t *testing.T, id string) []string {
	t.Helper()
	events, err := b.app.EmailEvents(b.ctx, b.live, id)
	if err != nil {
		t.Fatalf("events of %s: %v", id, err)
	}
	var types []string
	for _, ev := range events {
		types = append(types, string(ev.Type))
	}
	return types
}
