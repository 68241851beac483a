package submission

import (
	"crypto/tls"
	"log/slog"
	"os"
	"time"

	"github.com/carteiro/carteiro/internal/ratelimit"
)

// Limits of D74.
const (
	// MaxMessageBytes caps a message: "over 40 MB" is refused with 552
	// 5.3.4 (decimal megabytes, as the contract reads "25 MB").
	MaxMessageBytes = 40_000_000
	// MaxRecipients caps one transaction's RCPTs; the next gets 452 4.5.3.
	MaxRecipients = 50
	// DefaultTimeout bounds each command and reply.
	DefaultTimeout = 5 * time.Minute
)

// Default per-IP limits (ratelimit rules, shared across processes when
// Redis is configured); CARTEIRO_SUBMISSION_RATE_LIMIT_IP and
// CARTEIRO_SUBMISSION_AUTH_FAILURES set others, with the same defaults in
// internal/config.
var (
	// DefaultConnectionRule limits new sessions (EHLO/HELO) per client IP.
	DefaultConnectionRule = ratelimit.Rule{Rate: 10, Period: time.Second, Burst: 30}
	// DefaultAuthFailureRule limits failed AUTH per client IP: 5 a minute,
	// like the dashboard's login.
	DefaultAuthFailureRule = ratelimit.Rule{Rate: 5, Period: time.Minute, Burst: 5}
)

// Options configure a Server.
type Options struct {
	// Addr (STARTTLS) and ImplicitTLSAddr (TLS from the first byte) are
	// the TCP addresses; "" leaves that listener off. At least one is set.
	Addr            string
	ImplicitTLSAddr string
	// TLS holds the certificate offered on both listeners.
	TLS *tls.Config
	// Hostname is the greeting's name; the machine's when empty.
	Hostname string
	// Limiter applies PerKey (the same "key:<id>" bucket as the HTTP API),
	// ConnectionRule and AuthFailureRule. Required.
	Limiter         ratelimit.Limiter
	PerKey          ratelimit.Rule
	ConnectionRule  ratelimit.Rule
	AuthFailureRule ratelimit.Rule
	// LoopbackIsRemote is a test hook: loopback clients are then treated
	// like remote ones (no AUTH without TLS), because tests can only
	// connect over loopback.
	LoopbackIsRemote bool
	// MaxMessageBytes overrides MaxMessageBytes (tests); 0 keeps it.
	MaxMessageBytes int64
	Timeout         time.Duration
	Logger          *slog.Logger
	Metrics         *Metrics
}

func (o Options) withDefaults() Options {
	if o.Hostname == "" {
		o.Hostname = "localhost"
		if name, err := os.Hostname(); err == nil && name != "" {
			o.Hostname = name
		}
	}
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = MaxMessageBytes
	}
	if o.ConnectionRule.Validate() != nil {
		o.ConnectionRule = DefaultConnectionRule
	}
	if o.AuthFailureRule.Validate() != nil {
		o.AuthFailureRule = DefaultAuthFailureRule
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Metrics == nil {
		o.Metrics = NewMetrics()
	}
	return o
}
