package app

import (
	"math"
	"sync"
	"time"
)

// acceptLoad measures how busy this process is accepting email: the accept
// calls (POST /emails, POST /emails/batch) in flight, averaged over the
// last moments. Deliveries yield their slots to accepts while it is high
// (deliverySlots): on a process that both accepts and delivers, the two
// share the CPU, and a caller waiting for its 202 matters more than an
// email reaching its server a few seconds later.
type acceptLoad struct {
	now func() time.Time

	mu       sync.Mutex
	inFlight int
	average  float64   // inFlight, exponentially weighted over time
	at       time.Time // when average was last brought up to date
}

const (
	// acceptLoadWindow is the time constant of the average: a burst of
	// accepts counts within about this long, and stops counting about this
	// long after it ends.
	acceptLoadWindow = 100 * time.Millisecond
	// acceptBusyCalls is the average of accept calls in flight from which
	// the API counts as busy. A handful of callers sending one by one stay
	// below it, so deliveries never yield to them; 32 concurrent callers
	// keep about 30 calls in flight. In an open stream of requests the
	// calls in flight are its rate times each call's time, so at rates a
	// process can also deliver, calls stay short and the average low.
	acceptBusyCalls = 8
)

func newAcceptLoad(now func() time.Time) *acceptLoad {
	return &acceptLoad{now: now, at: now()}
}

// enter counts an accept call in flight; leave ends it.
func (l *acceptLoad) enter() {
	l.mu.Lock()
	l.catchUp()
	l.inFlight++
	l.mu.Unlock()
}

func (l *acceptLoad) leave() {
	l.mu.Lock()
	l.catchUp()
	l.inFlight--
	l.mu.Unlock()
}

// busy reports whether accepts are keeping the process busy.
func (l *acceptLoad) busy() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.catchUp()
	return l.average >= acceptBusyCalls
}

// catchUp moves the average over the time since the last change, during
// which inFlight held. l.mu is held.
func (l *acceptLoad) catchUp() {
	t := l.now()
	elapsed := t.Sub(l.at)
	if elapsed <= 0 {
		return
	}
	weight := 1 - math.Exp(-float64(elapsed)/float64(acceptLoadWindow))
	l.average += weight * (float64(l.inFlight) - l.average)
	l.at = t
}
