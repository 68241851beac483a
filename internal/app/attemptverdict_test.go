package app

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/mta"
)

// The outcome of one delivery attempt, decided from the replies alone
// (D23 to D26, D46, D69, D80): what each recipient and the email become,
// the timeline events, the bounces that may suppress, the retry time.

var attemptNow = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

func accepted(addr string) mta.Result {
	return mta.Result{Recipient: addr, Class: mta.ClassAccepted, Code: 250, Enhanced: "2.0.0", Message: "ok", Host: "mx.example.com"}
}

func refused(addr string, code int, enhanced, text string) mta.Result {
	return mta.Result{Recipient: addr, Class: mta.ClassPermanent, Code: code, Enhanced: enhanced, Message: text}
}

func deferredBy(addr string, code int, enhanced, text string) mta.Result {
	return mta.Result{Recipient: addr, Class: mta.ClassTemporary, Code: code, Enhanced: enhanced, Message: text}
}

type attemptCase struct {
	name string
	// statuses of the email's recipients before the attempt ("a@example.com": pending);
	// every one not final is attempted unless listed in suppressed.
	before           []string
	suppressed       []string
	results          []mta.Result
	attempts         int        // the email's attempts, this one included
	first            *time.Time // when the email was first tried
	acceptIsDelivery bool

	want           map[string]carteiro.RecipientStatus
	wantEmail      carteiro.EmailStatus
	wantEvents     []string // "type recipient"
	wantBounce     []string // "recipient class"
	wantRetry      time.Duration
	wantFirstAsked bool
	wantError      string // the email's lastError
}

func ago(d time.Duration) *time.Time { t := attemptNow.Add(-d); return &t }

