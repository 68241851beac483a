package app

import (
	"testing"
	"time"
)

type steppedClock struct{ t time.Time }

func (c *steppedClock) now() time.Time          { return c.t }
func (c *steppedClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// 32 callers keep the API busy within a fraction of a second, and it stops
// counting as busy a fraction of a second after they stop; 4 callers never
// make it busy, however long they keep going.
func TestAcceptLoadBusy(t *testing.T) {
	clock := &steppedClock{t: time.Unix(1_800_000_000, 0)}
	l := newAcceptLoad(clock.now)
	if l.busy() {
		t.Fatal("busy before any accept")
	}
	for range 4 {
		l.enter()
	}
	clock.advance(10 * time.Second)
	if l.busy() {
		t.Fatal("busy with 4 accepts in flight")
	}
	for range 28 {
		l.enter()
	}
	clock.advance(10 * time.Millisecond)
	if l.busy() {
		t.Fatal("busy 10 ms into a burst: one instant of many calls should not count")
	}
	clock.advance(200 * time.Millisecond)
	if !l.busy() {
		t.Fatal("not busy after 210 ms of 32 accepts in flight")
	}
	for range 32 {
		l.leave()
	}
	clock.advance(50 * time.Millisecond)
	if !l.busy() {
		t.Fatal("not busy 50 ms after the burst: the average should still hold it")
	}
	clock.advance(300 * time.Millisecond)
	if l.busy() {
		t.Fatal("still busy 350 ms after the burst ended")
	}
}
