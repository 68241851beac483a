package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/carteiro/carteiro/bench/internal/database"
)

// options are the command-line flags.
type options struct {
	store    string
	scenario string
	clients  int
	duration time.Duration
	warmup   time.Duration
	emails   int
	batch    int
	timeout  time.Duration
	binary   string
	pgParams string
	keep     bool
	role     string
	// destinations and destinationConnections shape the direct scenario.
	destinations           int
	destinationConnections int
	directTLS              bool
	// smtpPipelining makes the smtp scenario's client send RSET, MAIL, RCPT
	// and DATA in one write (RFC 2920), as Postfix does.
	smtpPipelining bool
	seed           string
	seedSize       int64
	old            int
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.store, "store", "sqlite", "sqlite or postgres (a fresh schema in "+database.DefaultPostgresURL()+")")
	fs.StringVar(&o.scenario, "scenario", "accept", "accept (single POST /emails), batch (POST /emails/batch of 100), e2e (send -emails and wait for delivery), direct (e2e through the relay, then with direct delivery to -destinations exchangers), smtp (5 KB messages over SMTP submission with STARTTLS, after an accept run on the same server for comparison), backup (accept alone, then during carteiro backup and during VACUUM INTO of the -seed database; SQLite) or purge (accept alone, then during the retention purge of -old emails)")
	fs.IntVar(&o.clients, "clients", 32, "concurrent clients")
	fs.DurationVar(&o.duration, "duration", 20*time.Second, "measured time of accept and batch, after the warm-up")
	fs.DurationVar(&o.warmup, "warmup", 3*time.Second, "warm-up of accept and batch, not measured")
	fs.IntVar(&o.emails, "emails", 50000, "emails the e2e scenario sends")
	fs.IntVar(&o.batch, "batch", maxBatch, "items per POST /emails/batch call (batch and e2e)")
	fs.DurationVar(&o.timeout, "timeout", 4*time.Minute, "e2e: longest wait from the first accept for every email to reach the sink")
	fs.StringVar(&o.binary, "binary", "", "carteiro binary to run (default: go build ./cmd/carteiro into the temporary directory)")
	fs.StringVar(&o.pgParams, "pg-params", "", "extra query parameters for the server's PostgreSQL URL, to try settings (e.g. pool_max_conns=32)")
	fs.StringVar(&o.role, "role", "all", "the server's --role: all (accepts and delivers), or api (accepts only, as an API node of a scaled-out deployment; accept and batch only)")
	fs.IntVar(&o.destinations, "destinations", 3, "direct: in-process exchangers, one per destination (the first receives for three domains)")
	fs.IntVar(&o.destinationConnections, "destination-connections", 10, "direct: CARTEIRO_DESTINATION_CONNECTIONS")
	fs.BoolVar(&o.smtpPipelining, "smtp-pipelining", true, "smtp: the client pipelines RSET, MAIL, RCPT and DATA (RFC 2920), as MTAs such as Postfix do; false waits for each reply")
	fs.BoolVar(&o.directTLS, "direct-tls", true, "direct: the exchangers offer STARTTLS (a self-signed certificate), as real MXes do")
	fs.StringVar(&o.seed, "seed", filepath.Join(os.TempDir(), "carteiro-bench-backup.db"), "backup: the SQLite database to copy for each run, made (and grown to -seed-mb) when missing, with SEED.json beside it")
	var seedMB int64
	fs.Int64Var(&seedMB, "seed-mb", 2048, "backup: size of a new seed database in MiB")
	fs.IntVar(&o.old, "old", 100_000, "purge: old emails to seed, half past the log retention, half past the content retention")
	fs.BoolVar(&o.keep, "keep", false, "keep the temporary directory (server log, SQLite file) and the PostgreSQL schema")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	o.seedSize = seedMB << 20
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	case o.store != "sqlite" && o.store != "postgres":
		return o, fmt.Errorf("-store: want sqlite or postgres, got %q", o.store)
	case o.scenario != "accept" && o.scenario != "batch" && o.scenario != "e2e" && o.scenario != "smtp" && o.scenario != "direct" && o.scenario != "backup" && o.scenario != "purge":
		return o, fmt.Errorf("-scenario: want accept, batch, e2e, direct, smtp, backup or purge, got %q", o.scenario)
	case o.destinations < 1 || o.destinations > 20 || o.destinationConnections < 1:
		return o, errors.New("-destinations: want 1 to 20; -destination-connections: want at least 1")
	case o.scenario == "backup" && o.store != "sqlite":
		return o, errors.New("-scenario backup: SQLite only (PostgreSQL is backed up with its own tools, D79)")
	case (o.scenario == "backup" || o.scenario == "purge") && o.role != "all":
		return o, errors.New("-role: backup and purge run the server as -role all")
	case o.seedSize < 1<<20 || o.old < 2:
		return o, errors.New("-seed-mb: want at least 1; -old: at least 2")
	case o.clients < 1 || o.clients > 1024:
		return o, errors.New("-clients: want 1 to 1024")
	case o.duration <= 0 || o.duration > time.Hour || o.warmup < 0 || o.warmup > 10*time.Minute:
		return o, errors.New("-duration: want up to 1h, -warmup up to 10m")
	case o.emails < 1 || o.emails > 10_000_000:
		return o, errors.New("-emails: want 1 to 10,000,000")
	case o.batch < 1 || o.batch > maxBatch:
		return o, fmt.Errorf("-batch: want 1 to %d", maxBatch)
	case o.pgParams != "" && o.store != "postgres":
		return o, errors.New("-pg-params: only with -store postgres")
	case o.role != "all" && o.role != "api":
		return o, fmt.Errorf("-role: want all or api, got %q", o.role)
	case o.role == "api" && (o.scenario == "e2e" || o.scenario == "direct"):
		return o, errors.New("-role api: e2e needs a server that delivers")
	case o.timeout <= 0 || o.timeout > 2*time.Hour:
		return o, errors.New("-timeout: want up to 2h")
	}
	return o, nil
}

// commandLine is the command that repeats this run, every setting spelled
// out.
func (o options) commandLine() string {
	cmd := fmt.Sprintf("go run ./bench/load -store %s -scenario %s -clients %d", o.store, o.scenario, o.clients)
	e2e := o.scenario == "e2e" || o.scenario == "direct"
	if (o.scenario == "batch" || e2e) && o.batch != maxBatch {
		cmd += fmt.Sprintf(" -batch %d", o.batch)
	}
	switch o.scenario {
	case "backup":
		cmd += fmt.Sprintf(" -seed %s -seed-mb %d", o.seed, o.seedSize>>20)
	case "purge":
		cmd += fmt.Sprintf(" -old %d", o.old)
	case "smtp":
		cmd += fmt.Sprintf(" -smtp-pipelining=%v", o.smtpPipelining)
	}
	if e2e {
		cmd += fmt.Sprintf(" -emails %d -timeout %s", o.emails, o.timeout)
	}
	if o.scenario == "direct" {
		cmd += fmt.Sprintf(" -destinations %d -destination-connections %d -direct-tls=%v", o.destinations, o.destinationConnections, o.directTLS)
	}
	if !e2e {
		cmd += fmt.Sprintf(" -duration %s -warmup %s", o.duration, o.warmup)
	}
	if o.role != "all" {
		cmd += " -role " + o.role
	}
	if o.pgParams != "" {
		cmd += " -pg-params " + o.pgParams
	}
	if o.binary != "" {
		cmd += " -binary " + o.binary
	}
	return cmd
}
