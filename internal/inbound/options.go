package inbound

import (
	"crypto/tls"
	"log/slog"
	"os"
	"time"

	"github.com/carteiro/carteiro"
)

// Defaults applied by Listen to the zero fields of Options.
const (
	DefaultMaxMessageBytes = 10 << 20 // 10 MB: a DSN carrying a full original message fits
	DefaultMaxRecipients   = 50
	DefaultRatePerIP       = 5.0 // messages per second
	DefaultBurstPerIP      = 20
	DefaultConnsPerIP      = 20
	DefaultTimeout         = 60 * time.Second
)

// Options configure a Server. Zero fields take the defaults above.
type Options struct {
	// Addr is the TCP address to listen on, e.g. ":2525" or "127.0.0.1:0".
	Addr string
	// Hostname is the name in the 220 greeting and the EHLO reply; the
	// machine's host name when empty.
	Hostname string
	// MaxMessageBytes caps a message; a bigger one is refused with 552
	// 5.3.4 and nothing is delivered.
	MaxMessageBytes int64
	// MaxRecipients caps the accepted recipients of one transaction; the
	// ones after it get 452 4.5.3, so the client sends them again later.
	MaxRecipients int
	// RatePerIP and BurstPerIP limit transactions (MAIL commands) per
	// client address; over the limit MAIL gets 421 4.7.0.
	RatePerIP  float64
	BurstPerIP int
	// ConnsPerIP caps the open connections of one client address (an
	// IPv6 /64); the ones over it get a 421 greeting and are closed.
	ConnsPerIP int
	// TLS, when set, is offered with STARTTLS (D75); nil offers none.
	TLS *tls.Config
	// ReadTimeout bounds the wait for each command and, as go-smtp applies
	// it, the whole DATA transfer that follows the DATA command;
	// WriteTimeout bounds each reply.
	ReadTimeout, WriteTimeout time.Duration
	// Logger receives one line per accepted message and per refusal;
	// nothing is logged when nil.
	Logger *slog.Logger
	// Clock drives the rate limiter; the system clock when nil.
	Clock carteiro.Clock
}

// withDefaults returns o with every zero (or negative) field replaced by
// its default.
func (o Options) withDefaults() Options {
	if o.Hostname == "" {
		o.Hostname = defaultHostname()
	}
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if o.MaxRecipients <= 0 {
		o.MaxRecipients = DefaultMaxRecipients
	}
	if o.RatePerIP <= 0 {
		o.RatePerIP = DefaultRatePerIP
	}
	if o.BurstPerIP <= 0 {
		o.BurstPerIP = DefaultBurstPerIP
	}
	if o.ConnsPerIP <= 0 {
		o.ConnsPerIP = DefaultConnsPerIP
	}
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = DefaultTimeout
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultTimeout
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Clock == nil {
		o.Clock = carteiro.SystemClock{}
	}
	return o
}

// defaultHostname is the machine's name, or "localhost" when the system
// cannot tell; the greeting needs some name and any is harmless.
func defaultHostname() string {
	if name, err := os.Hostname(); err == nil && name != "" {
		return name
	}
	return "localhost"
}
