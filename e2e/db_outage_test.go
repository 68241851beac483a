package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

// TestDatabaseOutageAnswers503AndDuplicatesNothing cuts Carteiro off from
// PostgreSQL mid-load, through a TCP proxy (the shared PostgreSQL keeps
// running), and restores it. Every answer must be 202 or D11's 503
// SERVICE_UNAVAILABLE with Retry-After, every 202 must be delivered, and
// none twice: an attempt the SMTP server answered during the outage keeps
// its outcome until the database is back instead of sending again.
func TestDatabaseOutageAnswers503AndDuplicatesNothing(t *testing.T) {
	t.Parallel()
	url, proxy := proxiedPostgres(t)
	ts, smtp, _ := relayServer(t, testserver.Postgres, map[string]string{"CARTEIRO_DATABASE_URL": url,
		"CARTEIRO_JOB_TIMEOUT": "5s", "CARTEIRO_RATE_LIMIT_KEY": "100000,100000", "CARTEIRO_RATE_LIMIT_IP": "100000,100000"})

	followRealTime(t, ts.Clock)
	load := newOutageLoad(ts)
	stop := load.run(4)
	time.Sleep(1500 * time.Millisecond)
	proxy.Cut()
	cutAt := time.Now()
	time.Sleep(3 * time.Second)
	proxy.Restore()
	restoredAt := time.Now()
	time.Sleep(2 * time.Second)
	stop()

	testserver.Must(t, len(load.bad) == 0, "answers other than 202 or 503 with Retry-After: %v", load.bad)
	testserver.Must(t, load.unavailable > 0, "no 503 during the outage: the cut did not reach the accept path")
	testserver.Must(t, load.acceptedAfter(restoredAt) > 0, "nothing accepted after the database came back")

	// Every recipient accepted reaches the SMTP server once.
	var missing, duplicates, lateCommitted int
	deadline := time.Now().Add(90 * time.Second)
	for {
		counts := smtp.RecipientCounts()
		missing, duplicates, lateCommitted = 0, 0, 0
		for rcpt := range load.accepted {
			switch n := counts[rcpt]; {
			case n == 0:
				missing++
			case n > 1:
				duplicates += n - 1
			}
		}
		for rcpt := range load.refused {
			if counts[rcpt] > 0 {
				lateCommitted++
			}
		}
		if missing == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("outage of %s: %d recipients accepted (202), %d answers 503; %d missing, %d duplicate deliveries; "+
		"%d recipients answered 503 delivered anyway (a commit whose answer the cut lost); all delivered %s after the restore",
		restoredAt.Sub(cutAt).Round(time.Millisecond), len(load.accepted), load.unavailable, missing, duplicates, lateCommitted,
		time.Since(restoredAt).Round(time.Second))
	testserver.Must(t, missing == 0, "%d accepted recipients never reached the SMTP server", missing)
	testserver.Must(t, duplicates == 0, "%d duplicate deliveries after the database outage", duplicates)
}

// outageLoad sends single emails and batches of 10 from several callers and
// sorts every answer.
type outageLoad struct {
	ts     *testserver.TestServer
	client *http.Client

	mu          sync.Mutex
	seq         int
	accepted    map[string]time.Time // recipient -> when its 202 came
	refused     map[string]bool      // recipients of 503 answers
	unavailable int
	bad         []string
}

func newOutageLoad(ts *testserver.TestServer) *outageLoad {
	return &outageLoad{ts: ts, client: &http.Client{Timeout: 60 * time.Second},
		accepted: map[string]time.Time{}, refused: map[string]bool{}}
}

// run starts callers goroutines; the returned func stops and waits for them.
func (l *outageLoad) run(callers int) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				l.sendOne()
			}
		}()
	}
	return func() { close(done); wg.Wait() }
}

func (l *outageLoad) sendOne() {
	l.mu.Lock()
	l.seq++
	n := l.seq
	l.mu.Unlock()
	var rcpts []string
	var body any
	path := "/v1/product/emails"
	if n%2 == 0 {
		rcpts = []string{fmt.Sprintf("u%d@customer.example", n)}
		body = map[string]any{"from": "a@shop.example", "to": rcpts[0], "subject": "outage", "text": "t"}
	} else {
		path += "/batch"
		batch := make([]any, 10)
		for i := range batch {
			rcpts = append(rcpts, fmt.Sprintf("u%d-%d@customer.example", n, i))
			batch[i] = map[string]any{"from": "a@shop.example", "to": rcpts[i], "subject": "outage", "text": "t"}
		}
		body = batch
	}
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", l.ts.URL+path, bytes.NewReader(raw))
	req.Header.Set("Authorization", "Bearer "+l.ts.LiveKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := l.client.Do(req)
	if err != nil {
		l.note(fmt.Sprintf("%s: %v", path, err))
		return
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case resp.StatusCode == 202 && strings.HasSuffix(path, "/batch"):
		var items []struct {
			OK bool `json:"ok"`
		}
		_ = json.Unmarshal(got, &items)
		for i, it := range items {
			if it.OK {
				l.accepted[rcpts[i]] = now
			} else {
				l.bad = append(l.bad, fmt.Sprintf("batch item %d refused: %s", i, got))
			}
		}
	case resp.StatusCode == 202:
		l.accepted[rcpts[0]] = now
	case resp.StatusCode == 503 && resp.Header.Get("Retry-After") != "" && strings.Contains(string(got), `"SERVICE_UNAVAILABLE"`):
		l.unavailable++
		for _, r := range rcpts {
			l.refused[r] = true
		}
	default:
		l.bad = append(l.bad, fmt.Sprintf("%s: %d Retry-After=%q %s", path, resp.StatusCode, resp.Header.Get("Retry-After"), got))
	}
}

func (l *outageLoad) note(s string) {
	l.mu.Lock()
	l.bad = append(l.bad, s)
	l.mu.Unlock()
}

// acceptedAfter counts the recipients accepted after t.
func (l *outageLoad) acceptedAfter(t time.Time) int {
	n := 0
	for _, at := range l.accepted {
		if at.After(t) {
			n++
		}
	}
	return n
}

// followRealTime moves the test clock with the wall clock until the test
// ends, as production's clock does: River schedules the retries of the jobs
// the outage failed by it.
func followRealTime(t *testing.T, clock *testutil.Clock) {
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case now := <-tick.C:
				if now.After(clock.Now()) {
					clock.Set(now)
				}
			}
		}
	}()
	t.Cleanup(func() { close(done); <-stopped })
}
