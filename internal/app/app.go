// Package app holds Carteiro's use cases. It speaks in domain types and
// carteiro.Error codes; it knows neither HTTP nor SQL dialects. Every write
// that triggers later work enqueues that work in the same transaction.
package app

import (
	"context"
	"crypto"
	"crypto/rsa"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/dnscheck"
	"github.com/carteiro/carteiro/internal/health"
	"github.com/carteiro/carteiro/internal/mta"
	"github.com/carteiro/carteiro/internal/secrets"
	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/webhook"
)

// Job is a unit of background work; its Kind names the worker (River's
// JobArgs has the same shape, so job types need no queue import).
type Job interface{ Kind() string }

// JobOpts tune one enqueue.
type JobOpts struct {
	// ScheduledAt delays the job; zero runs it now.
	ScheduledAt time.Time
	// UniqueByArgs skips the insert when a job of the same kind and
	// arguments is already waiting or running.
	UniqueByArgs bool
	// Queue names the queue; "" is the default one.
	Queue string
	// Priority ranks the job among the waiting ones of its queue: 1 (the
	// default, 0 here) runs first, up to 4.
	Priority int
}

// backgroundPriority ranks the background lane, a broadcast's deliveries,
// after every other email waiting in the queue: a broadcast hands its
// whole audience to the queue in seconds, and a password reset sent meanwhile must not wait behind
// 100,000 newsletters (Postmark keeps broadcasts on a separate stream for
// the same reason).
const backgroundPriority = 2

// WebhookQueue runs webhook deliveries apart from email deliveries, with
// its own workers, so slow or dead endpoints cannot hold up email.
const WebhookQueue = "webhooks"

// BroadcastQueue runs the fan-out of broadcasts (FanOutJob and
// StartBroadcastJob) apart from the deliveries they create.
const BroadcastQueue = "broadcasts"

// MaintenanceQueue runs the retention purge (D77) apart from email
// deliveries. River takes a queue's jobs by priority, then by the time
// they became due: in the default queue an hourly pass waited behind every
// delivery queued before it, and under a sustained load, with deliveries
// yielding to accepts and a backlog of hundreds of thousands, it did not
// start for longer than a pass lasts (issue 31).
const MaintenanceQueue = "maintenance"

// Enqueuer inserts jobs inside a store transaction, so a job exists exactly
// when the rows it acts on were committed.
type Enqueuer interface {
	EnqueueTx(ctx context.Context, tx *store.Tx, job Job, opts JobOpts) error
	// EnqueueManyTx inserts several jobs with the same options at once.
	EnqueueManyTx(ctx context.Context, tx *store.Tx, jobs []Job, opts JobOpts) error
}

// Config holds the settings the use cases need.
type Config struct {
	// BounceHost is the target of every domain's return-path CNAME (D31).
	BounceHost string
	// DKIMSelector is the selector of new DKIM keys (D31: cart1).
	DKIMSelector string
	// Warmup enforces D34's daily quotas.
	Warmup bool
	// AcceptIsDelivery counts a 250 after DATA as delivery: true for direct
	// delivery, where the recipient's MX answers, and for a relay when
	// CARTEIRO_RELAY_ACCEPT_IS_DELIVERY is set (D25).
	AcceptIsDelivery bool
	// RetryWindow is how long temporary failures are retried (D23: 72 hours).
	RetryWindow time.Duration
	// SystemFrom sends the service's own mail (sender verification, D36).
	SystemFrom carteiro.Address
	// PublicURL is the base of links in the service's own mail and of the
	// tracking and unsubscribe links.
	PublicURL string
	// Tracking turns on open and click tracking of HTML email (D53).
	Tracking bool
	// SenderTokenInResponse shows a live sender's verification token in
	// POST /senders' answer too, not only in the email (D59).
	SenderTokenInResponse bool
	// Blocklists are the DNSBLs asked about the sending IPs and domains (D33).
	Blocklists []health.List
	// SendingIPs are the addresses mail leaves from, for blocklist checks.
	SendingIPs []string
	// WebhookAllowPrivate relaxes D51 for tests and private deployments.
	WebhookAllowPrivate bool
	// DeliverySlots bounds the delivery attempts in flight in this process
	// (50 when unset); the server gives it its default queue's workers.
	DeliverySlots int
	// RecordGrace is how long past its job's deadline an attempt keeps
	// trying to record its outcome while the database is unreachable
	// (commitOutcome; 7 s when unset). The server keeps it short of River's
	// rescue of the job.
	RecordGrace time.Duration
	// ContentRetention and LogRetention are D77's periods; 0 keeps.
	ContentRetention, LogRetention time.Duration
	// InboundHost is the MX target of domains that receive mail (D75).
	InboundHost string
	// InboundRetention is how long received mail is kept; 0 keeps (D75).
	InboundRetention time.Duration
}

