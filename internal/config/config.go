// Package config reads Carteiro's settings from CARTEIRO_* environment
// variables (D5, D56). Every setting has a default good for a local start.
package config

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/carteiro/carteiro/internal/health"
	"github.com/carteiro/carteiro/internal/mta"
	"github.com/carteiro/carteiro/internal/ratelimit"
)

// Config is every setting of D56, plus the few of this project's own
// (documented in docs/configuration.md).
type Config struct {
	HTTPAddr    string
	DatabaseURL string
	PublicURL   string
	Delivery    string // direct or relay
	RelayURL    string
	DirectPort  int
	DNSServer   string
	InboundAddr string
	BounceHost  string
	// SubmissionAddr (STARTTLS) and SubmissionsAddr (implicit TLS) are
	// the SMTP submission listeners of D74; "" disables either.
	SubmissionAddr  string
	SubmissionsAddr string
	// TLSCertFile and TLSKeyFile are the submission listeners' certificate
	// (D74); both empty means a self-signed one kept sealed in the database.
	TLSCertFile string
	TLSKeyFile  string
	// HeloName is the EHLO name of outgoing SMTP (CARTEIRO_HELO_NAME, D68);
	// "" means mta.DefaultHeloName.
	HeloName              string
	SystemFrom            string
	SecretKey             string
	RedisURL              string
	RateLimitKey          ratelimit.Rule
	RateLimitIP           ratelimit.Rule
	Warmup                string // on, off or auto
	WebhookAllowPrivate   bool
	WebhookCAFile         string
	LogFormat             string // text or json; "" picks by terminal
	RelayAcceptIsDelivery bool
	MetricsToken          string
	DKIMSelector          string
	// DKIMLibcrypto is on, off or auto: whether RSA DKIM signatures come
	// from the system's libcrypto.so.3 (auto: when it loads).
	DKIMLibcrypto string
	// SMTPTimeout bounds each SMTP command's reply (the final reply after
	// DATA gets twice as long).
	SMTPTimeout time.Duration
	// DeliveryWorkers bounds the delivery attempts in flight in one worker
	// process, and the jobs of its default queue running at once.
	DeliveryWorkers int
	// RelayPoolSize bounds the connections kept open to the relay.
	RelayPoolSize int
	// DestinationConnections bounds the connections open at once to one
	// destination in direct delivery (D80).
	DestinationConnections int
	// ShapingFile is CARTEIRO_SHAPING_FILE, and Shaping what it says: per
	// destination limits replacing the defaults (D80).
	ShapingFile string
	Shaping     map[string]mta.Shaping
	// RenderWorkers is how many React Email render worker processes run at
	// once (D61).
	RenderWorkers int
	// Blocklists are the DNSBLs of D33 (CARTEIRO_DNSBL_LISTS).
	Blocklists []health.List
	// SendingIPs are the IPs mail leaves from (CARTEIRO_SENDING_IPS), asked
	// about on the IP blocklists.
	SendingIPs []string
	// Tracking turns open and click tracking on for HTML email (D53).
	Tracking bool
	// SenderTokenInResponse returns a live sender's verification token in
	// POST /senders' answer as well as in the email (D59): for installs
	// whose organizations all trust each other, and tests.
	SenderTokenInResponse bool
	// JobTimeout bounds one background job (a delivery attempt); jobs of a
	// process that died are retried after twice this.
	JobTimeout time.Duration
	// MaxInflightBytes bounds the request bodies handled at once (D60,
	// CARTEIRO_MAX_INFLIGHT_BYTES).
	MaxInflightBytes int64
	// ContentRetention is how long an email's html, text, attachments and
	// custom headers are kept after its last event; 0 keeps them (D77).
	ContentRetention time.Duration
	// LogRetention is how long an email's record, recipients, tags and
	// timeline are kept after its last event; 0 keeps them (D77).
	LogRetention time.Duration
	// InboundHost is the MX target of domains that receive mail (D75,
	// CARTEIRO_INBOUND_HOST); the bounce host by default.
	InboundHost string
	// InboundMaxSize caps a received message (CARTEIRO_INBOUND_MAX_SIZE).
	InboundMaxSize int64
	// InboundRetention is how long received messages are kept; 0 keeps
	// them (D75, CARTEIRO_INBOUND_RETENTION).
	InboundRetention time.Duration
	// InboundRateIP limits transactions per client address on the inbound
	// listener (CARTEIRO_INBOUND_RATE_LIMIT_IP).
	InboundRateIP ratelimit.Rule
	// InboundConnectionsPerIP caps one client address's open connections
	// to the inbound listener (CARTEIRO_INBOUND_CONNECTIONS_PER_IP).
	InboundConnectionsPerIP int
}

