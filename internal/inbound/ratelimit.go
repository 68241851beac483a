package inbound

import (
	"container/list"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// maxTrackedClients bounds the limiter's memory (an entry is a few hundred
// bytes). Idle clients are dropped long before this in normal traffic; it
// only matters under a flood from very many addresses.
const maxTrackedClients = 65536

// clientLimiter is a token bucket per client address, fed by an injected
// clock. Memory stays bounded: a client idle long enough for its bucket to
// refill completely is forgotten, which changes nothing since a new bucket
// starts full; and no more than max clients are kept, the least recently
// seen going first.
type clientLimiter struct {
	rate      rate.Limit
	burst     int
	idleAfter time.Duration // time for an empty bucket to refill
	max       int

	mu      sync.Mutex
	recency *list.List // of *clientBucket, most recently seen first
	byKey   map[netip.Prefix]*list.Element
}

// clientBucket is one client's bucket and when it was last used.
type clientBucket struct {
	key      netip.Prefix
	limiter  *rate.Limiter
	lastSeen time.Time
}

func newClientLimiter(perSecond float64, burst, max int) *clientLimiter {
	refill := time.Duration(float64(burst) / perSecond * float64(time.Second))
	return &clientLimiter{
		rate:      rate.Limit(perSecond),
		burst:     burst,
		idleAfter: refill,
		max:       max,
		recency:   list.New(),
		byKey:     make(map[netip.Prefix]*list.Element),
	}
}

// allow takes one token from addr's bucket at now and reports whether
// there was one.
func (l *clientLimiter) allow(addr netip.Addr, now time.Time) bool {
	key := clientKey(addr)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.forgetIdle(now)
	elem, ok := l.byKey[key]
	if !ok {
		for l.recency.Len() >= l.max {
			l.remove(l.recency.Back())
		}
		elem = l.recency.PushFront(&clientBucket{key: key, limiter: rate.NewLimiter(l.rate, l.burst)})
		l.byKey[key] = elem
	}
	l.recency.MoveToFront(elem)
	bucket := elem.Value.(*clientBucket)
	bucket.lastSeen = now
	return bucket.limiter.AllowN(now, 1)
}

// forgetIdle drops, from the least recently seen end, every client whose
// bucket has had time to refill.
func (l *clientLimiter) forgetIdle(now time.Time) {
	for back := l.recency.Back(); back != nil; back = l.recency.Back() {
		if now.Sub(back.Value.(*clientBucket).lastSeen) < l.idleAfter {
			return
		}
		l.remove(back)
	}
}

func (l *clientLimiter) remove(elem *list.Element) {
	l.recency.Remove(elem)
	delete(l.byKey, elem.Value.(*clientBucket).key)
}

// tracked returns how many clients the limiter remembers.
func (l *clientLimiter) tracked() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.recency.Len()
}

// clientKey is the unit limited: the IPv4 address, or the /64 of an IPv6
// one, because a single IPv6 host usually holds a whole /64 and could
// otherwise dodge the limit by rotating addresses.
func clientKey(addr netip.Addr) netip.Prefix {
	addr = addr.Unmap()
	bits := addr.BitLen()
	if addr.Is6() {
		bits = 64
	}
	prefix, err := addr.Prefix(bits)
	if err != nil {
		// Only the zero Addr (a client without an IP, never over TCP)
		// lands here; all such clients share one bucket.
		return netip.Prefix{}
	}
	return prefix
}