var attemptCases = []attemptCase{
	{
		name: "accepted by a relay is sent (D25)", before: []string{"a@example.com"},
		results: []mta.Result{accepted("a@example.com")}, attempts: 1,
		want: map[string]carteiro.RecipientStatus{"a@example.com": carteiro.RecipientSent}, wantEmail: carteiro.EmailSent,
		wantEvents: []string{"sent a@example.com"},
	},
	{
		name: "accepted by the recipient's MX is delivered (D25)", before: []string{"a@example.com"}, acceptIsDelivery: true,
		results: []mta.Result{accepted("A@Example.com")}, attempts: 1,
		want: map[string]carteiro.RecipientStatus{"a@example.com": carteiro.RecipientDelivered}, wantEmail: carteiro.EmailDelivered,
		wantEvents: []string{"sent a@example.com", "delivered a@example.com"},
	},
	{
		name: "hard bounce suppresses (D46)", before: []string{"a@example.com"},
		results: []mta.Result{refused("a@example.com", 550, "5.1.1", "user unknown")}, attempts: 1,
		want: map[string]carteiro.RecipientStatus{"a@example.com": carteiro.RecipientBounced}, wantEmail: carteiro.EmailBounced,
		wantEvents: []string{"bounced a@example.com"}, wantBounce: []string{"a@example.com hard"}, wantError: "550 5.1.1 user unknown",
	},
	{
		name: "enhanced code refined from the text (D69)", before: []string{"a@example.com"},
		results: []mta.Result{refused("a@example.com", 550, "5.0.0", "550 5.1.1 <a@example.com>: Recipient address rejected: User unknown")}, attempts: 1,
		want: map[string]carteiro.RecipientStatus{"a@example.com": carteiro.RecipientBounced}, wantEmail: carteiro.EmailBounced,
		wantEvents: []string{"bounced a@example.com"}, wantBounce: []string{"a@example.com hard"},
		wantError: "550 5.1.1 550 5.1.1 <a@example.com>: Recipient address rejected: User unknown",
	},
	{
		name: "full mailbox is a soft bounce, still reported (D69)", before: []string{"a@example.com"},
		results: []mta.Result{refused("a@example.com", 552, "5.2.2", "Mailbox is full")}, attempts: 1,
		want: map[string]carteiro.RecipientStatus{"a@example.com": carteiro.RecipientBounced}, wantEmail: carteiro.EmailBounced,
		wantEvents: []string{"bounced a@example.com"}, wantBounce: []string{"a@example.com soft"},
	},
	{
		name: "the sender's SPF refused fails the recipient without a bounce (D69)", before: []string{"a@example.com"},
		results: []mta.Result{refused("a@example.com", 550, "5.7.26", "the sender is unauthenticated: SPF did not pass")}, attempts: 1,
		want: map[string]carteiro.RecipientStatus{"a@example.com": carteiro.RecipientFailed}, wantEmail: carteiro.EmailFailed,
		wantEvents: []string{"failed a@example.com"},
	},
	{
		name: "first 4xx defers and retries after a minute (D23)", before: []string{"a@example.com"},
		results: []mta.Result{deferredBy("a@example.com", 451, "4.7.1", "greylisted")}, attempts: 1, first: ago(0),
		want: map[string]carteiro.RecipientStatus{"a@example.com": carteiro.RecipientDeferred}, wantEmail: carteiro.EmailQueued,
		wantEvents: []string{"delivery_delayed a@example.com"}, wantRetry: time.Minute, wantFirstAsked: true,
		wantError: "451 4.7.1 greylisted",
	},
	{
		name: "a second deferral makes no event and waits 5 minutes (D23)", before: []string{"a@example.com=deferred"},
		results: []mta.Result{deferredBy("a@example.com", 451, "4.7.1", "greylisted")}, attempts: 2, first: ago(time.Minute),
		want: map[string]carteiro.RecipientStatus{"a@example.com": carteiro.RecipientDeferred}, wantEmail: carteiro.EmailQueued,
		wantRetry: 5 * time.Minute, wantFirstAsked: true,
	},
	{
		name: "past the fifth attempt retries hourly (D23)", before: []string{"a@example.com=deferred"},
		results: []mta.Result{deferredBy("a@example.com", 421, "4.3.2", "try later")}, attempts: 6, first: ago(3 * time.Hour),
		want: map[string]carteiro.RecipientStatus{"a@example.com": carteiro.RecipientDeferred}, wantEmail: carteiro.EmailQueued,
		wantRetry: time.Hour, wantFirstAsked: true,
	},
	{
		name: "a deferral at the end of the window fails (D23)", before: []string{"a@example.com=deferred"},
		results: []mta.Result{deferredBy("a@example.com", 421, "4.7.0", "too many connections")}, attempts: 9, first: ago(72 * time.Hour),
		want: map[string]carteiro.RecipientStatus{"a@example.com": carteiro.RecipientFailed}, wantEmail: carteiro.EmailFailed,
		wantEvents: []string{"failed a@example.com"}, wantFirstAsked: true, wantError: "421 4.7.0 too many connections",
	},
	{
		name: "a timeout (no result) defers (D23)", before: []string{"a@example.com"},
		results: nil, attempts: 1, first: ago(0),
		want: map[string]carteiro.RecipientStatus{"a@example.com": carteiro.RecipientDeferred}, wantEmail: carteiro.EmailQueued,
		wantEvents: []string{"delivery_delayed a@example.com"}, wantRetry: time.Minute, wantFirstAsked: true,
		wantError: "no result from the transport",
	},
	{
		name: "mixed recipients: sent, bounced and deferred (D24)", before: []string{"a@example.com", "b@example.com", "c@example.com"},
		results:  []mta.Result{accepted("a@example.com"), refused("b@example.com", 550, "5.1.1", "no such user"), deferredBy("c@example.com", 450, "4.2.0", "busy")},
		attempts: 1, first: ago(0),
		want: map[string]carteiro.RecipientStatus{"a@example.com": carteiro.RecipientSent, "b@example.com": carteiro.RecipientBounced,
			"c@example.com": carteiro.RecipientDeferred},
		wantEmail:  carteiro.EmailQueued,
		wantEvents: []string{"sent a@example.com", "bounced b@example.com", "delivery_delayed c@example.com"},
		wantBounce: []string{"b@example.com hard"}, wantRetry: time.Minute, wantFirstAsked: true,
	},
	{
		name: "mixed final outcomes: sent wins over bounced (D24)", before: []string{"a@example.com", "b@example.com"},
		results: []mta.Result{accepted("a@example.com"), refused("b@example.com", 550, "5.1.1", "no such user")}, attempts: 1,
		want:      map[string]carteiro.RecipientStatus{"a@example.com": carteiro.RecipientSent, "b@example.com": carteiro.RecipientBounced},
		wantEmail: carteiro.EmailSent, wantEvents: []string{"sent a@example.com", "bounced b@example.com"},
		wantBounce: []string{"b@example.com hard"},
	},
	{
		name: "a suppressed recipient keeps its event and is not attempted (D46)", before: []string{"a@example.com", "b@example.com"},
		suppressed: []string{"b@example.com"}, results: []mta.Result{accepted("a@example.com")}, attempts: 1,
		want:      map[string]carteiro.RecipientStatus{"a@example.com": carteiro.RecipientSent, "b@example.com": carteiro.RecipientSuppressed},
		wantEmail: carteiro.EmailSent, wantEvents: []string{"suppressed b@example.com", "sent a@example.com"},
	},
	{
		name: "every recipient suppressed skips the email (D24)", before: []string{"a@example.com"}, suppressed: []string{"a@example.com"},
		attempts: 1, want: map[string]carteiro.RecipientStatus{"a@example.com": carteiro.RecipientSuppressed}, wantEmail: carteiro.EmailSkipped,
		wantEvents: []string{"suppressed a@example.com"},
	},
	{
		name: "already final recipients keep their status", before: []string{"a@example.com=delivered", "b@example.com=deferred"},
		results: []mta.Result{accepted("b@example.com")}, attempts: 2,
		want:      map[string]carteiro.RecipientStatus{"a@example.com": carteiro.RecipientDelivered, "b@example.com": carteiro.RecipientSent},
		wantEmail: carteiro.EmailSent, wantEvents: []string{"sent b@example.com"},
	},
}

