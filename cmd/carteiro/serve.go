package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/carteiro/carteiro/internal/config"
	"github.com/carteiro/carteiro/internal/logctx"
	"github.com/carteiro/carteiro/internal/mta"
	"github.com/carteiro/carteiro/internal/server"
)

// shutdownGrace bounds how long running requests and jobs may take to
// finish after SIGTERM or SIGINT.
const shutdownGrace = 30 * time.Second

func serve(ctx context.Context, args []string, stdout, stderr io.Writer, lookupEnv env) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	role := fs.String("role", server.RoleAll, "all, api or worker (D1)")
	if err := fs.Parse(args); err != nil {
		return usageError{err.Error()}
	}
	switch *role {
	case server.RoleAll, server.RoleAPI, server.RoleWorker:
	default:
		return usageError{fmt.Sprintf("--role: want all, api or worker, got %q", *role)}
	}
	cfg, err := config.Load(lookupEnv)
	if err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	logger := newLogger(cfg.LogFormat, stderr, slog.LevelInfo)

	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	// The service runs on its own context: a signal starts the graceful
	// shutdown below, it must not cancel running jobs mid-delivery.
	srv, err := server.Open(context.WithoutCancel(ctx), server.Options{Config: cfg, Role: *role, Logger: logger})
	if err != nil {
		return err
	}
	if err := srv.Bootstrap(ctx); err != nil {
		_ = srv.Shutdown(context.Background())
		return err
	}
	if srv.BootstrapOrg != nil {
		printBootstrap(stdout, srv)
	}
	served := make(<-chan struct{})
	if *role != server.RoleWorker {
		if err := srv.Listen(cfg.HTTPAddr); err != nil {
			_ = srv.Shutdown(context.Background())
			return err
		}
		served = srv.Served()
	}
	logger.Info("carteiro started", "version", version, "role", *role, "store", string(srv.Store.Dialect()))
	if cfg.Delivery == "direct" && *role != server.RoleAPI {
		// D68: receivers that check the HELO refuse such a name at RCPT.
		helo := server.HeloName(cfg)
		if problem := mta.HeloNameProblem(helo); problem != "" {
			logger.Warn("the EHLO name of direct delivery will be refused by many receivers; set CARTEIRO_HELO_NAME to this machine's fully qualified name (its PTR record)",
				"helo", helo, "problem", problem)
		}
	}

	select {
	case <-ctx.Done():
		logger.Info("shutting down", "grace", shutdownGrace)
	case <-served:
		logger.Error("http server stopped", "err", srv.ServeErr())
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	logger.Info("stopped")
	return srv.ServeErr()
}

// printBootstrap shows D4's first keys, the only time they are ever shown.
func printBootstrap(w io.Writer, srv *server.Server) {
	fmt.Fprintf(w, "\nFirst start: created organization %q (%s).\n", srv.BootstrapOrg.Name, srv.BootstrapOrg.ID)
	fmt.Fprintln(w, "These API keys are shown only now; keep them somewhere safe:")
	for _, k := range srv.BootstrapKeys {
		fmt.Fprintf(w, "  %-5s %s\n", k.Key.Mode, k.Secret)
	}
	if srv.BootstrapSetupURL != "" {
		// D73: the first owner of the dashboard signs up here.
		fmt.Fprintln(w, "Open the dashboard and choose the first owner's email and password (this link works once, for 24 hours):")
		fmt.Fprintf(w, "  %s\n", srv.BootstrapSetupURL)
	}
	fmt.Fprintln(w)
}

// newLogger writes text on a terminal and JSON elsewhere unless format says
// (CARTEIRO_LOG_FORMAT); every line logged with a request's context carries
// its request id.
func newLogger(format string, w io.Writer, level slog.Level) *slog.Logger {
	if format == "" {
		format = "json"
		if f, ok := w.(*os.File); ok {
			if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
				format = "text"
			}
		}
	}
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler = slog.NewJSONHandler(w, opts)
	if format == "text" {
		h = slog.NewTextHandler(w, opts)
	}
	return slog.New(logctx.Handler{Handler: h})
}

func migrate(ctx context.Context, args []string, stdout, stderr io.Writer, lookupEnv env) error {
	if len(args) > 0 {
		return usageError{"migrate takes no arguments"}
	}
	srv, err := openQuiet(ctx, stderr, lookupEnv)
	if err != nil {
		return err
	}
	defer srv.Shutdown(context.Background())
	fmt.Fprintln(stdout, "migrations applied")
	return nil
}

// openQuiet opens the store and use cases for a one-shot command: migrations
// run, no worker starts, only warnings are logged.
func openQuiet(ctx context.Context, stderr io.Writer, lookupEnv env) (*server.Server, error) {
	cfg, err := config.Load(lookupEnv)
	if err != nil {
		return nil, fmt.Errorf("settings: %w", err)
	}
	// A one-shot command serves nothing: the SMTP submission listener
	// (which the API role runs, D74) stays off.
	cfg.SubmissionAddr, cfg.SubmissionsAddr = "", ""
	return server.Open(ctx, server.Options{Config: cfg, Role: server.RoleAPI, Logger: newLogger(cfg.LogFormat, stderr, slog.LevelWarn)})
}
