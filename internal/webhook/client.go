package webhook

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/carteiro/carteiro"
)

// Client defaults and limits.
const (
	// DefaultTimeout bounds one whole attempt (D49: a 2xx within 5 s).
	DefaultTimeout = 5 * time.Second
	// DefaultUserAgent names the service to receivers.
	DefaultUserAgent = "Carteiro-Webhooks/1"

	// Idle connections kept for reuse. Keeping up to 256 per receiver lets
	// thousands of deliveries per second to one receiver run over warm
	// connections instead of a TLS handshake each.
	maxIdleConns        = 1024
	maxIdleConnsPerHost = 256
	idleConnTimeout     = 90 * time.Second
	// maxResponseHeaderBytes bounds what a hostile receiver can make us
	// buffer before the body.
	maxResponseHeaderBytes = 64 << 10
)

// ClientOptions configures NewClient. The zero value is production's
// default: public addresses only, system roots, 5 s, system DNS.
type ClientOptions struct {
	// AllowPrivate lets the client connect to non-public addresses
	// (CARTEIRO_WEBHOOK_ALLOW_PRIVATE, D51): tests and private deployments.
	AllowPrivate bool
	// CAFile names a PEM file whose certificates are trusted in addition to
	// the system roots (CARTEIRO_WEBHOOK_CA_FILE, D51).
	CAFile string
	// Timeout bounds one attempt: connect, TLS, response headers and body.
	// Zero or less means DefaultTimeout.
	Timeout time.Duration
	// Resolver resolves receiver host names; nil means net.DefaultResolver.
	Resolver Resolver
	// UserAgent is sent with every request; "" means DefaultUserAgent.
	UserAgent string
	// Clock stamps requests that carry no Timestamp and interprets
	// Retry-After dates; nil means carteiro.SystemClock.
	Clock carteiro.Clock
}

// Client sends webhook attempts. It holds one connection pool for all
// receivers and is safe for concurrent use; build one per process.
type Client struct {
	http      *http.Client
	transport *http.Transport
	timeout   time.Duration
	userAgent string
	clock     carteiro.Clock
}

// NewClient builds a client from opts. It fails when the CA file cannot be
// read or holds no certificate, or when the system roots cannot be loaded.
func NewClient(opts ClientOptions) (*Client, error) {
	roots, err := trustedRoots(opts.CAFile)
	if err != nil {
		return nil, err
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	userAgent := opts.UserAgent
	if userAgent == "" {
		userAgent = DefaultUserAgent
	}
	clock := opts.Clock
	if clock == nil {
		clock = carteiro.SystemClock{}
	}

	transport := &http.Transport{
		// Never a proxy from the environment: it would connect on our
		// behalf and bypass the address check.
		Proxy:                  nil,
		DialContext:            newDialer(opts.Resolver, opts.AllowPrivate).DialContext,
		TLSClientConfig:        &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    timeout,
		ResponseHeaderTimeout:  timeout,
		MaxIdleConns:           maxIdleConns,
		MaxIdleConnsPerHost:    maxIdleConnsPerHost,
		IdleConnTimeout:        idleConnTimeout,
		MaxResponseHeaderBytes: maxResponseHeaderBytes,
		// Without Accept-Encoding receivers answer uncompressed, so the
		// stored response body is readable text and no gzip bomb is
		// inflated.
		DisableCompression: true,
		// A custom DialContext turns HTTP/2 off unless asked; receivers
		// that speak it multiplex many deliveries on one connection.
		ForceAttemptHTTP2: true,
	}
	return &Client{
		http: &http.Client{
			Transport: transport,
			// D49: a redirect is a failure, never followed; following one
			// would also reach a host that CheckURL never saw.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		transport: transport,
		timeout:   timeout,
		userAgent: userAgent,
		clock:     clock,
	}, nil
}

// Close drops the idle connections. Sends in flight finish normally.
func (c *Client) Close() { c.transport.CloseIdleConnections() }

// trustedRoots is the system pool plus the certificates of caFile (D51).
func trustedRoots(caFile string) (*x509.CertPool, error) {
	pool, err := x509.SystemCertPool()
	if err != nil {
		return nil, fmt.Errorf("webhook: load system roots: %w", err)
	}
	if caFile == "" {
		return pool, nil
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("webhook: read CA file: %w", err)
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, errors.New("webhook: CA file " + caFile + " holds no PEM certificate")
	}
	return pool, nil
}
