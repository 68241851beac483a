package app

import (
	"context"
	"sync"
	"time"

	"github.com/carteiro/carteiro"
)

// keyUseEvery is how stale an API key's recorded last use may get: the
// dashboard shows it to the minute, and writing it on every request would
// add a write to every accepted email.
const keyUseEvery = time.Minute

// keyUse remembers when this process last wrote each key's use, so that
// of many requests at once only one writes, once a minute.
type keyUse struct {
	mu      sync.Mutex
	written map[string]time.Time
}

// claim reports whether the caller should write the use of key id at now.
func (u *keyUse) claim(id string, now time.Time) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.written == nil {
		u.written = map[string]time.Time{}
	}
	if last, ok := u.written[id]; ok && now.Sub(last) < keyUseEvery {
		return false
	}
	if len(u.written) > 100_000 { // keys come and go; forget them all now and then
		clear(u.written)
	}
	u.written[id] = now
	return true
}

// noteKeyUse records k's use for the dashboard's key list. A failure is
// logged and the request goes on: the last use is information, not a rule.
func (a *App) noteKeyUse(ctx context.Context, k *carteiro.APIKey) {
	now := a.clock.Now()
	if k.LastUsedAt != nil && now.Sub(*k.LastUsedAt) < keyUseEvery {
		return
	}
	if !a.keyUse.claim(k.ID, now) {
		return
	}
	if err := a.store.TouchAPIKey(ctx, k.ID, now); err != nil && a.logger != nil {
		a.logger.WarnContext(ctx, "recording an API key's last use failed", "key_id", k.ID, "err", err)
	}
}