// App runs the use cases.
type App struct {
	store     *store.Store
	queue     Enqueuer
	clock     carteiro.Clock
	dns       *dnscheck.Checker
	box       *secrets.Box
	cfg       Config
	logger    *slog.Logger
	transport mta.Transport
	hooks     *webhook.Client
	templates TemplateEngine
	rsa       RSASigners
	slots     *deliverySlots
	accepts   *acceptLoad
	reports   reportCounts // inbound messages by outcome (D65)
	purged    purgeCounters

	keysMu sync.Mutex
	keys   map[string]crypto.Signer // DKIM keys opened, by domain id

	keyUse keyUse // when each API key's last use was written (keyuse.go)
}

// Deps are the collaborators of App, injected so tests can move the clock and
// point DNS at an in-process server.
type Deps struct {
	Store  *store.Store
	Queue  Enqueuer
	Clock  carteiro.Clock
	DNS    *dnscheck.Checker
	Box    *secrets.Box
	Logger *slog.Logger
	// Transport hands messages to SMTP (relay or direct MX, D3).
	Transport mta.Transport
	// Hooks sends webhook deliveries.
	Hooks *webhook.Client
	// Templates renders customer templates.
	Templates TemplateEngine
	// RSASigners, when set, signs with RSA DKIM keys faster than
	// crypto/rsa (the system's libcrypto); nil keeps crypto/rsa.
	RSASigners RSASigners
}

// RSASigners gives an RSA key a signer that makes the same PKCS #1 v1.5
// signatures faster.
type RSASigners interface {
	RSASigner(*rsa.PrivateKey) (crypto.Signer, error)
}

// New builds an App.
func New(d Deps, cfg Config) *App {
	if cfg.DKIMSelector == "" {
		cfg.DKIMSelector = "cart1"
	}
	if cfg.RetryWindow == 0 {
		cfg.RetryWindow = 72 * time.Hour
	}
	if cfg.DeliverySlots == 0 {
		cfg.DeliverySlots = 50
	}
	// The load is measured in real time, not by the clock tests move.
	accepts := newAcceptLoad(time.Now)
	return &App{store: d.Store, queue: d.Queue, clock: d.Clock, dns: d.DNS, box: d.Box, cfg: cfg, logger: d.Logger,
		transport: d.Transport, hooks: d.Hooks, templates: d.Templates, rsa: d.RSASigners,
		slots: newDeliverySlots(cfg.DeliverySlots, accepts.busy, d.Clock.Now), accepts: accepts, keys: map[string]crypto.Signer{}}
}

// IsUnavailable reports whether err, wherever it was wrapped, means the
// database could not be reached: the transport answers such an error 503
// rather than 500 even when a use case passed it on unclassified (D11).
func IsUnavailable(err error) bool { return store.IsUnavailable(err) }

// storeErr turns store sentinels into domain errors; anything else is an
// internal error whose cause is logged, never shown.
func storeErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, store.ErrNotFound):
		return carteiro.NotFound()
	case store.IsUnavailable(err):
		return &carteiro.Error{Code: carteiro.CodeServiceUnavailable, Err: err}
	}
	var ce *carteiro.Error
	if errors.As(err, &ce) {
		return ce
	}
	return &carteiro.Error{Code: carteiro.CodeInternal, Err: err}
}
