// Command purgeplan seeds a database with many recent emails and a few
// past retention, through SQL, then shows the plan of each retention purge
// query (D77) and times its batches: issue 31's question whether a batch
// costs O(batch) or O(table).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
)

const day = 24 * time.Hour

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "purgeplan:", err)
		os.Exit(1)
	}
}

func run() error {
	kind := flag.String("store", "sqlite", "sqlite or postgres")
	path := flag.String("sqlite", "/tmp/purgeplan/carteiro.db", "SQLite file")
	pgURL := flag.String("postgres", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable", "PostgreSQL database (a schema purgeplan is made in it)")
	recent := flag.Int("recent", 1_000_000, "recent emails to seed")
	old := flag.Int("old", 20_000, "emails past retention to seed (half past the log retention, half past the content retention)")
	seed := flag.Bool("seed", true, "seed a new database (false: reuse the last one)")
	batch := flag.Int("batch", 500, "batch size")
	batches := flag.Int("batches", 5, "batches of each query to time")
	flag.Parse()
	ctx := context.Background()

	url := "sqlite:" + *path
	if *kind == "postgres" {
		url = *pgURL + "&search_path=purgeplan"
		if *seed {
			conn, err := pgx.Connect(ctx, *pgURL)
			if err != nil {
				return err
			}
			if _, err := conn.Exec(ctx, `DROP SCHEMA IF EXISTS purgeplan CASCADE; CREATE SCHEMA purgeplan`); err != nil {
				return err
			}
			conn.Close(ctx)
		}
	} else if *seed {
		_ = os.MkdirAll(strings.TrimSuffix(*path, "/carteiro.db"), 0o755)
		for _, s := range []string{"", "-wal", "-shm"} {
			_ = os.Remove(*path + s)
		}
	}
	st, err := store.Open(ctx, url)
	if err != nil {
		return err
	}
	defer st.Close()
	if _, err := st.Migrate(ctx); err != nil {
		return err
	}
	now := time.Now()
	orgID := "org-purgeplan"
	if *seed {
		if err := st.CreateOrganization(ctx, &carteiro.Organization{ID: orgID, Name: "Probe", CreatedAt: now}); err != nil {
			return err
		}
		began := time.Now()
		if err := seedEmails(ctx, st, orgID, now, *recent, *old); err != nil {
			return err
		}
		fmt.Printf("seeded %d recent and %d old emails in %s\n", *recent, *old, time.Since(began).Round(time.Second))
	}
	return probe(ctx, st, orgID, now, *batch, *batches)
}

// seedEmails inserts n emails per part, each with a recipient and two
// events (sent, delivered): old/2 at now-450 days (past the default log
// retention), old/2 at now-60 days (past the content retention), and
// recent spread over the last day.
func seedEmails(ctx context.Context, st *store.Store, orgID string, now time.Time, recent, old int) error {
	type part struct {
		prefix string
		n      int
		from   time.Time
		step   time.Duration
	}
	parts := []part{
		{"a", old / 2, now.Add(-450 * day), time.Second},
		{"b", old / 2, now.Add(-60 * day), time.Second},
		{"c", recent, now.Add(-day), day / time.Duration(max(recent, 1))},
	}
	for _, p := range parts {
		from, step := p.from.UnixMicro(), p.step.Microseconds()
		series := `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d) `
		if st.Dialect() == store.Postgres {
			series = `WITH n(i) AS (SELECT generate_series(1, %d)::bigint) `
		}
		series = fmt.Sprintf(series, p.n)
		id := fmt.Sprintf(`'%s-' || LPAD(CAST(i AS TEXT), 9, '0')`, p.prefix)
		if st.Dialect() == store.SQLite {
			id = fmt.Sprintf(`printf('%s-%%09d', i)`, p.prefix)
		}
		at := fmt.Sprintf(`(%d + i * %d)`, from, step)
		stmts := []string{
			series + `INSERT INTO emails (id, org_id, mode, sandbox, from_addr, from_email, to_addrs, subject, html, text_body, search_recipients,
				status, attempts, message_id, created_at, sent_at, delivered_at, open_count, click_count)
				SELECT ` + id + `, '` + orgID + `', 'live', false, 'News <news@shop.example>', 'news@shop.example', '["kim@x.example"]', 'Order shipped',
				'<p>Your order has shipped. Track it with the link in your account; thank you for shopping with us.</p>',
				'Your order has shipped. Track it with the link in your account; thank you for shopping with us.', 'kim@x.example',
				'delivered', 1, ` + id + ` || '@shop.example', ` + at + `, ` + at + ` + 1000000, ` + at + ` + 2000000, 0, 0 FROM n`,
			series + `INSERT INTO email_recipients (email_id, position, address, status, updated_at)
				SELECT ` + id + `, 0, 'kim@x.example', 'delivered', ` + at + ` + 2000000 FROM n`,
			series + `INSERT INTO email_events (id, email_id, type, created_at)
				SELECT ` + id + ` || '-s', ` + id + `, 'email.sent', ` + at + ` + 1000000 FROM n`,
			series + `INSERT INTO email_events (id, email_id, type, created_at)
				SELECT ` + id + ` || '-d', ` + id + `, 'email.delivered', ` + at + ` + 2000000 FROM n`,
		}
		for _, s := range stmts {
			if err := exec(ctx, st, s); err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
		}
	}
	return exec(ctx, st, "ANALYZE")
}

func exec(ctx context.Context, st *store.Store, query string, args ...any) error {
	if st.Dialect() == store.Postgres {
		_, err := st.Pool().Exec(ctx, query, args...)
		return err
	}
	_, err := st.SQLiteWriteDB().ExecContext(ctx, query, args...)
	return err
}

// probe prints each purge query's plan and the time of its batches.
func probe(ctx context.Context, st *store.Store, orgID string, now time.Time, size, batches int) error {
	mode := carteiro.ModeLive
	logCutoff, contentCutoff := now.Add(-400*day), now.Add(-30*day)
	plans, err := st.ExplainPurge(ctx, orgID, mode, logCutoff, contentCutoff, size)
	if err != nil {
		return err
	}
	for _, p := range plans {
		fmt.Printf("== plan of %s\n%s\n", p.Name, p.Plan)
	}
	// RecordsDue, then DeleteEmails, batch after batch, then the last
	// (empty) listing that has to find nothing more before the cutoff.
	timeWalk := func(name string, cutoff time.Time, list func(store.Position) ([]store.DueEmail, error), act func([]string) (int64, error)) error {
		var pos store.Position
		for i := 0; i <= batches; i++ {
			began := time.Now()
			due, err := list(pos)
			if err != nil {
				return err
			}
			listed := time.Since(began)
			ids := make([]string, len(due))
			for j, d := range due {
				ids[j] = d.ID
			}
			began = time.Now()
			n, err := act(ids)
			if err != nil {
				return err
			}
			fmt.Printf("%s batch %d: listed %d in %s, acted on %d in %s\n", name, i, len(due), listed.Round(10*time.Microsecond), n, time.Since(began).Round(10*time.Microsecond))
			if len(due) == 0 {
				return nil
			}
			pos = due[len(due)-1].Position
		}
		// Jump to just before the cutoff: the listing finds nothing, and
		// should know it without reading the emails after the cutoff.
		began := time.Now()
		due, err := list(store.Position{CreatedAt: cutoff.Add(-time.Microsecond)})
		fmt.Printf("%s after the last due email: listed %d in %s (%v)\n", name, len(due), time.Since(began).Round(10*time.Microsecond), err)
		return nil
	}
	if err := timeWalk("records", logCutoff, func(p store.Position) ([]store.DueEmail, error) {
		return st.RecordsDue(ctx, orgID, mode, logCutoff, p, size)
	}, func(ids []string) (int64, error) { return st.DeleteEmails(ctx, ids) }); err != nil {
		return err
	}
	return timeWalk("content", contentCutoff, func(p store.Position) ([]store.DueEmail, error) {
		return st.ContentDue(ctx, orgID, mode, contentCutoff, p, size)
	}, func(ids []string) (int64, error) { return st.EmptyContent(ctx, ids, now) })
}
