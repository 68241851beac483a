package app

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// A freed slot goes to a waiting transactional attempt before any waiting
// broadcast attempt, whatever order they started waiting in.
func TestDeliverySlotsServeUrgentFirst(t *testing.T) {
	s := newDeliverySlots(1)
	ctx := context.Background()
	if err := s.acquire(ctx, false); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	wait := func(name string, background bool) {
		defer wg.Done()
		if err := s.acquire(ctx, background); err != nil {
			t.Error(err)
			return
		}
		mu.Lock()
		order = append(order, name)
		mu.Unlock()
		s.release()
	}
	waiters := func() int {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.urgent) + len(s.background)
	}
	for i, w := range []struct {
		name       string
		background bool
	}{{"broadcast-1", true}, {"broadcast-2", true}, {"reset-password", false}} {
		wg.Add(1)
		go wait(w.name, w.background)
		for waiters() != i+1 { // each queues before the next starts
			time.Sleep(time.Millisecond)
		}
	}
	s.release()
	wg.Wait()
	want := []string{"reset-password", "broadcast-1", "broadcast-2"}
	if len(order) != len(want) {
		t.Fatalf("order %v, want %v", order, want)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("order %v, want %v", order, want)
		}
	}
	if s.free != 1 {
		t.Fatalf("free slots after all released: %d, want 1", s.free)
	}
}

// No more attempts than slots run at once, and every slot comes back.
func TestDeliverySlotsBoundInFlight(t *testing.T) {
	const slots, attempts = 4, 200
	s := newDeliverySlots(slots)
	var mu sync.Mutex
	inFlight, peak := 0, 0
	var wg sync.WaitGroup
	for i := range attempts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.acquire(context.Background(), i%2 == 0); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			inFlight++
			peak = max(peak, inFlight)
			mu.Unlock()
			time.Sleep(100 * time.Microsecond)
			mu.Lock()
			inFlight--
			mu.Unlock()
			s.release()
		}()
	}
	wg.Wait()
	if peak > slots {
		t.Fatalf("%d attempts in flight at once, slots %d", peak, slots)
	}
	if s.free != slots || len(s.urgent)+len(s.background) != 0 {
		t.Fatalf("after all released: free %d, waiting %d+%d", s.free, len(s.urgent), len(s.background))
	}
}

// A waiter whose context ends leaves the line without taking a slot, so the
// slot goes to the next waiter instead of being lost.
func TestDeliverySlotsGiveUpOnContext(t *testing.T) {
	s := newDeliverySlots(1)
	if err := s.acquire(context.Background(), false); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := s.acquire(ctx, true); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("acquire past its deadline: %v, want DeadlineExceeded", err)
	}
	s.release()
	if err := s.acquire(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	s.release()
	if s.free != 1 || len(s.background) != 0 {
		t.Fatalf("free %d, waiting %d; want 1 and 0", s.free, len(s.background))
	}
}