// Load reads the settings through lookupEnv (os.LookupEnv in production, a
// map in tests) and validates them.
func Load(lookupEnv func(string) (string, bool)) (Config, error) {
	getenv := func(name string) string { v, _ := lookupEnv(name); return v }
	get := func(name, def string) string {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			return v
		}
		return def
	}
	c := Config{
		HTTPAddr:        get("CARTEIRO_HTTP_ADDR", ":8080"),
		DatabaseURL:     get("CARTEIRO_DATABASE_URL", "sqlite:./carteiro.db"),
		PublicURL:       strings.TrimRight(get("CARTEIRO_PUBLIC_URL", "http://localhost:8080"), "/"),
		Delivery:        get("CARTEIRO_DELIVERY", "direct"),
		RelayURL:        get("CARTEIRO_RELAY_URL", ""),
		DNSServer:       get("CARTEIRO_DNS_SERVER", ""),
		InboundAddr:     getenv("CARTEIRO_INBOUND_ADDR"),
		BounceHost:      get("CARTEIRO_BOUNCE_HOST", "bounces.carteiro.localhost"),
		SubmissionAddr:  getenv("CARTEIRO_SUBMISSION_ADDR"),
		SubmissionsAddr: get("CARTEIRO_SUBMISSIONS_ADDR", ""),
		TLSCertFile:     get("CARTEIRO_TLS_CERT_FILE", ""),
		TLSKeyFile:      get("CARTEIRO_TLS_KEY_FILE", ""),
		HeloName:        get("CARTEIRO_HELO_NAME", ""),
		SystemFrom:      get("CARTEIRO_SYSTEM_FROM", "Carteiro <no-reply@carteiro.localhost>"),
		SecretKey:       get("CARTEIRO_SECRET_KEY", ""),
		RedisURL:        get("CARTEIRO_REDIS_URL", ""),
		Warmup:          get("CARTEIRO_WARMUP", "auto"),
		WebhookCAFile:   get("CARTEIRO_WEBHOOK_CA_FILE", ""),
		LogFormat:       get("CARTEIRO_LOG_FORMAT", ""),
		MetricsToken:    get("CARTEIRO_METRICS_TOKEN", ""),
		DKIMSelector:    get("CARTEIRO_DKIM_SELECTOR", "cart1"),
		DKIMLibcrypto:   get("CARTEIRO_DKIM_LIBCRYPTO", "auto"),
	}
	// An empty CARTEIRO_INBOUND_ADDR disables the listener (D56), so unset
	// and empty differ here.
	if _, set := lookupEnv("CARTEIRO_INBOUND_ADDR"); !set {
		c.InboundAddr = ":2525"
	}
	c.InboundHost = normalizeHost(get("CARTEIRO_INBOUND_HOST", c.BounceHost))
	// Likewise an empty CARTEIRO_SUBMISSION_ADDR turns submission off (D74).
	if _, set := lookupEnv("CARTEIRO_SUBMISSION_ADDR"); !set {
		c.SubmissionAddr = ":2587"
	}
	c.SubmissionAddr = strings.TrimSpace(c.SubmissionAddr)
	var errs []error
	var err error
	if c.DirectPort, err = strconv.Atoi(get("CARTEIRO_DIRECT_PORT", "25")); err != nil || c.DirectPort < 1 || c.DirectPort > 65535 {
		errs = append(errs, fmt.Errorf("CARTEIRO_DIRECT_PORT: want a port number, got %q", getenv("CARTEIRO_DIRECT_PORT")))
	}
	if c.SMTPTimeout, err = time.ParseDuration(get("CARTEIRO_SMTP_TIMEOUT", "5m")); err != nil || c.SMTPTimeout <= 0 {
		errs = append(errs, fmt.Errorf("CARTEIRO_SMTP_TIMEOUT: want a duration such as 30s or 5m, got %q", getenv("CARTEIRO_SMTP_TIMEOUT")))
	}
	if c.JobTimeout, err = time.ParseDuration(get("CARTEIRO_JOB_TIMEOUT", "30s")); err != nil || c.JobTimeout <= 0 {
		errs = append(errs, fmt.Errorf("CARTEIRO_JOB_TIMEOUT: want a duration such as 30s, got %q", getenv("CARTEIRO_JOB_TIMEOUT")))
	}
	if c.ContentRetention, err = parseRetention(get("CARTEIRO_CONTENT_RETENTION", "30d")); err != nil {
		errs = append(errs, fmt.Errorf("CARTEIRO_CONTENT_RETENTION: %w", err))
	}
	if c.LogRetention, err = parseRetention(get("CARTEIRO_LOG_RETENTION", "400d")); err != nil {
		errs = append(errs, fmt.Errorf("CARTEIRO_LOG_RETENTION: %w", err))
	}
	if c.InboundMaxSize, err = parseBytes(get("CARTEIRO_INBOUND_MAX_SIZE", "25000000")); err != nil {
		errs = append(errs, fmt.Errorf("CARTEIRO_INBOUND_MAX_SIZE: %w", err))
	}
	if c.InboundRetention, err = parseRetention(get("CARTEIRO_INBOUND_RETENTION", "30d")); err != nil {
		errs = append(errs, fmt.Errorf("CARTEIRO_INBOUND_RETENTION: %w", err))
	}
	if c.InboundRateIP, err = ratelimit.ParseRule(get("CARTEIRO_INBOUND_RATE_LIMIT_IP", "5,20")); err != nil {
		errs = append(errs, fmt.Errorf("CARTEIRO_INBOUND_RATE_LIMIT_IP: %w", err))
	}
	if c.InboundConnectionsPerIP, err = strconv.Atoi(get("CARTEIRO_INBOUND_CONNECTIONS_PER_IP", "20")); err != nil || c.InboundConnectionsPerIP < 1 {
		errs = append(errs, fmt.Errorf("CARTEIRO_INBOUND_CONNECTIONS_PER_IP: want a positive number, got %q", getenv("CARTEIRO_INBOUND_CONNECTIONS_PER_IP")))
	}
	if c.DeliveryWorkers, err = strconv.Atoi(get("CARTEIRO_DELIVERY_WORKERS", "50")); err != nil || c.DeliveryWorkers < 1 {
		errs = append(errs, fmt.Errorf("CARTEIRO_DELIVERY_WORKERS: want a positive number, got %q", getenv("CARTEIRO_DELIVERY_WORKERS")))
	}
	if c.RenderWorkers, err = strconv.Atoi(get("CARTEIRO_RENDER_WORKERS", "2")); err != nil || c.RenderWorkers < 1 {
		errs = append(errs, fmt.Errorf("CARTEIRO_RENDER_WORKERS: want a positive number, got %q", getenv("CARTEIRO_RENDER_WORKERS")))
	}
	if c.RelayPoolSize, err = strconv.Atoi(get("CARTEIRO_RELAY_POOL_SIZE", "16")); err != nil || c.RelayPoolSize < 1 {
		errs = append(errs, fmt.Errorf("CARTEIRO_RELAY_POOL_SIZE: want a positive number, got %q", getenv("CARTEIRO_RELAY_POOL_SIZE")))
	}
	if c.DestinationConnections, err = strconv.Atoi(get("CARTEIRO_DESTINATION_CONNECTIONS", "10")); err != nil || c.DestinationConnections < 1 {
		errs = append(errs, fmt.Errorf("CARTEIRO_DESTINATION_CONNECTIONS: want a positive number, got %q", getenv("CARTEIRO_DESTINATION_CONNECTIONS")))
	}
	if c.ShapingFile = get("CARTEIRO_SHAPING_FILE", ""); c.ShapingFile != "" {
		if c.Shaping, err = loadShaping(c.ShapingFile); err != nil {
			errs = append(errs, fmt.Errorf("CARTEIRO_SHAPING_FILE: %w", err))
		}
	}
	if c.MaxInflightBytes, err = parseBytes(get("CARTEIRO_MAX_INFLIGHT_BYTES", "256MiB")); err != nil {
		errs = append(errs, fmt.Errorf("CARTEIRO_MAX_INFLIGHT_BYTES: %w", err))
	}
	if c.RateLimitKey, err = ratelimit.ParseRule(get("CARTEIRO_RATE_LIMIT_KEY", "50,100")); err != nil {
		errs = append(errs, fmt.Errorf("CARTEIRO_RATE_LIMIT_KEY: %w", err))
	}
	if c.RateLimitIP, err = ratelimit.ParseRule(get("CARTEIRO_RATE_LIMIT_IP", "100,200")); err != nil {
		errs = append(errs, fmt.Errorf("CARTEIRO_RATE_LIMIT_IP: %w", err))
	}
	if c.WebhookAllowPrivate, err = parseBool(get("CARTEIRO_WEBHOOK_ALLOW_PRIVATE", "false")); err != nil {
		errs = append(errs, fmt.Errorf("CARTEIRO_WEBHOOK_ALLOW_PRIVATE: %w", err))
	}
	if c.Blocklists, err = health.ParseLists(get("CARTEIRO_DNSBL_LISTS", "")); err != nil {
		errs = append(errs, fmt.Errorf("CARTEIRO_DNSBL_LISTS: %w", err))
	}
	for _, ip := range strings.Split(get("CARTEIRO_SENDING_IPS", ""), ",") {
		if ip = strings.TrimSpace(ip); ip != "" {
			c.SendingIPs = append(c.SendingIPs, ip)
		}
	}
	if c.Tracking, err = parseBool(get("CARTEIRO_TRACKING", "true")); err != nil {
		errs = append(errs, fmt.Errorf("CARTEIRO_TRACKING: %w", err))
	}
	if c.RelayAcceptIsDelivery, err = parseBool(get("CARTEIRO_RELAY_ACCEPT_IS_DELIVERY", "false")); err != nil {
		errs = append(errs, fmt.Errorf("CARTEIRO_RELAY_ACCEPT_IS_DELIVERY: %w", err))
	}
	if c.SenderTokenInResponse, err = parseBool(get("CARTEIRO_SENDER_TOKEN_IN_RESPONSE", "false")); err != nil {
		errs = append(errs, fmt.Errorf("CARTEIRO_SENDER_TOKEN_IN_RESPONSE: %w", err))
	}
	errs = append(errs, c.validate()...)
	return c, errors.Join(errs...)
}

