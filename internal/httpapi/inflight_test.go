package httpapi

import (
	"bytes"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func testInflight(max int64) *inflight {
	f := newInflight(max)
	f.wait = 50 * time.Millisecond
	return f
}

// D60: bodies in flight are bounded by their Content-Length; a request that
// would pass the bound waits, then is refused; room comes back on release.
func TestInflightBoundsContentLengthD60(t *testing.T) {
	t.Parallel()
	f := testInflight(1000)
	big := httptest.NewRequest("POST", "/", strings.NewReader(strings.Repeat("x", 800)))
	_, releaseBig, err := f.admit(big)
	if err != nil {
		t.Fatal(err)
	}
	small := httptest.NewRequest("POST", "/", strings.NewReader(strings.Repeat("x", 150)))
	_, releaseSmall, err := f.admit(small)
	if err != nil {
		t.Fatalf("150 bytes beside 800 of 1000: %v", err)
	}
	over := httptest.NewRequest("POST", "/", strings.NewReader(strings.Repeat("x", 100)))
	if _, _, err := f.admit(over); !errors.Is(err, errInflightFull) {
		t.Fatalf("100 bytes beside 950 of 1000: %v, want errInflightFull", err)
	}
	releaseBig()
	releaseSmall()
	// A body larger than the whole bound is admitted alone.
	huge := httptest.NewRequest("POST", "/", strings.NewReader(strings.Repeat("x", 5000)))
	_, releaseHuge, err := f.admit(huge)
	if err != nil {
		t.Fatalf("a body over the bound, alone: %v", err)
	}
	releaseHuge()
	// Requests without a body reserve nothing.
	if _, _, err := f.admit(httptest.NewRequest("GET", "/", nil)); err != nil {
		t.Fatal(err)
	}
}

// D60: a body without Content-Length is counted as it is read.
func TestInflightCountsChunkedBodiesD60(t *testing.T) {
	t.Parallel()
	f := testInflight(3 * chunkedGrant)
	r := httptest.NewRequest("POST", "/", io.NopCloser(bytes.NewReader(make([]byte, 2*chunkedGrant))))
	r.ContentLength = -1
	admitted, release, err := f.admit(r)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := io.ReadFull(admitted.Body, make([]byte, 2*chunkedGrant)); err != nil {
		t.Fatalf("read %d (%v)", n, err)
	}
	// Two grants are held: a second chunked body gets one and then waits.
	r2 := httptest.NewRequest("POST", "/", io.NopCloser(bytes.NewReader(make([]byte, 2*chunkedGrant))))
	r2.ContentLength = -1
	admitted2, release2, err := f.admit(r2)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.ReadFull(admitted2.Body, make([]byte, 2*chunkedGrant))
	if !errors.Is(err, errInflightFull) || n != chunkedGrant {
		t.Fatalf("second chunked body: read %d (%v), want one grant then errInflightFull", n, err)
	}
	release()
	release2()
	if !f.sem.TryAcquire(3 * chunkedGrant) {
		t.Fatal("releases did not give back every grant")
	}
}
