package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

// The fault runs of bench/faults/run.sh: the real binary on PostgreSQL with
// its default settings, broken on purpose, reporting accepted, delivered,
// lost and duplicated emails and how long recovery took. They measure, so
// they run only when asked (CARTEIRO_FAULT_RUN=1).

func requireFaultRun(t *testing.T) {
	if os.Getenv("CARTEIRO_FAULT_RUN") != "1" {
		t.Skip("a measurement: run with CARTEIRO_FAULT_RUN=1 (bench/faults/run.sh)")
	}
}

func envDuration(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil {
		return d
	}
	return def
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return n
	}
	return def
}

// faultTally counts recipients accepted against those the SMTP server saw.
type faultTally struct {
	accepted   map[string]bool
	delivered  int
	lost       int
	duplicated int
	last       time.Time // the latest delivery
}

func tally(smtp *testutil.SMTPServer, accepted map[string]bool) faultTally {
	f := faultTally{accepted: accepted}
	counts := map[string]int{}
	for _, m := range smtp.Messages() {
		for _, r := range m.To {
			counts[r]++
		}
		if m.ReceivedAt.After(f.last) {
			f.last = m.ReceivedAt
		}
	}
	for r := range accepted {
		switch n := counts[r]; {
		case n == 0:
			f.lost++
		default:
			f.delivered++
			f.duplicated += n - 1
		}
	}
	return f
}

// waitDelivered polls until every accepted recipient arrived or within is up.
func waitDelivered(smtp *testutil.SMTPServer, accepted map[string]bool, within time.Duration) faultTally {
	deadline := time.Now().Add(within)
	for {
		f := tally(smtp, accepted)
		if f.lost == 0 || time.Now().After(deadline) {
			return f
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// TestFaultRunKillWorker: an API node and two workers with the default
// CARTEIRO_JOB_TIMEOUT; one worker is SIGKILLed mid-delivery.
func TestFaultRunKillWorker(t *testing.T) {
	requireFaultRun(t)
	r := newRig(t, testserver.Postgres)
	delete(r.env, "CARTEIRO_JOB_TIMEOUT") // the default, as deployed
	r.env["CARTEIRO_DELIVERY_WORKERS"] = "20"
	r.p = startRole(t, r.env, "api")
	r.setUp(t, "faults.example")
	r.smtp.SetStall(testutil.StageData, envDuration("FAULT_SMTP_STALL", 100*time.Millisecond))
	w := []*process{startRole(t, r.env, "worker"), startRole(t, r.env, "worker")}
	emails := envInt("FAULT_EMAILS", 3000)
	accepted := map[string]bool{}
	for b := 0; b*100 < emails; b++ {
		batch := make([]any, 100)
		rcpts := make([]string, 100)
		for i := range batch {
			rcpts[i] = fmt.Sprintf("k%d-%d@sink.example", b, i)
			batch[i] = map[string]any{"from": "a@faults.example", "to": rcpts[i], "subject": "fault run", "text": "t"}
		}
		status, body, err := r.call("POST", "/v1/product/emails/batch", batch)
		testserver.Must(t, err == nil && status == 202, "batch: %d %s %v", status, body, err)
		var items []struct {
			OK bool `json:"ok"`
		}
		_ = json.Unmarshal(body, &items)
		for i, it := range items {
			if it.OK {
				accepted[rcpts[i]] = true
			}
		}
	}
	_, err := r.smtp.WaitForMessages(len(accepted)/5, 2*time.Minute)
	testserver.Must(t, err == nil, "deliveries did not start: %v", err)
	w[0].kill()
	killed := time.Now()
	f := waitDelivered(r.smtp, accepted, 5*time.Minute)
	fmt.Printf("FAULT kill-worker: accepted %d, delivered %d, lost %d, duplicated %d, recovery %s (SIGKILL to the last delivery)\n",
		len(accepted), f.delivered, f.lost, f.duplicated, f.last.Sub(killed).Round(100*time.Millisecond))
	w[1].terminate(t)
}

// TestFaultRunCutDatabase: one node (role all) reaches PostgreSQL through a
// TCP proxy, which is cut for FAULT_CUT (15 s) under load and restored.
func TestFaultRunCutDatabase(t *testing.T) {
	requireFaultRun(t)
	r := newRig(t, testserver.Postgres)
	delete(r.env, "CARTEIRO_JOB_TIMEOUT")
	u, err := neturl.Parse(r.env["CARTEIRO_DATABASE_URL"])
	testserver.Must(t, err == nil, "database URL: %v", err)
	proxy := testutil.NewTCPProxy(t, u.Host)
	u.Host = proxy.Addr()
	r.env["CARTEIRO_DATABASE_URL"] = u.String()
	r.p = startProcess(t, r.env)
	r.setUp(t, "faults.example")

	var mu sync.Mutex
	accepted := map[string]bool{}
	var answers = map[string]int{}
	firstAfter := time.Time{}
	var restored time.Time
	stop := make(chan struct{})
	var wg sync.WaitGroup
	seq := 0
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				mu.Lock()
				seq++
				rcpt := fmt.Sprintf("c%d@sink.example", seq)
				mu.Unlock()
				raw, _ := json.Marshal(map[string]any{"from": "a@faults.example", "to": rcpt, "subject": "fault run", "text": "t"})
				req, _ := http.NewRequest("POST", "http://"+r.p.addr+"/v1/product/emails", bytes.NewReader(raw))
				req.Header.Set("Authorization", "Bearer "+r.key)
				resp, err := r.client.Do(req)
				mu.Lock()
				switch {
				case err != nil:
					answers["transport error"]++
				case resp.StatusCode == 202:
					accepted[rcpt] = true
					answers["202"]++
					if !restored.IsZero() && firstAfter.IsZero() {
						firstAfter = time.Now()
					}
				case resp.StatusCode == 503 && resp.Header.Get("Retry-After") != "":
					answers["503 with Retry-After"]++
				default:
					answers[fmt.Sprintf("%d", resp.StatusCode)]++
				}
				mu.Unlock()
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
		}()
	}
	time.Sleep(3 * time.Second)
	proxy.Cut()
	cut := envDuration("FAULT_CUT", 15*time.Second)
	time.Sleep(cut)
	proxy.Restore()
	mu.Lock()
	restored = time.Now()
	mu.Unlock()
	time.Sleep(5 * time.Second)
	close(stop)
	wg.Wait()
	f := waitDelivered(r.smtp, accepted, 5*time.Minute)
	fmt.Printf("FAULT cut-database (%s): accepted %d, delivered %d, lost %d, duplicated %d; answers %v; "+
		"accepting again %s after the restore, all delivered %s after it\n",
		cut, len(accepted), f.delivered, f.lost, f.duplicated, answers,
		firstAfter.Sub(restored).Round(10*time.Millisecond), f.last.Sub(restored).Round(100*time.Millisecond))
	r.p.terminate(t)
}
