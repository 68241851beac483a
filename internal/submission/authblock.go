package submission

import (
	"net/netip"
	"sync"
	"time"
)

// maxBlocked bounds the addresses remembered; past it the expired ones
// are dropped, and if none has expired the oldest block is let go early.
const maxBlocked = 65536

// authBlocks remembers the client addresses that went over the failed-AUTH
// limit, until the limiter would let them try again. While blocked, AUTH
// is refused without looking at the key: otherwise the limit would only
// change the reply to wrong guesses, and a right guess would still pass.
type authBlocks struct {
	mu    sync.Mutex
	until map[netip.Addr]time.Time
}

func newAuthBlocks() *authBlocks { return &authBlocks{until: map[netip.Addr]time.Time{}} }

func (b *authBlocks) blocked(addr netip.Addr, now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	until, ok := b.until[addr]
	if ok && !now.Before(until) {
		delete(b.until, addr)
		return false
	}
	return ok
}

func (b *authBlocks) block(addr netip.Addr, until time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.until) >= maxBlocked {
		now := time.Now()
		var oldest netip.Addr
		for a, u := range b.until {
			if !now.Before(u) {
				delete(b.until, a)
			} else if !oldest.IsValid() || u.Before(b.until[oldest]) {
				oldest = a
			}
		}
		if len(b.until) >= maxBlocked {
			delete(b.until, oldest)
		}
	}
	b.until[addr] = until
}
