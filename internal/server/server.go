// Package server is Carteiro's composition root: it opens the store, runs
// the migrations, builds the use cases, the queue and the HTTP server, and
// stops them in order. cmd/carteiro and the end-to-end tests both start the
// service through it, so tests run exactly what production runs, with only
// the clock (and settings) injected.
package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"github.com/carteiro/carteiro/internal/render"
	"github.com/carteiro/carteiro/internal/templating"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/docs"
	"github.com/carteiro/carteiro/internal/app"
	"github.com/carteiro/carteiro/internal/config"
	"github.com/carteiro/carteiro/internal/dnscheck"
	"github.com/carteiro/carteiro/internal/httpapi"
	"github.com/carteiro/carteiro/internal/i18n"
	"github.com/carteiro/carteiro/internal/inbound"
	"github.com/carteiro/carteiro/internal/mta"
	"github.com/carteiro/carteiro/internal/queue"
	"github.com/carteiro/carteiro/internal/ratelimit"
	"github.com/carteiro/carteiro/internal/secrets"
	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/submission"
	"github.com/carteiro/carteiro/internal/webhook"
)

// Roles of D1.
const (
	RoleAll    = "all"
	RoleAPI    = "api"
	RoleWorker = "worker"
)

// Options start a server.
type Options struct {
	Config config.Config
	Role   string
	Clock  carteiro.Clock
	Logger *slog.Logger
	// QueuePollInterval and SweepInterval shorten waits in tests.
	QueuePollInterval time.Duration
	SweepInterval     time.Duration
	// SubmissionLoopbackIsRemote makes the submission listener treat
	// loopback clients as remote ones (tests of D74's TLS-before-AUTH).
	SubmissionLoopbackIsRemote bool
}

// Server is a running Carteiro.
type Server struct {
	Store *store.Store
	App   *app.App
	Queue *queue.Queue
	HTTP  *httpapi.Server
	// BootstrapKeys holds the keys made on the first start (D4), else nil.
	BootstrapKeys []*app.NewKey
	BootstrapOrg  *carteiro.Organization
	// BootstrapSetupURL is the first start's one-time link where the first
	// owner signs up (D73), else "".
	BootstrapSetupURL string

	logger    *slog.Logger
	publicURL string
	listener  net.Listener
	http      *http.Server
	redis     *redis.Client
	transport mta.Transport
	templates *templating.Engine
	inbound   *inbound.Server
	submit    *submission.Server
	served    chan struct{}
	serveErr  error
	// releaseStore gives up the SQLite serving lock (claimStore).
	releaseStore func()
}

// Open builds everything but does not listen yet: the CLI commands other
// than serve use it for the store and use cases alone.
func Open(ctx context.Context, o Options) (*Server, error) {
	if o.Clock == nil {
		o.Clock = carteiro.SystemClock{}
	}
	if o.Role == "" {
		o.Role = RoleAll
	}
	st, err := store.Open(ctx, o.Config.DatabaseURL)
	if err != nil {
		return nil, err
	}
	s := &Server{Store: st, logger: o.Logger, publicURL: o.Config.PublicURL}
	if err := s.build(ctx, o); err != nil {
		_ = st.Close()
		if s.releaseStore != nil {
			s.releaseStore()
		}
		return nil, err
	}
	return s, nil
}

