package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/carteiro/carteiro/bench/internal/apiclient"
	"github.com/carteiro/carteiro/internal/store"
)

// rowCounts is webhook_deliveries counted by outcome.
type rowCounts struct {
	Total int64
	// SuccessFirst counts rows that are success after exactly one attempt
	// answered 200: the durable record of what the receiver saw.
	SuccessFirst int64
	ByStatus     map[string]int64
}

// countDeliveries reads every delivery row through the service's store.
// The table is the store's own; this is the one place the benchmark reads
// it directly, because the API lists at most 200 deliveries per call.
func countDeliveries(ctx context.Context, st *store.Store) (rowCounts, error) {
	const q = `SELECT status, attempts, COALESCE(response_status, 0), COUNT(*) FROM webhook_deliveries GROUP BY status, attempts, response_status`
	c := rowCounts{ByStatus: map[string]int64{}}
	add := func(status string, attempts, code int, n int64) {
		c.Total += n
		c.ByStatus[status] += n
		if status == "success" && attempts == 1 && code == http.StatusOK {
			c.SuccessFirst += n
		}
	}
	if st.Dialect() == store.Postgres {
		rows, err := st.Pool().Query(ctx, q)
		if err != nil {
			return c, fmt.Errorf("count deliveries: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var status string
			var attempts, code int
			var n int64
			if err := rows.Scan(&status, &attempts, &code, &n); err != nil {
				return c, fmt.Errorf("count deliveries: %w", err)
			}
			add(status, attempts, code, n)
		}
		return c, rows.Err()
	}
	return c, countSQLite(ctx, st.SQLiteWriteDB(), q, add)
}

func countSQLite(ctx context.Context, db *sql.DB, q string, add func(string, int, int, int64)) error {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return fmt.Errorf("count deliveries: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var status string
		var attempts, code int
		var n int64
		if err := rows.Scan(&status, &attempts, &code, &n); err != nil {
			return fmt.Errorf("count deliveries: %w", err)
		}
		add(status, attempts, code, n)
	}
	return rows.Err()
}

// waitForRows polls until want rows are success after one attempt, or
// timeout: the row is committed just after the receiver answers.
func waitForRows(ctx context.Context, st *store.Store, want int64, timeout time.Duration) (rowCounts, error) {
	deadline := time.Now().Add(timeout)
	for {
		c, err := countDeliveries(ctx, st)
		if err != nil || c.SuccessFirst >= want || time.Now().After(deadline) {
			return c, err
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// apiCheck asks GET /webhooks/{id}/deliveries, as a customer would, for
// deliveries in each unfinished status (there must be none) and for a page
// of successes (each must show one attempt answered 200).
func apiCheck(ctx context.Context, api *apiclient.Client, key string, hookIDs []string) error {
	type delivery struct {
		Status         string `json:"status"`
		Attempts       int    `json:"attempts"`
		ResponseStatus *int   `json:"responseStatus"`
	}
	for _, id := range hookIDs {
		for _, status := range []string{"pending", "failed", "exhausted", "success"} {
			var out struct {
				Deliveries []delivery `json:"deliveries"`
			}
			path := "/v1/product/webhooks/" + id + "/deliveries?" + url.Values{"status": {status}, "limit": {"200"}}.Encode()
			if err := api.Call(ctx, http.MethodGet, path, key, nil, &out); err != nil {
				return err
			}
			if status != "success" {
				if len(out.Deliveries) > 0 {
					return fmt.Errorf("webhook %s lists %d+ %s deliveries", id, len(out.Deliveries), status)
				}
				continue
			}
			for _, d := range out.Deliveries {
				if d.Status != "success" || d.Attempts != 1 || d.ResponseStatus == nil || *d.ResponseStatus != http.StatusOK {
					return fmt.Errorf("webhook %s lists a success delivery as %+v", id, d)
				}
			}
			if len(out.Deliveries) == 0 {
				return fmt.Errorf("webhook %s lists no success delivery", id)
			}
		}
	}
	return nil
}