// loadShaping reads and checks the shaping file at startup, so a mistake in
// it stops the server rather than leaving a destination unshaped.
func loadShaping(path string) (map[string]mta.Shaping, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return mta.ParseShaping(data)
}

func (c *Config) validate() []error {
	var errs []error
	switch c.Delivery {
	case "direct":
	case "relay":
		if c.RelayURL == "" {
			errs = append(errs, errors.New("CARTEIRO_RELAY_URL is required when CARTEIRO_DELIVERY=relay"))
		} else if u, err := url.Parse(c.RelayURL); err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps" && u.Scheme != "smtp+plain") || u.Host == "" {
			errs = append(errs, errors.New("CARTEIRO_RELAY_URL: want smtp://, smtps:// or smtp+plain://host:port"))
		}
	default:
		errs = append(errs, fmt.Errorf("CARTEIRO_DELIVERY: want direct or relay, got %q", c.Delivery))
	}
	switch c.DKIMLibcrypto {
	case "on", "off", "auto":
	default:
		errs = append(errs, fmt.Errorf("CARTEIRO_DKIM_LIBCRYPTO: want on, off or auto, got %q", c.DKIMLibcrypto))
	}
	switch c.Warmup {
	case "on", "off", "auto":
	default:
		errs = append(errs, fmt.Errorf("CARTEIRO_WARMUP: want on, off or auto, got %q", c.Warmup))
	}
	switch c.LogFormat {
	case "", "text", "json":
	default:
		errs = append(errs, fmt.Errorf("CARTEIRO_LOG_FORMAT: want text or json, got %q", c.LogFormat))
	}
	if strings.ContainsAny(c.HeloName, " \t\r\n") {
		errs = append(errs, fmt.Errorf("CARTEIRO_HELO_NAME: want a host name, got %q", c.HeloName))
	}
	if (c.TLSCertFile == "") != (c.TLSKeyFile == "") {
		errs = append(errs, errors.New("CARTEIRO_TLS_CERT_FILE and CARTEIRO_TLS_KEY_FILE: set both or neither"))
	}
	if c.SecretKey != "" && len(c.SecretKey) < 32 {
		errs = append(errs, errors.New("CARTEIRO_SECRET_KEY: want at least 32 characters"))
	}
	if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("CARTEIRO_PUBLIC_URL: want an http(s) URL, got %q", c.PublicURL))
	}
	return errs
}

