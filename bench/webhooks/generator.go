package main

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/carteiro/carteiro/bench/internal/apiclient"
)

// generator makes events: sandbox emails (test key, D30) sent through
// POST /emails/batch by several clients, paced to a rate or as fast as
// they go. Every email has one recipient whose local part picks its
// outcome, so each yields a known number of events.
type generator struct {
	api     *apiclient.Client
	key     string
	outcome string
	batch   int
	limit   int64 // emails to send at most; 0: no limit

	next     atomic.Int64 // recipient number, unique over the run
	accepted atomic.Int64
	refused  atomic.Int64
	failed   atomic.Int64 // batches that got no 202 at all
	behind   atomic.Int64 // the longest a batch went out after its slot, in ns

	mu       sync.Mutex
	emailIDs map[string]bool
	firstErr error
}

func newGenerator(api *apiclient.Client, key, outcome string, batch int, limit int64) *generator {
	return &generator{api: api, key: key, outcome: outcome, batch: batch, limit: limit, emailIDs: map[string]bool{}}
}

// run sends from start until until with clients concurrent clients; with
// emailsPerSec > 0 batch k is due at start + k × batch / emailsPerSec (an
// open loop: a late batch goes at once, and the lateness is kept).
func (g *generator) run(ctx context.Context, clients int, emailsPerSec float64, start, until time.Time) {
	var slot atomic.Int64
	var interval time.Duration
	if emailsPerSec > 0 {
		interval = time.Duration(float64(g.batch) / emailsPerSec * float64(time.Second))
	}
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for ctx.Err() == nil {
				due := time.Now()
				if interval > 0 {
					due = start.Add(time.Duration(slot.Add(1)-1) * interval)
					if !due.Before(until) {
						return
					}
					if wait := time.Until(due); wait > 0 {
						select {
						case <-time.After(wait):
						case <-ctx.Done():
							return
						}
					}
				} else if !due.Before(until) {
					return
				}
				g.noteLateness(time.Since(due))
				if !g.send(ctx) {
					return
				}
			}
		})
	}
	wg.Wait()
}

// send posts one batch and counts its items; false means the limit is
// reached and nothing was sent.
func (g *generator) send(ctx context.Context) bool {
	first := g.next.Add(int64(g.batch)) - int64(g.batch)
	if g.limit > 0 && first >= g.limit {
		return false
	}
	items := make([]map[string]any, g.batch)
	for i := range items {
		n := first + int64(i) + 1
		items[i] = map[string]any{"from": "Bench <bench@bench.example>", "to": fmt.Sprintf("%s+%d@bench.example", g.outcome, n),
			"subject": "Benchmark", "text": "Webhook benchmark email."}
	}
	var out []struct {
		OK   bool `json:"ok"`
		Data *struct {
			ID string `json:"id"`
		} `json:"data"`
		Error string `json:"error"`
	}
	if err := g.api.Call(ctx, http.MethodPost, "/v1/product/emails/batch", g.key, items, &out); err != nil {
		g.failed.Add(1)
		g.keepErr(err)
		return true
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, it := range out {
		if it.OK && it.Data != nil {
			g.emailIDs[it.Data.ID] = true
			g.accepted.Add(1)
		} else {
			g.refused.Add(1)
			if g.firstErr == nil {
				g.firstErr = fmt.Errorf("batch item refused: %s", it.Error)
			}
		}
	}
	return true
}

// noteLateness keeps the largest lateness seen.
func (g *generator) noteLateness(late time.Duration) {
	for {
		cur := g.behind.Load()
		if int64(late) <= cur || g.behind.CompareAndSwap(cur, int64(late)) {
			return
		}
	}
}

func (g *generator) keepErr(err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.firstErr == nil {
		g.firstErr = err
	}
}

// knows tells whether id is an email the API accepted.
func (g *generator) knows(id string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.emailIDs[id]
}

// FirstErr is the first error seen, if any.
func (g *generator) FirstErr() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.firstErr
}
