package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
)

// TestCrashLosesNoAcceptedEmail kills the server with SIGKILL again and
// again while it accepts and delivers, restarts it on the same database,
// and checks that every email answered 202 reaches the SMTP server
// (accepted means durable). Duplicates are counted and reported: a crash
// may repeat the one SMTP step in flight.
//
// Not parallel: after each kill every accepted email must arrive within 90 s,
// a rate other tests' load on the CPU would take away.
func TestCrashLosesNoAcceptedEmail(t *testing.T) {
	testserver.ForEachBackend(t, func(t *testing.T, b testserver.Backend) {
		rig := newCrashRig(t, b, "crash.example")
		smtp := rig.smtp
		p := rig.p
		call := rig.callOn

		var mu sync.Mutex
		accepted := map[string]bool{}
		seq := 0
		rounds := 4
		for round := 0; round < rounds; round++ {
			if round > 0 {
				rig.restart(t)
				p = rig.p
			}
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for c := 0; c < 6; c++ {
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
						n := seq
						mu.Unlock()
						var ids []string
						if n%2 == 0 {
							status, body, err := call(p, "POST", "/v1/product/emails", map[string]any{"from": "a@crash.example",
								"to": fmt.Sprintf("u%d@sink.example", n), "subject": "crash", "text": "t"})
							if err != nil || status != 202 {
								continue
							}
							var r sendResult
							_ = json.Unmarshal(body, &r)
							ids = append(ids, r.ID)
						} else {
							batch := make([]any, 10)
							for i := range batch {
								batch[i] = map[string]any{"from": "a@crash.example", "to": fmt.Sprintf("u%d-%d@sink.example", n, i), "subject": "crash", "text": "t"}
							}
							status, body, err := call(p, "POST", "/v1/product/emails/batch", batch)
							if err != nil || status != 202 {
								continue
							}
							var items []struct {
								OK   bool       `json:"ok"`
								Data sendResult `json:"data"`
							}
							_ = json.Unmarshal(body, &items)
							for _, it := range items {
								if it.OK {
									ids = append(ids, it.Data.ID)
								}
							}
						}
						mu.Lock()
						for _, id := range ids {
							accepted[id] = true
						}
						mu.Unlock()
					}
				}()
			}
			time.Sleep(time.Duration(400+rand.IntN(500)) * time.Millisecond)
			p.kill() // in the middle of accepting and delivering
			close(stop)
			wg.Wait()
		}
		mu.Lock()
		total := len(accepted)
		mu.Unlock()
		testserver.Must(t, total > 50, "too few emails accepted (%d) to prove anything", total)

		// Restart for good and wait until every accepted email arrived.
		rig.restart(t)
		p = rig.p
		delivered := map[string]int{}
		deadline := time.Now().Add(90 * time.Second)
		missing := total
		for time.Now().Before(deadline) {
			clear(delivered)
			for _, m := range smtp.Messages() {
				msg, err := mail.ReadMessage(bytes.NewReader(m.Data))
				if err != nil {
					continue
				}
				id := strings.TrimSuffix(strings.TrimPrefix(msg.Header.Get("Message-Id"), "<"), "@crash.example>")
				delivered[id]++
			}
			missing = 0
			for id := range accepted {
				if delivered[id] == 0 {
					missing++
				}
			}
			if missing == 0 {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		duplicates := 0
		for id, n := range delivered {
			if accepted[id] && n > 1 {
				duplicates += n - 1
			}
		}
		t.Logf("%s: %d emails answered 202 across %d SIGKILLs; %d delivered; %d duplicate deliveries; %d lost",
			b, total, rounds, total-missing, duplicates, missing)
		for id := range accepted {
			if delivered[id] == 0 {
				t.Logf("missing %s", id)
			}
		}
		testserver.Must(t, missing == 0, "%d of %d accepted emails never reached the SMTP server", missing, total)
		p.terminate(t)
	})
}