// WarmupEnabled resolves auto: on for direct delivery, off for relay (D34).
func (c *Config) WarmupEnabled() bool {
	switch c.Warmup {
	case "on":
		return true
	case "off":
		return false
	}
	return c.Delivery == "direct"
}

// byteUnits are the suffixes parseBytes reads, binary multiples.
var byteUnits = []struct {
	suffix string
	shift  uint
}{{"KiB", 10}, {"MiB", 20}, {"GiB", 30}}

// parseBytes reads a positive size: a whole number of bytes, optionally
// followed by KiB, MiB or GiB.
func parseBytes(s string) (int64, error) {
	digits, shift := s, uint(0)
	for _, u := range byteUnits {
		if d, ok := strings.CutSuffix(s, u.suffix); ok {
			digits, shift = strings.TrimSpace(d), u.shift
			break
		}
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)>>shift {
		return 0, fmt.Errorf("want a positive number of bytes, optionally with KiB, MiB or GiB, got %q", s)
	}
	return n << shift, nil
}

// parseRetention reads a retention period: a number of days ("30d"), a Go
// duration ("720h") or 0, which keeps data forever (D77).
func parseRetention(s string) (time.Duration, error) {
	bad := fmt.Errorf("want a number of days such as 30d, a duration such as 720h, or 0 to keep forever, got %q", s)
	if s == "0" {
		return 0, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 || n > 100*365 {
			return 0, bad
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, bad
	}
	return d, nil
}

// normalizeHost lowercases a host name and drops a trailing dot.
func normalizeHost(s string) string {
	return strings.TrimSuffix(strings.ToLower(s), ".")
}

func parseBool(s string) (bool, error) {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return false, fmt.Errorf("want true or false, got %q", s)
	}
	return b, nil
}
