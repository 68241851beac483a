package httpapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"golang.org/x/sync/semaphore"
)

// DefaultMaxInflightBytes is D60's default bound on the request bodies being
// read and handled at once.
const DefaultMaxInflightBytes = 256 << 20

// inflightWait is how long a request waits for room among the bodies in
// flight before it is answered 503 (D60).
const inflightWait = 5 * time.Second

// inflightRetryAfter is the Retry-After, in seconds, of that 503.
const inflightRetryAfter = 1

// chunkedGrant is how much a body without Content-Length reserves at a time
// as it is read.
const chunkedGrant = 64 << 10

// errInflightFull is a body that found no room in time (D60).
var errInflightFull = errors.New("httpapi: request bodies in flight at their bound")

// inflight bounds the bytes of the request bodies being handled at once
// (D60): a request reserves its Content-Length before its handler runs (a
// body without one reserves as it is read) and gives it back when the
// handler returns, since the handler keeps the body in memory until then.
// Every body is at most MaxBodyBytes (D14), so a reservation is at most that
// much, and never more than the whole bound: such a request waits until it
// is alone.
type inflight struct {
	max  int64
	wait time.Duration // inflightWait; shorter in unit tests
	sem  *semaphore.Weighted
}

func newInflight(max int64) *inflight {
	if max <= 0 {
		max = DefaultMaxInflightBytes
	}
	return &inflight{max: max, wait: inflightWait, sem: semaphore.NewWeighted(max)}
}

// weight is what n bytes of body reserve.
func (f *inflight) weight(n int64) int64 {
	return min(n, MaxBodyBytes+1, f.max)
}

// acquire waits up to f.wait for n bytes, or for ctx.
func (f *inflight) acquire(ctx context.Context, n int64) error {
	ctx, cancel := context.WithTimeout(ctx, f.wait)
	defer cancel()
	if err := f.sem.Acquire(ctx, n); err != nil {
		return errInflightFull
	}
	return nil
}

// admit reserves room for r's body and returns the request to hand on (its
// body counted as it is read when it has no Content-Length) and the release
// to call when the handler is done. A body that does not fit in time is
// errInflightFull; so is one, without Content-Length, that runs out of room
// while being read (readBody reports it).
func (f *inflight) admit(r *http.Request) (*http.Request, func(), error) {
	switch {
	case r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0:
		return r, func() {}, nil
	case r.ContentLength > 0:
		n := f.weight(r.ContentLength)
		if err := f.acquire(r.Context(), n); err != nil {
			return nil, nil, err
		}
		return r, func() { f.sem.Release(n) }, nil
	}
	body := &countedBody{ReadCloser: r.Body, f: f, ctx: r.Context()}
	r2 := r.Clone(r.Context())
	r2.Body = body
	return r2, body.release, nil
}

// countedBody reserves a body of unknown length as it is read, chunkedGrant
// at a time, up to the largest weight.
type countedBody struct {
	io.ReadCloser
	f        *inflight
	ctx      context.Context
	held     int64 // reserved
	consumed int64 // read
}

func (b *countedBody) Read(p []byte) (int, error) {
	if b.consumed+int64(len(p)) > b.held && b.held < b.f.weight(MaxBodyBytes+1) {
		grant := min(int64(chunkedGrant), b.f.weight(MaxBodyBytes+1)-b.held)
		if err := b.f.acquire(b.ctx, grant); err != nil {
			return 0, err
		}
		b.held += grant
	}
	if room := b.held - b.consumed; room < int64(len(p)) && room > 0 {
		p = p[:room]
	}
	n, err := b.ReadCloser.Read(p)
	b.consumed += int64(n)
	return n, err
}

func (b *countedBody) release() {
	if b.held > 0 {
		b.f.sem.Release(b.held)
		b.held = 0
	}
}
