package ratelimit

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
)

const testRedisAddr = "127.0.0.1:6379"

// newRedisClient connects to the local Redis, failing under CI=true and
// skipping elsewhere when it is not running.
func newRedisClient(t *testing.T) *redis.Client {
	t.Helper()
	client := redis.NewClient(&redis.Options{Addr: testRedisAddr, DialTimeout: time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := client.Ping(ctx).Err(); err != nil {
		_ = client.Close()
		if os.Getenv("CI") == "true" {
			t.Fatalf("Redis at %s unreachable under CI: %v", testRedisAddr, err)
		}
		t.Skipf("Redis at %s unreachable, skipping (start redis-server to run): %v", testRedisAddr, err)
	}
	t.Cleanup(func() { _ = client.Close() })
	return client
}

// uniqueKey gives each test its own budget and removes it afterwards.
func uniqueKey(t *testing.T, client *redis.Client) string {
	t.Helper()
	key := "test:" + t.Name() + ":" + uuid.NewString()
	t.Cleanup(func() {
		// redis_rate adds its own "rate:" in front of our prefix.
		_ = client.Del(context.Background(), "rate:"+RedisKeyPrefix+key).Err()
	})
	return key
}

func near(got, want, tolerance time.Duration) bool {
	return got >= want-tolerance && got <= want+tolerance
}

// TestRedisBurstThenRefusal uses a per-minute rule so the real time spent
// between requests refills nothing measurable.
func TestRedisBurstThenRefusal(t *testing.T) {
	t.Parallel()
	client := newRedisClient(t)
	key := uniqueKey(t, client)
	l := NewRedis(client)
	rule := Rule{Rate: 5, Period: time.Minute, Burst: 5}
	for i := range 5 {
		res := allow(t, l, key, rule)
		if !res.Allowed || res.Limit != 5 || res.Remaining != 4-i || res.RetryAfter != 0 ||
			!near(res.Reset, time.Duration(i+1)*12*time.Second, time.Second) {
			t.Fatalf("request %d: %+v", i+1, res)
		}
	}
	res := allow(t, l, key, rule)
	if res.Allowed || res.Remaining != 0 || res.Limit != 5 ||
		!near(res.RetryAfter, 12*time.Second, time.Second) || !near(res.Reset, time.Minute, time.Second) {
		t.Fatalf("request 6: %+v", res)
	}
}

// TestRedisRefill waits out a short RetryAfter for real.
func TestRedisRefill(t *testing.T) {
	t.Parallel()
	client := newRedisClient(t)
	key := uniqueKey(t, client)
	l := NewRedis(client)
	rule := Rule{Rate: 10, Period: time.Second, Burst: 3}
	for i := range 3 {
		if res := allow(t, l, key, rule); !res.Allowed {
			t.Fatalf("request %d refused: %+v", i+1, res)
		}
	}
	res := allow(t, l, key, rule)
	if res.Allowed || res.RetryAfter <= 0 || res.RetryAfter > 100*time.Millisecond {
		t.Fatalf("request 4: %+v, want a refusal with RetryAfter in (0, 100ms]", res)
	}
	time.Sleep(res.RetryAfter + 5*time.Millisecond)
	if res := allow(t, l, key, rule); !res.Allowed {
		t.Fatalf("after RetryAfter: %+v", res)
	}
}

// TestRedisSharedBetweenInstances simulates two processes, each with its own
// connection and limiter: they draw from one budget.
func TestRedisSharedBetweenInstances(t *testing.T) {
	t.Parallel()
	clientA, clientB := newRedisClient(t), newRedisClient(t)
	key := uniqueKey(t, clientA)
	a, b := NewRedis(clientA), NewRedis(clientB)
	rule := Rule{Rate: 6, Period: time.Minute, Burst: 6}
	allowed := 0
	for i := range 10 {
		l := a
		if i%2 == 1 {
			l = b
		}
		res := allow(t, l, key, rule)
		if res.Allowed {
			allowed++
			if res.Remaining != rule.Burst-allowed {
				t.Fatalf("request %d: Remaining %d, want %d from the shared budget", i+1, res.Remaining, rule.Burst-allowed)
			}
		}
	}
	if allowed != rule.Burst {
		t.Fatalf("two instances allowed %d requests, want one shared budget of %d", allowed, rule.Burst)
	}
}

// TestRedisMatchesMemory runs the same sequence through both limiters; they
// must report the same numbers, time measured to within a second.
func TestRedisMatchesMemory(t *testing.T) {
	t.Parallel()
	client := newRedisClient(t)
	r, m := NewRedis(client), NewMemory(newFakeClock())
	for _, rule := range []Rule{{Rate: 4, Period: time.Minute, Burst: 4}, {Rate: 2, Period: time.Minute, Burst: 5}} {
		key := uniqueKey(t, client)
		for i := range 7 {
			fromRedis, fromMemory := allow(t, r, key, rule), allow(t, m, key, rule)
			if fromRedis.Allowed != fromMemory.Allowed || fromRedis.Limit != fromMemory.Limit ||
				fromRedis.Remaining != fromMemory.Remaining ||
				!near(fromRedis.Reset, fromMemory.Reset, time.Second) ||
				!near(fromRedis.RetryAfter, fromMemory.RetryAfter, time.Second) {
				t.Fatalf("rule %s request %d: redis %+v, memory %+v", rule, i+1, fromRedis, fromMemory)
			}
		}
	}
}

func TestRedisRejectsInvalidRule(t *testing.T) {
	t.Parallel()
	// No connection is made for an invalid rule, so no Redis is needed.
	client := redis.NewClient(&redis.Options{Addr: testRedisAddr})
	t.Cleanup(func() { _ = client.Close() })
	l := NewRedis(client)
	if _, err := l.Allow(context.Background(), "k", Rule{Rate: 0, Period: time.Second, Burst: 1}); err == nil {
		t.Fatal("Allow with a zero rate: no error")
	}
}

func TestRedisReportsUnreachable(t *testing.T) {
	t.Parallel()
	// Port 1 on loopback has nothing listening.
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", DialTimeout: 200 * time.Millisecond, MaxRetries: -1})
	t.Cleanup(func() { _ = client.Close() })
	res, err := NewRedis(client).Allow(context.Background(), "k", perKey)
	if err == nil || res != (Result{}) {
		t.Fatalf("unreachable Redis: %+v, %v; want an error and a zero Result", res, err)
	}
}
