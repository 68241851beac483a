package app

import (
	"context"
	"strings"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
)

// unsubscribePurpose keeps unsubscribe tokens apart from tracking tokens.
const unsubscribePurpose = "unsubscribe"

// unsubscribeURL is the one-click link of a broadcast email (RFC 8058,
// D43): an HMAC-signed token naming the organization, the address and the
// broadcast, so nobody can unsubscribe an address they did not receive.
func (a *App) unsubscribeURL(orgID, email, broadcastID string) string {
	token := a.box.Sign(unsubscribePurpose, []byte(orgID+"\x00"+strings.ToLower(email)+"\x00"+broadcastID))
	return strings.TrimRight(a.cfg.PublicURL, "/") + "/u/" + token
}

// UnsubscribeTarget is what an unsubscribe token names.
type UnsubscribeTarget struct {
	OrgID, Email, BroadcastID string
}

// ParseUnsubscribe checks a token; false for a forged or altered one.
func (a *App) ParseUnsubscribe(token string) (UnsubscribeTarget, bool) {
	payload, ok := a.box.Verify(unsubscribePurpose, token)
	if !ok {
		return UnsubscribeTarget{}, false
	}
	parts := strings.Split(string(payload), "\x00")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" {
		return UnsubscribeTarget{}, false
	}
	return UnsubscribeTarget{OrgID: parts[0], Email: parts[1], BroadcastID: parts[2]}, true
}

// Unsubscribe records the one-click POST of a broadcast email: an
// `unsubscribe` suppression of category marketing, at once (D43, D45).
// Repeating it changes nothing.
func (a *App) Unsubscribe(ctx context.Context, token string) (UnsubscribeTarget, error) {
	t, ok := a.ParseUnsubscribe(token)
	if !ok {
		return t, carteiro.NotFound()
	}
	err := a.store.InTx(ctx, func(tx *store.Tx) error {
		return a.autoSuppress(ctx, tx, t.OrgID, t.Email, "unsubscribe", CategoryMarketing, nil)
	})
	return t, storeErr(err)
}
