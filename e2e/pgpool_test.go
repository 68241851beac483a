package e2e

import (
	"context"
	"fmt"
	"net/http"
	neturl "net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/carteiro/carteiro/internal/testserver"
)

// TestPostgresTestServerPoolIsCapped counts, in pg_stat_activity, the
// connections a PostgreSQL test server opens while 48 clients list and
// send emails at once: never more than the harness's pool_max_conns and
// the connection River's listener keeps outside the pool, or
// parallel tests could exhaust PostgreSQL's 100 connections (the e2e
// package's -parallel rests on this bound; docs/architecture.md, Test
// suite). Without the cap the server's pool grows to 40.
func TestPostgresTestServerPoolIsCapped(t *testing.T) {
	t.Parallel()
	ts := testserver.StartServer(t, testserver.Postgres, nil)
	u, err := neturl.Parse(ts.Config.DatabaseURL)
	testserver.Must(t, err == nil, "database URL: %v", err)
	app := u.Query().Get("application_name")
	testserver.Must(t, app != "", "the test database URL names no application_name: %s", u.Redacted())

	ctx := context.Background()
	db, err := testserver.ConnectPostgres(ctx, ts.Config.DatabaseURL)
	testserver.Must(t, err == nil, "connect: %v", err)
	t.Cleanup(func() { _ = db.Close(context.Background()) })
	backends := func() (int, error) {
		var n int
		err := db.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`, app).Scan(&n)
		return n, err
	}

	// The load: 48 clients, each sending an email and listing emails
	// 5 times, all at once.
	const clients, rounds = 48, 5
	var failures atomic.Int64
	var firstFailure sync.Once
	var failure string
	call := func(method, path, body string, want int) {
		req, err := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
		if err == nil {
			req.Header.Set("Authorization", "Bearer "+ts.TestKey)
			req.Header.Set("Content-Type", "application/json")
			var resp *http.Response
			if resp, err = http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
				if resp.StatusCode != want {
					err = fmt.Errorf("status %d, want %d", resp.StatusCode, want)
				}
			}
		}
		if err != nil {
			failures.Add(1)
			firstFailure.Do(func() { failure = fmt.Sprintf("%s %s: %v", method, path, err) })
		}
	}
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for j := range rounds {
				body := fmt.Sprintf(`{"from":"a@x.example","to":"r%d-%d@example.org","subject":"s","text":"t"}`, i, j)
				call("POST", "/v1/product/emails", body, http.StatusAccepted)
				call("GET", "/v1/product/emails?limit=100", "", http.StatusOK)
			}
		}()
	}
	done := make(chan struct{})
	peak, counts := 0, 0
	var countErr error
	watched := make(chan struct{})
	go func() { // counts until the load ends, as fast as it can
		defer close(watched)
		for {
			n, err := backends()
			if err != nil {
				countErr = err
				return
			}
			peak, counts = max(peak, n), counts+1
			select {
			case <-done:
				return
			default:
			}
		}
	}()
	close(start)
	wg.Wait()
	close(done)
	<-watched
	testserver.Must(t, countErr == nil, "count backends: %v", countErr)
	// pgxpool keeps idle connections for 30 minutes: what the load opened
	// is still there to count once it has ended.
	n, err := backends()
	testserver.Must(t, err == nil, "count backends: %v", err)
	peak = max(peak, n)

	testserver.Must(t, failures.Load() == 0, "%d of %d calls failed under the capped pool; first: %s", failures.Load(), 2*clients*rounds, failure)
	testserver.Must(t, peak > 0, "no backend with application_name %q: the count does not see the server", app)
	testserver.Must(t, peak <= testserver.PostgresServerMaxConns,
		"the test server held %d PostgreSQL connections at once, want at most %d (pool_max_conns=%d, and River's listener)",
		peak, testserver.PostgresServerMaxConns, testserver.PostgresPoolMaxConns)
	t.Logf("peak: %d connections in %d counts (at most %d)", peak, counts, testserver.PostgresServerMaxConns)
}
