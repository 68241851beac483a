package testutil

import (
	"sync"
	"testing"
	"time"
)

func TestClockNormalizesToUTCMicroseconds(t *testing.T) {
	t.Parallel()
	saoPaulo := time.FixedZone("BRT", -3*3600)
	start := time.Date(2025, 3, 1, 9, 0, 0, 123456789, saoPaulo)
	c := NewClock(start)

	got := c.Now()
	want := time.Date(2025, 3, 1, 12, 0, 0, 123456000, time.UTC)
	if !got.Equal(want) || got.Location() != time.UTC || got.Nanosecond() != 123456000 {
		t.Fatalf("Now() = %v, want %v in UTC at microsecond precision", got, want)
	}

	c.Set(time.Date(2025, 1, 1, 0, 0, 0, 999, saoPaulo))
	if got := c.Now(); got.Location() != time.UTC || got.Nanosecond() != 0 || got.Hour() != 3 {
		t.Fatalf("after Set: %v", got)
	}
}

func TestClockAdvance(t *testing.T) {
	t.Parallel()
	start := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	c := NewClock(start)

	if got := c.Advance(72 * time.Hour); !got.Equal(start.Add(72 * time.Hour)) {
		t.Fatalf("Advance returned %v", got)
	}
	if got := c.Now(); !got.Equal(start.Add(72 * time.Hour)) {
		t.Fatalf("Now() after Advance = %v", got)
	}
	c.Advance(-time.Hour)
	if got := c.Now(); !got.Equal(start.Add(71 * time.Hour)) {
		t.Fatalf("Now() after negative Advance = %v", got)
	}
	// Time does not pass by itself.
	before := c.Now()
	time.Sleep(2 * time.Millisecond)
	if !c.Now().Equal(before) {
		t.Fatal("clock moved without Advance")
	}
}

func TestClockConcurrentUse(t *testing.T) {
	t.Parallel()
	start := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	c := NewClock(start)
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			for range 100 {
				c.Advance(time.Second)
				_ = c.Now()
			}
		})
	}
	wg.Wait()
	if got := c.Now(); !got.Equal(start.Add(1000 * time.Second)) {
		t.Fatalf("Now() = %v, want start + 1000s", got)
	}
}
