package store

import (
	"context"
	"fmt"
)

// JobCounts reports River jobs not yet finished, by state, for the queue
// depth metric. It reads River's table directly: a count is all it needs.
func (q *Queries) JobCounts(ctx context.Context) (map[string]int, error) {
	rs, err := q.query(ctx, `SELECT state, COUNT(*) FROM river_job WHERE state IN ('available', 'scheduled', 'retryable', 'running', 'pending') GROUP BY state`)
	if err != nil {
		return nil, fmt.Errorf("store: job counts: %w", classify(err))
	}
	defer rs.Close()
	out := map[string]int{"available": 0, "scheduled": 0, "retryable": 0, "running": 0}
	for rs.Next() {
		var state string
		var n int
		if err := rs.Scan(&state, &n); err != nil {
			return nil, fmt.Errorf("store: job counts: %w", classify(err))
		}
		out[state] = n
	}
	return out, rs.Err()
}
