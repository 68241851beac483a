package store

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// Read coalescing. Every accepted email reads its API key (with the
// organization) and its sending domain before the shared commit writes it.
// On PostgreSQL each read is a round trip, and with them the server's
// sockets and system calls, not the statements, were most of the
// database's CPU (measured: two thirds of the statements of an accept
// run were these two reads). A readBatcher lets concurrent callers of one
// look-up share one statement: a loop takes the first caller waiting, adds
// every other caller already queued, and answers them all from one
// multi-key query. A caller alone is not delayed: its query starts as soon
// as a loop is free, so the answer is as fresh as a query of its own.

// readShape is how a store coalesces reads.
type readShape struct {
	loops int // statements in flight at once per look-up
	max   int // keys of one statement
}

// postgresReads: two statements in flight per look-up keep a caller from
// waiting behind a whole batch, and 64 keys bound one statement's size.
var postgresReads = readShape{loops: 2, max: 64}

// readBatchTimeout bounds one shared statement: it runs on behalf of
// several callers, so no single caller's context may cut it short.
const readBatchTimeout = 30 * time.Second

type readReq[K comparable, V any] struct {
	keys []K
	done chan readAnswer[K, V]
}

type readAnswer[K comparable, V any] struct {
	found map[K]V
	err   error
}

// readBatcher coalesces concurrent look-ups by key. load returns what it
// found among keys; a key it does not return was not found.
type readBatcher[K comparable, V any] struct {
	load  func(ctx context.Context, keys []K) (map[K]V, error)
	shape readShape
	reqs  chan *readReq[K, V]
	stop  chan struct{}
	wg    sync.WaitGroup
	once  sync.Once
}

func newReadBatcher[K comparable, V any](shape readShape, load func(ctx context.Context, keys []K) (map[K]V, error)) *readBatcher[K, V] {
	b := &readBatcher[K, V]{load: load, shape: shape, reqs: make(chan *readReq[K, V], shape.max), stop: make(chan struct{})}
	for range shape.loops {
		b.wg.Add(1)
		go b.loop()
	}
	return b
}

// get returns what load finds among keys, read by a statement that
// started after get was called.
func (b *readBatcher[K, V]) get(ctx context.Context, keys []K) (map[K]V, error) {
	req := &readReq[K, V]{keys: keys, done: make(chan readAnswer[K, V], 1)}
	select {
	case b.reqs <- req:
	case <-b.stop:
		return nil, fmt.Errorf("store: closed")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case ans := <-req.done:
		return ans.found, ans.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (b *readBatcher[K, V]) loop() {
	defer b.wg.Done()
	for {
		var first *readReq[K, V]
		select {
		case first = <-b.reqs:
		case <-b.stop:
			return
		}
		batch := []*readReq[K, V]{first}
		n := len(first.keys)
	drain:
		for n < b.shape.max {
			select {
			case r := <-b.reqs:
				batch = append(batch, r)
				n += len(r.keys)
			default:
				break drain
			}
		}
		b.run(batch)
	}
}

// run answers a batch from one statement over the union of its keys.
func (b *readBatcher[K, V]) run(batch []*readReq[K, V]) {
	seen := map[K]bool{}
	var keys []K
	for _, r := range batch {
		for _, k := range r.keys {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), readBatchTimeout)
	found, err := b.load(ctx, keys)
	cancel()
	for _, r := range batch {
		if err != nil {
			r.done <- readAnswer[K, V]{err: err}
			continue
		}
		mine := make(map[K]V, len(r.keys))
		for _, k := range r.keys {
			if v, ok := found[k]; ok {
				mine[k] = v
			}
		}
		r.done <- readAnswer[K, V]{found: mine}
	}
}

func (b *readBatcher[K, V]) close() {
	b.once.Do(func() { close(b.stop) })
	b.wg.Wait()
	for {
		select {
		case r := <-b.reqs:
			r.done <- readAnswer[K, V]{err: fmt.Errorf("store: closed")}
		default:
			return
		}
	}
}
