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
	s := newDeliverySlots(1, nil, time.Now)
	ctx := context.Background()
	if err := s.acquire(ctx, false, time.Now()); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var order []string
	var wg sync.WaitGroup
	wait := func(name string, background bool) {
		defer wg.Done()
		if err := s.acquire(ctx, background, time.Now()); err != nil {
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
	if s.inUse != 0 {
		t.Fatalf("slots in use after all released: %d, want 0", s.inUse)
	}
}

// No more attempts than slots run at once, and every slot comes back.
func TestDeliverySlotsBoundInFlight(t *testing.T) {
	const slots, attempts = 4, 200
	s := newDeliverySlots(slots, nil, time.Now)
	var mu sync.Mutex
	inFlight, peak := 0, 0
	var wg sync.WaitGroup
	for i := range attempts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.acquire(context.Background(), i%2 == 0, time.Now()); err != nil {
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
	if s.inUse != 0 || len(s.urgent)+len(s.background) != 0 {
		t.Fatalf("after all released: in use %d, waiting %d+%d", s.inUse, len(s.urgent), len(s.background))
	}
}

// A waiter whose context ends leaves the line without taking a slot, so the
// slot goes to the next waiter instead of being lost.
func TestDeliverySlotsGiveUpOnContext(t *testing.T) {
	s := newDeliverySlots(1, nil, time.Now)
	if err := s.acquire(context.Background(), false, time.Now()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := s.acquire(ctx, true, time.Now()); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("acquire past its deadline: %v, want DeadlineExceeded", err)
	}
	s.release()
	if err := s.acquire(context.Background(), true, time.Now()); err != nil {
		t.Fatal(err)
	}
	s.release()
	if s.inUse != 0 || len(s.background) != 0 {
		t.Fatalf("in use %d, waiting %d; want 0 and 0", s.inUse, len(s.background))
	}
}

// While accepts keep the process busy, deliveries hold a twelfth of their
// slots; when the burst ends, waiting attempts get slots again without
// waiting for a running one to end.
func TestDeliverySlotsYieldToBusyAccepts(t *testing.T) {
	var mu sync.Mutex
	busy := true
	s := newDeliverySlots(24, func() bool { mu.Lock(); defer mu.Unlock(); return busy }, time.Now)
	ctx := context.Background()
	for range 2 { // 24/12
		if err := s.acquire(ctx, false, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	got := make(chan struct{}, 2)
	for range 2 {
		go func() {
			if err := s.acquire(ctx, false, time.Now()); err != nil {
				t.Error(err)
			}
			got <- struct{}{}
		}()
	}
	select {
	case <-got:
		t.Fatal("a third attempt started while accepts kept the process busy")
	case <-time.After(50 * time.Millisecond):
	}
	mu.Lock()
	busy = false
	mu.Unlock()
	// The next caller finds the bound back at 24 and lets the waiters in.
	if err := s.acquire(ctx, true, time.Now()); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		select {
		case <-got:
		case <-time.After(5 * time.Second):
			t.Fatal("waiting attempts got no slot after the burst ended")
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inUse != 5 {
		t.Fatalf("slots in use %d, want 5", s.inUse)
	}
}

// Slots freed while the process is busy are not refilled until fewer
// attempts than the lower bound are in flight.
func TestDeliverySlotsShrinkAsAttemptsEnd(t *testing.T) {
	var mu sync.Mutex
	busy := false
	s := newDeliverySlots(12, func() bool { mu.Lock(); defer mu.Unlock(); return busy }, time.Now)
	ctx := context.Background()
	for range 3 {
		if err := s.acquire(ctx, false, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	busy = true
	mu.Unlock()
	got := make(chan struct{}, 1)
	go func() {
		if err := s.acquire(ctx, true, time.Now()); err != nil {
			t.Error(err)
		}
		got <- struct{}{}
	}()
	s.release() // 2 in flight, bound 1
	select {
	case <-got:
		t.Fatal("a freed slot was refilled with 2 attempts in flight and a bound of 1")
	case <-time.After(50 * time.Millisecond):
	}
	s.release() // 1 in flight
	select {
	case <-got:
		t.Fatal("a freed slot was refilled with 1 attempt in flight and a bound of 1")
	case <-time.After(50 * time.Millisecond):
	}
	s.release() // none in flight: the waiter goes
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter got no slot with none in flight")
	}
}

// Deliveries stop yielding to accepts once an attempt has waited
// maxYieldLag since its job became due: accepts that never stop cannot
// hold email back for longer than that.
func TestDeliverySlotsStopYieldingToLateEmail(t *testing.T) {
	clock := &steppedClock{t: time.Unix(1_800_000_000, 0)}
	s := newDeliverySlots(24, func() bool { return true }, clock.now)
	ctx := context.Background()
	for range 2 { // the busy bound of 24
		if err := s.acquire(ctx, false, clock.now()); err != nil {
			t.Fatal(err)
		}
	}
	got := make(chan struct{}, 1)
	go func() {
		if err := s.acquire(ctx, true, clock.now().Add(-maxYieldLag+time.Second)); err != nil {
			t.Error(err)
		}
		got <- struct{}{}
	}()
	select {
	case <-got:
		t.Fatal("an attempt due 59 s ago started while accepts kept the process busy")
	case <-time.After(50 * time.Millisecond):
	}
	if err := s.acquire(ctx, false, clock.now().Add(-maxYieldLag)); err != nil {
		t.Fatal("an attempt due a minute ago waited while the process was busy:", err)
	}
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("the waiting attempt got no slot once a late one was in line")
	}
}
