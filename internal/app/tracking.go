package app

import (
	"context"
	"errors"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/store"
	"github.com/carteiro/carteiro/internal/tracking"
)

// RecordOpen counts a hit on an email's open pixel (D53). A forged or
// altered token is reported as not found and records nothing. Machine
// opens (mail proxies prefetching images) count too; the user agent is
// kept so they can be told apart.
func (a *App) RecordOpen(ctx context.Context, token, userAgent string) bool {
	id, ok := tracking.ParseOpen(a.box, token)
	if !ok {
		return false
	}
	err := a.store.RecordHit(ctx, func(tx *store.Tx) error {
		e, err := tx.EmailByID(ctx, id)
		if err != nil {
			return err
		}
		now := a.clock.Now()
		if e.OpenCount, err = tx.CountOpen(ctx, id, now); err != nil {
			return err
		}
		return a.recordEvents(ctx, tx, e, []*carteiro.EmailEvent{newEvent(id, carteiro.EventOpened, now, map[string]any{"userAgent": userAgent})})
	})
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		a.logger.ErrorContext(ctx, "record open", "email_id", id, "err", err)
	}
	return err == nil
}

// RecordClick counts a click and returns the destination, which is only
// ever the URL signed into the token at send time (D53).
func (a *App) RecordClick(ctx context.Context, token, userAgent string) (string, bool) {
	id, url, ok := tracking.ParseClick(a.box, token)
	if !ok {
		return "", false
	}
	err := a.store.RecordHit(ctx, func(tx *store.Tx) error {
		e, err := tx.EmailByID(ctx, id)
		if err != nil {
			return err
		}
		now := a.clock.Now()
		if e.ClickCount, err = tx.CountClick(ctx, id, now); err != nil {
			return err
		}
		return a.recordEvents(ctx, tx, e, []*carteiro.EmailEvent{newEvent(id, carteiro.EventClicked, now, map[string]any{"url": url, "userAgent": userAgent})})
	})
	if errors.Is(err, store.ErrNotFound) {
		return "", false
	}
	if err != nil {
		// The visitor still gets where the link goes; the click is logged lost.
		a.logger.ErrorContext(ctx, "record click", "email_id", id, "err", err)
	}
	return url, true
}

// ValidOpenToken checks an open token without counting anything.
func (a *App) ValidOpenToken(token string) bool {
	_, ok := tracking.ParseOpen(a.box, token)
	return ok
}

// ClickDestination checks a click token and returns its destination
// without counting a click.
func (a *App) ClickDestination(token string) (string, bool) {
	_, url, ok := tracking.ParseClick(a.box, token)
	return url, ok
}
