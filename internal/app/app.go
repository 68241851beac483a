// Package app holds Carteiro's use cases. It speaks in domain types and
// carteiro.Error codes; it knows neither HTTP nor SQL dialects. Every write
// that triggers later work enqueues that work in the same transaction.
package app

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/dnscheck"
	"github.com/carteiro/carteiro/internal/secrets"
	"github.com/carteiro/carteiro/internal/store"
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
}

// Enqueuer inserts jobs inside a store transaction, so a job exists exactly
// when the rows it acts on were committed.
type Enqueuer interface {
	EnqueueTx(ctx context.Context, tx *store.Tx, job Job, opts JobOpts) error
}

// Config holds the settings the use cases need.
type Config struct {
	// BounceHost is the target of every domain's return-path CNAME (D31).
	BounceHost string
	// DKIMSelector is the selector of new DKIM keys (D31: cart1).
	DKIMSelector string
}

// App runs the use cases.
type App struct {
	store  *store.Store
	queue  Enqueuer
	clock  carteiro.Clock
	dns    *dnscheck.Checker
	box    *secrets.Box
	cfg    Config
	logger *slog.Logger
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
}

// New builds an App.
func New(d Deps, cfg Config) *App {
	if cfg.DKIMSelector == "" {
		cfg.DKIMSelector = "cart1"
	}
	return &App{store: d.Store, queue: d.Queue, clock: d.Clock, dns: d.DNS, box: d.Box, cfg: cfg, logger: d.Logger}
}

// storeErr turns store sentinels into domain errors; anything else is an
// internal error whose cause is logged, never shown.
func storeErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, store.ErrNotFound):
		return carteiro.NotFound()
	case errors.Is(err, store.ErrUnavailable):
		return &carteiro.Error{Code: carteiro.CodeServiceUnavailable, Err: err}
	}
	var ce *carteiro.Error
	if errors.As(err, &ce) {
		return ce
	}
	return &carteiro.Error{Code: carteiro.CodeInternal, Err: err}
}