func (s *Server) build(ctx context.Context, o Options) error {
	if _, err := s.Store.Migrate(ctx); err != nil {
		return err
	}
	s.Queue = queue.New(s.Store, o.Logger)
	if err := s.Queue.Migrate(ctx); err != nil {
		return err
	}
	secret := o.Config.SecretKey
	if secret == "" {
		// D56: generated and kept in the database on first start.
		var err error
		if secret, err = s.Store.SettingOrInit(ctx, "secret_key", secrets.GenerateSecret()); err != nil {
			return err
		}
	}
	box, err := secrets.NewBox(secret)
	if err != nil {
		return fmt.Errorf("secret key: %w", err)
	}
	resolver, err := dnscheck.NewResolver(o.Config.DNSServer, 5*time.Second)
	if err != nil {
		return fmt.Errorf("dns resolver: %w", err)
	}
	systemFrom, err := carteiro.ParseAddress("CARTEIRO_SYSTEM_FROM", o.Config.SystemFrom)
	if err != nil {
		return fmt.Errorf("CARTEIRO_SYSTEM_FROM: %w", err)
	}
	if s.transport, err = newTransport(o.Config, resolver, o.Logger, o.Clock); err != nil {
		return err
	}
	hooks, err := webhook.NewClient(webhook.ClientOptions{AllowPrivate: o.Config.WebhookAllowPrivate, CAFile: o.Config.WebhookCAFile,
		Resolver: resolver})
	if err != nil {
		return fmt.Errorf("webhook client: %w", err)
	}
	templates, err := templating.New(templating.Options{Limits: render.DefaultLimits(), RenderWorkers: o.Config.RenderWorkers,
		Logger: o.Logger})
	if err != nil {
		return fmt.Errorf("templates: %w", err)
	}
	s.templates = templates
	rsaSigners, err := openLibcrypto(o.Config.DKIMLibcrypto, o.Logger)
	if err != nil {
		return err
	}
	s.App = app.New(app.Deps{
		Store: s.Store, Queue: s.Queue, Clock: o.Clock, DNS: &dnscheck.Checker{Resolver: resolver}, Box: box, Logger: o.Logger,
		Transport: s.transport, Hooks: hooks, Templates: templates, RSASigners: rsaSigners,
	}, app.Config{
		Tracking: o.Config.Tracking, WebhookAllowPrivate: o.Config.WebhookAllowPrivate,
		Blocklists: o.Config.Blocklists, SendingIPs: o.Config.SendingIPs,
		BounceHost: o.Config.BounceHost, DKIMSelector: o.Config.DKIMSelector, Warmup: o.Config.WarmupEnabled(),
		AcceptIsDelivery: o.Config.Delivery == "direct" || o.Config.RelayAcceptIsDelivery,
		SystemFrom:       systemFrom, PublicURL: o.Config.PublicURL, DeliverySlots: o.Config.DeliveryWorkers,
		RecordGrace:           recordGrace(o.Config.JobTimeout),
		SenderTokenInResponse: o.Config.SenderTokenInResponse,
		ContentRetention:      o.Config.ContentRetention, LogRetention: o.Config.LogRetention,
		InboundHost: o.Config.InboundHost, InboundRetention: o.Config.InboundRetention,
	})

	catalog, err := i18n.New()
	if err != nil {
		return fmt.Errorf("i18n: %w", err)
	}
	var limiter ratelimit.Limiter = ratelimit.NewMemory(o.Clock)
	if o.Config.RedisURL != "" {
		ropts, err := redis.ParseURL(o.Config.RedisURL)
		if err != nil {
			return fmt.Errorf("CARTEIRO_REDIS_URL: %w", err)
		}
		// go-redis has one logger per process, not per client: the last
		// server opened names it (one per process outside tests).
		redis.SetLogger(redisLogger{o.Logger.With("component", "redis")})
		s.redis = redis.NewClient(ropts)
		limiter = &ratelimit.Fallback{Primary: ratelimit.NewRedis(s.redis), Secondary: limiter, Clock: o.Clock, Cooldown: 5 * time.Second,
			OnFailure: func(err error) {
				o.Logger.Warn("shared rate limiter unavailable; limiting in this process for 5 s", "err", err)
			}}
	}
	openapi, err := docs.OpenAPIJSON()
	if err != nil {
		return fmt.Errorf("openapi: %w", err)
	}
	metrics := httpapi.NewMetrics(s.Store.JobCounts)
	metrics.CountInboundReports(s.App.InboundReports)
	limits := httpapi.DefaultLimits()
	limits.PerKey, limits.PerIP = o.Config.RateLimitKey, o.Config.RateLimitIP
	metrics.ReportPurges(s.App.PurgedTotals)
	if d, ok := s.transport.(*mta.Direct); ok {
		metrics.Register(d.Collector()) // D80: per-destination metrics
	}
	s.HTTP = httpapi.New(httpapi.Deps{
		App: s.App, Catalog: catalog, Limiter: limiter, Logger: o.Logger, Clock: o.Clock,
		Metrics: metrics, Ready: s.Store.Ping, OpenAPI: openapi,
		Limits: limits, MetricsToken: o.Config.MetricsToken, MaxInflightBytes: o.Config.MaxInflightBytes,
		SecureCookies: strings.HasPrefix(o.Config.PublicURL, "https://"),
	})
	if o.Config.InboundAddr != "" && o.Role != RoleAPI {
		// D55: bounces and complaints come back here (D1: workers' role),
		// and D75's received mail.
		if err := s.listenInbound(ctx, o, box); err != nil {
			return err
		}
	}
	qopts := queue.Options{Work: o.Role != RoleAPI, Workers: o.Config.DeliveryWorkers, PollInterval: o.QueuePollInterval, SweepInterval: o.SweepInterval,
		JobTimeout: o.Config.JobTimeout}
	if _, real := o.Clock.(carteiro.SystemClock); !real {
		qopts.Clock = o.Clock
	}
	if qopts.Work {
		if err := s.claimStore(ctx); err != nil {
			return err
		}
	}
	if err := s.Queue.Start(ctx, s.App, qopts); err != nil {
		return err
	}
	if o.Role != RoleWorker && (o.Config.SubmissionAddr != "" || o.Config.SubmissionsAddr != "") {
		// D74: submission accepts mail as the API does, so API processes
		// (and "all") run it, never worker-only ones.
		if err := s.listenSubmission(ctx, o, box, limiter, limits.PerKey, metrics); err != nil {
			return err
		}
	}
	return nil
}

