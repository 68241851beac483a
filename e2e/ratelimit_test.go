package e2e

import (
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
)

func rateHeaders(t *testing.T, r *testserver.Response) (limit, remaining, reset int) {
	t.Helper()
	var err error
	values := make([]int, 3)
	for i, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
		if values[i], err = strconv.Atoi(r.Header.Get(h)); err != nil {
			t.Fatalf("%s = %q on a %d response", h, r.Header.Get(h), r.Status)
		}
	}
	return values[0], values[1], values[2]
}

func TestRateLimitPerKey(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, map[string]string{"CARTEIRO_RATE_LIMIT_KEY": "1,5", "CARTEIRO_RATE_LIMIT_IP": "1000,2000"})
		// The headers are on every response, errors included (D13).
		for _, req := range []testserver.Request{
			{Method: "GET", Path: "/v1/product/nowhere"},
			{Method: "GET", Path: "/v1/product/domains"},
			{Method: "GET", Path: "/healthz"},
		} {
			r := ts.Do(t, req)
			rateHeaders(t, r)
		}
		// A burst of 5 passes, counting down; the 6th is 429 with Retry-After.
		for i := 0; i < 5; i++ {
			r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains", Key: ts.LiveKey})
			testserver.Expect(t, r, http.StatusOK, "")
			limit, remaining, _ := rateHeaders(t, r)
			testserver.Must(t, limit == 5 && remaining == 4-i, "request %d: limit %d remaining %d", i+1, limit, remaining)
		}
		r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains", Key: ts.LiveKey})
		testserver.Expect(t, r, http.StatusTooManyRequests, "RATE_LIMIT_EXCEEDED")
		retry, err := strconv.Atoi(r.Header.Get("Retry-After"))
		testserver.Must(t, err == nil && retry >= 1, "Retry-After = %q", r.Header.Get("Retry-After"))
		_, remaining, reset := rateHeaders(t, r)
		testserver.Must(t, remaining == 0 && reset >= 1, "429 headers remaining %d reset %d", remaining, reset)
		// Another key of the same organization has its own budget.
		r = ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains", Key: ts.TestKey})
		testserver.Expect(t, r, http.StatusOK, "")
	})
}

func TestRateLimitPerIP(t *testing.T) {
	t.Parallel()
	ts := testserver.StartServer(t, testserver.SQLite, map[string]string{"CARTEIRO_RATE_LIMIT_IP": "1,3", "CARTEIRO_RATE_LIMIT_KEY": "1000,2000"})
	for i := 0; i < 3; i++ {
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains", Key: ts.LiveKey}), 200, "")
	}
	// The per-IP scope refuses whatever the key, even without one.
	testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains", Key: ts.TestKey}), 429, "RATE_LIMIT_EXCEEDED")
	testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains"}), 429, "RATE_LIMIT_EXCEEDED")
}

func TestDomainDeletionLimit(t *testing.T) {
	t.Parallel()
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		ts := testserver.StartServer(t, b, nil)
		// 5 deletions per minute per organization (D13), whichever keys are used.
		for i := 0; i < 5; i++ {
			key := ts.LiveKey
			if i%2 == 1 {
				key = ts.TestKey
			}
			r := ts.Do(t, testserver.Request{Method: "DELETE", Path: "/v1/product/domains/0190aaaa-0000-7000-8000-00000000000" + strconv.Itoa(i), Key: key})
			testserver.Expect(t, r, http.StatusNotFound, "NOT_FOUND")
		}
		d := createDomain(t, ts, ts.LiveKey, "limited.example")
		r := ts.Do(t, testserver.Request{Method: "DELETE", Path: "/v1/product/domains/" + d.ID, Key: ts.LiveKey})
		testserver.Expect(t, r, http.StatusTooManyRequests, "RATE_LIMIT_EXCEEDED")
		retry, _ := strconv.Atoi(r.Header.Get("Retry-After"))
		testserver.Must(t, retry > 1 && retry <= 60, "Retry-After = %q", r.Header.Get("Retry-After"))
		// The refused deletion changed nothing; another organization is unaffected.
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains/" + d.ID, Key: ts.LiveKey}), 200, "")
		_, otherKey, _ := ts.NewOrg(t, "Other")
		od := createDomain(t, ts, otherKey, "limited.example")
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "DELETE", Path: "/v1/product/domains/" + od.ID, Key: otherKey}), 200, "")
		// After a minute the first organization may delete again.
		ts.Clock.Advance(61e9)
		testserver.Expect(t, ts.Do(t, testserver.Request{Method: "DELETE", Path: "/v1/product/domains/" + d.ID, Key: ts.LiveKey}), 200, "")
	})
}

// TestRateLimitSharedThroughRedis runs two processes' worth of servers on
// one PostgreSQL database and one Redis: a key's budget is shared (D13).
func TestRateLimitSharedThroughRedis(t *testing.T) {
	t.Parallel()
	testserver.RequireService(t, "Redis at 127.0.0.1:6379", pingRedis())
	env := map[string]string{"CARTEIRO_REDIS_URL": "redis://127.0.0.1:6379/0", "CARTEIRO_RATE_LIMIT_KEY": "1,4"}
	first := testserver.StartServer(t, testserver.Postgres, env)
	env["CARTEIRO_DATABASE_URL"] = first.Config.DatabaseURL
	second := testserver.StartServer(t, testserver.Postgres, env)
	for i, ts := range []*testserver.TestServer{first, second, first, second} {
		r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains", Key: first.LiveKey})
		testserver.Expect(t, r, http.StatusOK, "")
		_, remaining, _ := rateHeaders(t, r)
		testserver.Must(t, remaining == 3-i, "request %d: remaining %d, want %d", i+1, remaining, 3-i)
	}
	testserver.Expect(t, second.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains", Key: first.LiveKey}), 429, "RATE_LIMIT_EXCEEDED")
	testserver.Expect(t, first.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains", Key: first.LiveKey}), 429, "RATE_LIMIT_EXCEEDED")
}

func pingRedis() error {
	c, err := net.DialTimeout("tcp", "127.0.0.1:6379", time.Second)
	if err != nil {
		return err
	}
	return c.Close()
}

// TestRedisOutageStillLimits: with the shared limiter unreachable, this
// process limits alone and every response still carries the headers.
func TestRedisOutageStillLimits(t *testing.T) {
	t.Parallel()
	ts := testserver.StartServer(t, testserver.SQLite, map[string]string{"CARTEIRO_REDIS_URL": "redis://127.0.0.1:1/0", "CARTEIRO_RATE_LIMIT_KEY": "1,2"})
	for i := 0; i < 2; i++ {
		r := ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains", Key: ts.LiveKey})
		testserver.Expect(t, r, http.StatusOK, "")
		rateHeaders(t, r)
	}
	testserver.Expect(t, ts.Do(t, testserver.Request{Method: "GET", Path: "/v1/product/domains", Key: ts.LiveKey}), 429, "RATE_LIMIT_EXCEEDED")
}
