package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/carteiro/carteiro"
	"github.com/carteiro/carteiro/internal/bounce"
	"github.com/carteiro/carteiro/internal/mta"
)

// logAttempt writes D72's line for each recipient of one delivery attempt:
// email id, recipient domain (not the address), the MX host, the reply's
// codes and the attempt's duration in milliseconds, at INFO, so operators
// can follow deliveries in the log alone.
func (a *App) logAttempt(ctx context.Context, emailID string, results []mta.Result, took time.Duration) {
	for _, r := range results {
		a.logger.LogAttrs(ctx, slog.LevelInfo, "delivery attempt", attemptAttrs(emailID, r, took)...)
	}
}

// attemptAttrs are the attributes of one attempt's log line.
func attemptAttrs(emailID string, r mta.Result, took time.Duration) []slog.Attr {
	return []slog.Attr{
		slog.String("email_id", emailID),
		slog.String("domain", carteiro.DomainOf(r.Recipient)),
		slog.String("mx", r.Host),
		slog.String("outcome", string(r.Class)),
		slog.Int("code", r.Code),
		slog.String("enhanced", bounce.RefineStatus(r.Enhanced, r.Message)),
		slog.Float64("duration_ms", float64(took.Microseconds())/1000),
	}
}