// recordGrace is how long an attempt may keep trying to record its outcome
// past its job's deadline while the database is away: a quarter of the job
// timeout, so that the longest job (a delivery group, 1.5 times the timeout)
// has finished recording a quarter of the timeout before River's rescue
// (queue.RescueAfter, twice the timeout) could take it for a dead one.
func recordGrace(jobTimeout time.Duration) time.Duration {
	if jobTimeout <= 0 {
		return 0 // the app's default
	}
	return jobTimeout / 4
}

// claimStore makes this the only process working on a SQLite file, and
// then hands back to the queue the jobs a process that died left running
// (a delivery or a broadcast step cut short by a crash), which would
// otherwise wait twice CARTEIRO_JOB_TIMEOUT for River's rescue. On
// PostgreSQL, where several workers share the database (D1), River's
// rescue stays the only way back.
func (s *Server) claimStore(ctx context.Context) error {
	release, locked, err := s.Store.LockServing()
	if err != nil {
		return err
	}
	s.releaseStore = release
	if !locked {
		return nil
	}
	n, err := s.Store.RequeueOrphanedJobs(ctx)
	if err != nil {
		return err
	}
	if n > 0 {
		s.logger.Warn("jobs left running by a process that stopped are queued again", "jobs", n)
	}
	return nil
}

// Bootstrap runs D4's first-start bootstrap.
func (s *Server) Bootstrap(ctx context.Context) error {
	org, keys, err := s.App.Bootstrap(ctx)
	if err != nil {
		return err
	}
	s.BootstrapOrg, s.BootstrapKeys = org, keys
	if org == nil {
		return nil
	}
	token, err := s.App.NewSetupToken(ctx, org.ID)
	if err != nil {
		return fmt.Errorf("setup link: %w", err)
	}
	s.BootstrapSetupURL = s.publicURL + "/dashboard/setup/" + token
	return nil
}

// Listen starts the HTTP listener at addr (":0" picks a free port) and
// serves in the background.
func (s *Server) Listen(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", addr, err)
	}
	s.listener = ln
	s.http = &http.Server{
		Handler:           s.HTTP,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       2 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.logger.Handler(), slog.LevelWarn),
	}
	s.served = make(chan struct{})
	go func() {
		if err := s.http.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			s.serveErr = err
		}
		close(s.served)
	}()
	s.logger.Info("listening", "addr", ln.Addr().String())
	return nil
}

// listenSubmission starts the SMTP submission listeners of D74.
func (s *Server) listenSubmission(ctx context.Context, o Options, box *secrets.Box, limiter ratelimit.Limiter,
	perKey ratelimit.Rule, metrics *httpapi.Metrics) error {
	hostname := submissionHostname(o.Config)
	cert, err := submission.Certificate(ctx, o.Config.TLSCertFile, o.Config.TLSKeyFile, hostname, s.Store, box)
	if err != nil {
		return fmt.Errorf("SMTP submission certificate: %w", err)
	}
	sm := submission.NewMetrics()
	metrics.Register(sm.Collectors()...)
	s.submit, err = submission.Listen(submission.Options{
		Addr: o.Config.SubmissionAddr, ImplicitTLSAddr: o.Config.SubmissionsAddr, Hostname: hostname,
		TLS:     &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		Limiter: limiter, PerKey: perKey, LoopbackIsRemote: o.SubmissionLoopbackIsRemote,
		Logger: o.Logger, Metrics: sm,
	}, s.App)
	if err != nil {
		return fmt.Errorf("SMTP submission listener: %w", err)
	}
	return nil
}

