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

// busySwitch stands for acceptLoad: the test says when the API is busy.
type busySwitch struct {
	mu sync.Mutex
	on bool
}

func (b *busySwitch) busy() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.on
}

func (b *busySwitch) set(on bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.on = on
}

// acquireLater acquires in the background; the channel gets a value once
// the slot is taken.
func acquireLater(t *testing.T, s *deliverySlots, background bool, due time.Time) <-chan struct{} {
	got := make(chan struct{}, 1)
	go func() {
		if err := s.acquire(context.Background(), background, due); err != nil {
			t.Error(err)
		}
		got <- struct{}{}
	}()
	return got
}

// stillWaiting fails with why when got delivers within 50 ms.
func stillWaiting(t *testing.T, got <-chan struct{}, why string) {
	t.Helper()
	select {
	case <-got:
		t.Fatal(why)
	case <-time.After(50 * time.Millisecond):
	}
}

// slotTaken fails with why unless got delivers within 5 s.
func slotTaken(t *testing.T, got <-chan struct{}, why string) {
	t.Helper()
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatal(why)
	}
}

// While accepts keep the process busy, deliveries hold a twelfth of their
// slots; when the burst ends, waiting attempts get slots again without
// waiting for a running one to end.
func TestDeliverySlotsYieldToBusyAccepts(t *testing.T) {
	api := &busySwitch{on: true}
	s := newDeliverySlots(24, api.busy, time.Now)
	for range 2 { // 24/12
		if err := s.acquire(context.Background(), false, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	third, fourth := acquireLater(t, s, false, time.Now()), acquireLater(t, s, false, time.Now())
	stillWaiting(t, third, "a third attempt started while accepts kept the process busy")
	api.set(false)
	// The next caller finds the bound back at 24 and lets the waiters in.
	if err := s.acquire(context.Background(), true, time.Now()); err != nil {
		t.Fatal(err)
	}
	slotTaken(t, third, "a waiting attempt got no slot after the burst ended")
	slotTaken(t, fourth, "a waiting attempt got no slot after the burst ended")
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inUse != 5 {
		t.Fatalf("slots in use %d, want 5", s.inUse)
	}
}

// Slots freed while the process is busy are not refilled until fewer
// attempts than the lower bound are in flight.
func TestDeliverySlotsShrinkAsAttemptsEnd(t *testing.T) {
	api := &busySwitch{}
	s := newDeliverySlots(12, api.busy, time.Now)
	for range 3 {
		if err := s.acquire(context.Background(), false, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	api.set(true)
	waiter := acquireLater(t, s, true, time.Now())
	s.release() // 2 in flight, bound 1
	stillWaiting(t, waiter, "a freed slot was refilled with 2 attempts in flight and a bound of 1")
	s.release() // 1 in flight
	stillWaiting(t, waiter, "a freed slot was refilled with 1 attempt in flight and a bound of 1")
	s.release() // none in flight: the waiter goes
	slotTaken(t, waiter, "the waiter got no slot with none in flight")
}

// Deliveries stop yielding to accepts once an attempt has waited
// maxYieldLag since its job became due: accepts that never stop cannot
// hold email back for longer than that.
func TestDeliverySlotsStopYieldingToLateEmail(t *testing.T) {
	clock := &steppedClock{t: time.Unix(1_800_000_000, 0)}
	s := newDeliverySlots(24, func() bool { return true }, clock.now)
	for range 2 { // the busy bound of 24
		if err := s.acquire(context.Background(), false, clock.now()); err != nil {
			t.Fatal(err)
		}
	}
	waiter := acquireLater(t, s, true, clock.now().Add(-maxYieldLag+time.Second))
	stillWaiting(t, waiter, "an attempt due 59 s ago started while accepts kept the process busy")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.acquire(ctx, false, clock.now().Add(-maxYieldLag)); err != nil {
		t.Fatal("an attempt due a minute ago waited while the process was busy:", err)
	}
	slotTaken(t, waiter, "the waiting attempt got no slot once a late one was in line")
}
