package httpapi

import (
	"context"

	"github.com/carteiro/carteiro/internal/app"
	"github.com/carteiro/carteiro/internal/i18n"
	"github.com/carteiro/carteiro/internal/logctx"
)

// requestInfo is filled as the request goes through the layers, so the
// outer layer can log and measure what the inner ones learned.
type requestInfo struct {
	lang      i18n.Lang
	route     string
	principal *app.Principal
	// loggedPath replaces the path in the request log when it carries a
	// secret (Route.secretPath).
	loggedPath string
}

type infoKey struct{}

func withInfo(ctx context.Context, info *requestInfo) context.Context {
	return context.WithValue(ctx, infoKey{}, info)
}

func infoOf(ctx context.Context) *requestInfo {
	if info, ok := ctx.Value(infoKey{}).(*requestInfo); ok {
		return info
	}
	return &requestInfo{lang: i18n.PtBR}
}

func langOf(ctx context.Context) i18n.Lang { return infoOf(ctx).lang }

func requestID(ctx context.Context) string { return logctx.RequestID(ctx) }

// principalOf returns the authenticated caller of a route with Auth.
func principalOf(ctx context.Context) *app.Principal { return infoOf(ctx).principal }
