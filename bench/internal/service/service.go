// Package service starts Carteiro inside the benchmark's process, the way
// cmd/carteiro serve starts it, for benchmarks that drive it over loopback
// HTTP and read its store directly.
package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/bench/internal/database"
	"github.com/carteiro/carteiro/internal/config"
	"github.com/carteiro/carteiro/internal/logctx"
	"github.com/carteiro/carteiro/internal/server"
)

// Service is Carteiro started in this process the way cmd/carteiro serve
// starts it (config.Load, server.Open, Bootstrap, Listen), logging JSON at
// info level to a file as production does to its output.
type Service struct {
	*server.Server
	URL     string
	LiveKey string
	TestKey string
	LogPath string
	log     *os.File

	stopOnce sync.Once
}

// Start starts Carteiro on dbURL. extra adds or overrides settings;
// poll, when not zero, shortens the queue's poll interval.
func Start(ctx context.Context, dbURL, logPath string, extra map[string]string, poll time.Duration) (*Service, error) {
	noDNS, err := deadLoopbackAddr()
	if err != nil {
		return nil, err
	}
	settings := map[string]string{
		"CARTEIRO_HTTP_ADDR":       "127.0.0.1:0",
		"CARTEIRO_DATABASE_URL":    dbURL,
		"CARTEIRO_INBOUND_ADDR":    "",
		"CARTEIRO_SUBMISSION_ADDR": "",
		"CARTEIRO_SECRET_KEY":      carteiro.RandomBase62(48),
		"CARTEIRO_LOG_FORMAT":      "json",
		"CARTEIRO_DNS_SERVER":      noDNS,
		"CARTEIRO_RATE_LIMIT_KEY":  "1000000,1000000",
		"CARTEIRO_RATE_LIMIT_IP":   "1000000,1000000",
	}
	for k, v := range extra {
		settings[k] = v
	}
	cfg, err := config.Load(func(k string) (string, bool) { v, ok := settings[k]; return v, ok })
	if err != nil {
		return nil, fmt.Errorf("settings: %w", err)
	}
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, fmt.Errorf("log file: %w", err)
	}
	logger := slog.New(logctx.Handler{Handler: slog.NewJSONHandler(logFile, &slog.HandlerOptions{Level: slog.LevelInfo})})
	srv, err := server.Open(ctx, server.Options{Config: cfg, Logger: logger, QueuePollInterval: poll})
	if err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start carteiro: %w", err)
	}
	s := &Service{Server: srv, LogPath: logPath, log: logFile}
	if err := srv.Bootstrap(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("bootstrap: %w", err), s.Stop())
	}
	if err := srv.Listen(cfg.HTTPAddr); err != nil {
		return nil, errors.Join(err, s.Stop())
	}
	s.URL = "http://" + srv.Addr()
	for _, k := range srv.BootstrapKeys {
		if k.Key.Mode == carteiro.ModeLive {
			s.LiveKey = k.Secret
		} else {
			s.TestKey = k.Secret
		}
	}
	if s.LiveKey == "" || s.TestKey == "" {
		return nil, errors.Join(errors.New("bootstrap made no live and test keys"), s.Stop())
	}
	return s, nil
}

// Stop lets running requests and jobs finish, then closes the database
// and the log. Only the first call stops; later ones return nil, so a
// deferred Stop can guard a run that also stops the service itself.
func (s *Service) Stop() error {
	var err error
	s.stopOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		err = errors.Join(s.Shutdown(ctx), s.log.Close())
	})
	return err
}

// Finish stops the service at the end of a run and returns, for the
// report, what makes its figures doubtful: a service that did not stop
// cleanly, a run interrupted (ctx cancelled) before the end.
func (s *Service) Finish(ctx context.Context) []string {
	var notes []string
	if err := s.Stop(); err != nil {
		notes = append(notes, fmt.Sprintf("The service did not stop cleanly: %v.", err))
	}
	if ctx.Err() != nil {
		notes = append(notes, "Interrupted before the end: these figures cover only part of the run.")
	}
	return notes
}

// deadLoopbackAddr is a loopback UDP port nobody listens on. It is the
// service's DNS server, so that nothing the service might look up leaves
// this machine: a query there fails at once (port unreachable). The
// benchmark itself needs no DNS: the receiver's URL is an IP literal.
func deadLoopbackAddr() (string, error) {
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("pick a DNS port: %w", err)
	}
	addr := c.LocalAddr().String()
	return addr, c.Close()
}

// Fresh is a service on a database of its own, made for one run.
type Fresh struct {
	*Service
	db   *database.Database
	keep bool
}

// StartFresh makes a fresh database for store (a SQLite file in dir, or a
// new schema on the PostgreSQL server at pgURL) and starts the service on
// it, logging to dir/carteiro.log; extra and poll are Start's. Close stops
// it and drops the database unless keep.
func StartFresh(ctx context.Context, dir, store, pgURL string, keep bool, extra map[string]string, poll time.Duration) (*Fresh, error) {
	db, err := database.New(ctx, store, dir, pgURL, "")
	if err != nil {
		return nil, err
	}
	f := &Fresh{db: db, keep: keep}
	if f.Service, err = Start(ctx, db.URL, filepath.Join(dir, "carteiro.log"), extra, poll); err != nil {
		return nil, errors.Join(err, f.drop())
	}
	return f, nil
}

// DatabaseURL is the database the service runs on.
func (f *Fresh) DatabaseURL() string { return f.db.URL }

// Close stops the service (when not already stopped) and drops the
// database unless it is kept.
func (f *Fresh) Close() error { return errors.Join(f.Stop(), f.drop()) }

func (f *Fresh) drop() error {
	if f.keep {
		return nil
	}
	return f.db.Drop()
}
