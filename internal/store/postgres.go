package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
)

func openPostgres(ctx context.Context, url string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("store: parse PostgreSQL URL %s: %w", redactURL(url), err)
	}
	// D2: an acknowledged commit is on disk, whatever the server default.
	cfg.ConnConfig.RuntimeParams["synchronous_commit"] = "on"
	if !strings.Contains(url, "pool_max_conns") {
		// Workers, River and delivery gates each hold connections; pgx's
		// default (4 on this machine) would make them queue for one.
		cfg.MaxConns = 40
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store: connect PostgreSQL %s: %w", redactURL(url), classify(err))
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: connect PostgreSQL %s: %w", redactURL(url), classify(err))
	}
	s := &Store{dialect: Postgres, pool: pool, settled: newSettledDays()}
	s.Queries = &Queries{q: pgxRunner{pool}, dialect: Postgres, settled: s.settled}
	s.shared = newSharedCommitter(s, postgresSharing)
	s.keyReads = newReadBatcher(postgresReads, s.keysWithOrganizations)
	s.domainReads = newReadBatcher(postgresReads, s.verifiedDomains)
	return s, nil
}
