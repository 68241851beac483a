package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/carteiro/carteiro"
)

// PurgePlan is the plan the database chose for one listing of the
// retention purge (D77), one line per step: EXPLAIN QUERY PLAN on SQLite,
// EXPLAIN on PostgreSQL. A listing must walk an index from its position and
// stop at its cutoff, so that a batch costs what the batch holds and not
// what the table holds (issue 31).
type PurgePlan struct {
	Name, Plan string
}

// ExplainPurge returns the plans of RecordsDue and ContentDue for one
// organization and mode, from the start of its emails.
func (s *Store) ExplainPurge(ctx context.Context, orgID string, mode carteiro.Mode, logCutoff, contentCutoff time.Time, limit int) ([]PurgePlan, error) {
	records, recordsArgs := recordsDueQuery(orgID, mode, logCutoff, Position{}, limit)
	content, contentArgs := s.contentDueQuery(orgID, mode, contentCutoff, Position{}, limit)
	var out []PurgePlan
	for _, q := range []struct {
		name, query string
		args        []any
	}{{"RecordsDue", records, recordsArgs}, {"ContentDue", content, contentArgs}} {
		plan, err := s.explain(ctx, q.query, q.args)
		if err != nil {
			return nil, fmt.Errorf("store: explain %s: %w", q.name, classify(err))
		}
		out = append(out, PurgePlan{Name: q.name, Plan: plan})
	}
	return out, nil
}

// explain is the database's plan for query, one line per step (in a
// transaction too, where a test may have changed the planner's settings).
func (q *Queries) explain(ctx context.Context, query string, args []any) (string, error) {
	prefix := "EXPLAIN QUERY PLAN "
	if q.dialect == Postgres {
		prefix = "EXPLAIN "
	}
	rs, err := q.query(ctx, prefix+query, args...)
	if err != nil {
		return "", err
	}
	defer rs.Close()
	var lines []string
	for rs.Next() {
		var line string
		if q.dialect == Postgres {
			err = rs.Scan(&line)
		} else {
			var id, parent, unused int
			err = rs.Scan(&id, &parent, &unused, &line)
		}
		if err != nil {
			return "", err
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n"), rs.Err()
}