func TestJudgeAttempt(t *testing.T) {
	for _, c := range attemptCases {
		t.Run(c.name, func(t *testing.T) {
			e := &carteiro.Email{ID: "e1", OrgID: "o1", Attempts: c.attempts, Status: carteiro.EmailProcessing}
			at := attempt{email: e, now: attemptNow, policy: attemptPolicy{acceptIsDelivery: c.acceptIsDelivery, retryWindow: 72 * time.Hour}}
			for _, b := range c.before {
				addr, status := splitStatus(b)
				r := &carteiro.Recipient{Address: addr, Status: status}
				at.all = append(at.all, r)
				if status != carteiro.RecipientPending && status != carteiro.RecipientDeferred {
					continue
				}
				at.pending = append(at.pending, r)
				if slices.Contains(c.suppressed, addr) {
					r.Status = carteiro.RecipientSuppressed
					at.events = append(at.events, newEvent(e.ID, carteiro.EventSuppressed, attemptNow, map[string]any{"recipient": addr}))
					continue
				}
				at.attempted = append(at.attempted, r)
			}
			at.results = c.results
			asked := false
			v, err := judgeAttempt(at, func() (*time.Time, error) { asked = true; return c.first, nil })
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range at.all {
				if r.Status != c.want[r.Address] {
					t.Errorf("%s: %s, want %s", r.Address, r.Status, c.want[r.Address])
				}
			}
			if e.Status != c.wantEmail {
				t.Errorf("email: %s, want %s", e.Status, c.wantEmail)
			}
			if got := eventNames(v.events); !slices.Equal(got, c.wantEvents) {
				t.Errorf("events %q, want %q", got, c.wantEvents)
			}
			var bounces []string
			for _, b := range v.bounces {
				bounces = append(bounces, b.Recipient+" "+string(b.Class))
			}
			if !slices.Equal(bounces, c.wantBounce) {
				t.Errorf("bounces %q, want %q", bounces, c.wantBounce)
			}
			var retry time.Duration
			if !v.retryAt.IsZero() {
				retry = v.retryAt.Sub(attemptNow)
			}
			if retry != c.wantRetry || (c.wantRetry == 0) != v.retryAt.IsZero() {
				t.Errorf("retry in %v (at %v), want %v", retry, v.retryAt, c.wantRetry)
			}
			if asked != c.wantFirstAsked {
				t.Errorf("first attempt time asked: %v, want %v", asked, c.wantFirstAsked)
			}
			if c.wantError != "" && e.LastError != c.wantError {
				t.Errorf("lastError %q, want %q", e.LastError, c.wantError)
			}
			if (e.Status == carteiro.EmailFailed) != (e.FailedAt != nil) {
				t.Errorf("email %s with failedAt %v", e.Status, e.FailedAt)
			}
			if (len(c.wantBounce) > 0) != (e.BouncedAt != nil) {
				t.Errorf("bouncedAt %v with bounces %q", e.BouncedAt, c.wantBounce)
			}
		})
	}
}