// listenInbound starts the inbound SMTP listener (D55, D75) with STARTTLS
// on the submission listeners' certificate: sending MTAs encrypt
// opportunistically and do not check it.
func (s *Server) listenInbound(ctx context.Context, o Options, box *secrets.Box) error {
	cert, err := submission.Certificate(ctx, o.Config.TLSCertFile, o.Config.TLSKeyFile, submissionHostname(o.Config), s.Store, box)
	if err != nil {
		return fmt.Errorf("inbound SMTP certificate: %w", err)
	}
	rule := o.Config.InboundRateIP
	s.inbound, err = inbound.Listen(inbound.Options{Addr: o.Config.InboundAddr, Hostname: o.Config.InboundHost,
		MaxMessageBytes: o.Config.InboundMaxSize, ConnsPerIP: o.Config.InboundConnectionsPerIP,
		RatePerIP: float64(rule.Rate) / rule.Period.Seconds(), BurstPerIP: rule.Burst,
		TLS:    &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		Logger: o.Logger, Clock: o.Clock}, s.App)
	if err != nil {
		return fmt.Errorf("inbound SMTP listener: %w", err)
	}
	return nil
}

// submissionHostname names the submission greeting and the self-signed
// certificate: the public URL's host.
func submissionHostname(c config.Config) string {
	if u, err := url.Parse(c.PublicURL); err == nil && u.Hostname() != "" {
		return u.Hostname()
	}
	return "localhost"
}

// SubmissionAddr is the STARTTLS submission listener's address, "" when off.
func (s *Server) SubmissionAddr() string {
	if s.submit == nil {
		return ""
	}
	return s.submit.Addr()
}

// SubmissionsAddr is the implicit TLS submission listener's address, "" when off.
func (s *Server) SubmissionsAddr() string {
	if s.submit == nil {
		return ""
	}
	return s.submit.ImplicitTLSAddr()
}

// InboundAddr is the inbound SMTP listener's address, or "" when off.
func (s *Server) InboundAddr() string {
	if s.inbound == nil {
		return ""
	}
	return s.inbound.Addr()
}

// Addr is the address the HTTP server listens on.
func (s *Server) Addr() string { return s.listener.Addr().String() }

// Served is closed when the HTTP server stops; ServeErr then tells why
// (nil after Shutdown).
func (s *Server) Served() <-chan struct{} { return s.served }

// ServeErr is the error that stopped the HTTP server, if any.
func (s *Server) ServeErr() error { return s.serveErr }

// Shutdown stops taking requests, lets running ones and running jobs
// finish within ctx, then closes the database.
func (s *Server) Shutdown(ctx context.Context) error {
	var errs []error
	if s.http != nil {
		if err := s.http.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("http shutdown: %w", err))
		}
		<-s.served
	}
	if s.submit != nil {
		if err := s.submit.Close(); err != nil {
			errs = append(errs, fmt.Errorf("submission close: %w", err))
		}
	}
	if s.inbound != nil {
		if err := s.inbound.Close(); err != nil {
			errs = append(errs, fmt.Errorf("inbound close: %w", err))
		}
	}
	if s.Queue != nil {
		if err := s.Queue.Stop(ctx); err != nil {
			errs = append(errs, fmt.Errorf("queue stop: %w", err))
		}
	}
	if s.redis != nil {
		_ = s.redis.Close()
	}
	if c, ok := s.transport.(io.Closer); ok {
		_ = c.Close() // pooled relay connections
	}
	if s.templates != nil {
		_ = s.templates.Close() // the render worker processes
	}
	if err := s.Store.Close(); err != nil {
		errs = append(errs, fmt.Errorf("store close: %w", err))
	}
	if s.releaseStore != nil {
		s.releaseStore()
	}
	return errors.Join(errs...)
}