// splitStatus reads "address=status"; a bare address is pending.
func splitStatus(s string) (string, carteiro.RecipientStatus) {
	addr, status, ok := strings.Cut(s, "=")
	if !ok {
		return addr, carteiro.RecipientPending
	}
	return addr, carteiro.RecipientStatus(status)
}

func eventNames(events []*carteiro.EmailEvent) []string {
	var names []string
	for _, ev := range events {
		names = append(names, fmt.Sprintf("%s %v", ev.Type, ev.Metadata["recipient"]))
	}
	return names
}

// D80: a deferral by a destination on hold retries when the hold ends, not
// on the backoff schedule; a hold already over retries at once; one
// deferral without a hold keeps the schedule.
func TestJudgeAttemptRetriesHeldDestinationsAtTheirRelease(t *testing.T) {
	held := func(addr string, until time.Time) mta.Result {
		r := deferredBy(addr, 421, "4.7.0", "destination held")
		r.RetryAt = until
		return r
	}
	first := attemptNow
	for _, c := range []struct {
		name    string
		results []mta.Result
		want    time.Time
	}{
		{"held for 7 minutes", []mta.Result{held("a@example.com", attemptNow.Add(7*time.Minute)), held("b@example.com", attemptNow.Add(3*time.Minute))}, attemptNow.Add(7 * time.Minute)},
		{"hold already over", []mta.Result{held("a@example.com", attemptNow.Add(-time.Second)), held("b@example.com", attemptNow.Add(-time.Minute))}, attemptNow},
		{"one deferral not held", []mta.Result{held("a@example.com", attemptNow.Add(7*time.Minute)), deferredBy("b@example.com", 451, "4.3.0", "later")}, attemptNow.Add(time.Minute)},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := &carteiro.Recipient{Address: "a@example.com", Status: carteiro.RecipientPending}
			b := &carteiro.Recipient{Address: "b@example.com", Status: carteiro.RecipientPending}
			rs := []*carteiro.Recipient{a, b}
			v, err := judgeAttempt(attempt{email: &carteiro.Email{ID: "e1", Attempts: 1}, all: rs, pending: rs, attempted: rs, results: c.results,
				now: attemptNow, policy: attemptPolicy{retryWindow: 72 * time.Hour}}, func() (*time.Time, error) { return &first, nil })
			if err != nil {
				t.Fatal(err)
			}
			if !v.retryAt.Equal(c.want) {
				t.Errorf("retry at %v, want %v", v.retryAt, c.want)
			}
		})
	}
}

// The store's error while reading the first attempt's time is the
// verdict's: nothing is decided on a guess.
func TestJudgeAttemptPassesOnTheFirstAttemptError(t *testing.T) {
	broken := errors.New("database away")
	r := &carteiro.Recipient{Address: "a@example.com", Status: carteiro.RecipientPending}
	rs := []*carteiro.Recipient{r}
	_, err := judgeAttempt(attempt{email: &carteiro.Email{ID: "e1", Attempts: 1}, all: rs, pending: rs, attempted: rs,
		results: []mta.Result{deferredBy("a@example.com", 451, "4.3.0", "later")}, now: attemptNow,
		policy: attemptPolicy{retryWindow: 72 * time.Hour}}, func() (*time.Time, error) { return nil, broken })
	if !errors.Is(err, broken) {
		t.Fatalf("error %v, want %v", err, broken)
	}
}
