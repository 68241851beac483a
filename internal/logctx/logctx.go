// Package logctx carries the request id through a context and adds it to
// every log line written with that context, whichever package logs it.
package logctx

import (
	"context"
	"log/slog"
)

type key struct{}

// WithRequestID returns ctx carrying id.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, key{}, id)
}

// RequestID returns the request id in ctx, or "".
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(key{}).(string)
	return id
}

// Handler wraps a slog.Handler, adding request_id to records logged with a
// context that carries one.
type Handler struct{ slog.Handler }

// Handle adds the request id, then delegates.
func (h Handler) Handle(ctx context.Context, r slog.Record) error {
	if id := RequestID(ctx); id != "" {
		r.AddAttrs(slog.String("request_id", id))
	}
	return h.Handler.Handle(ctx, r)
}

// WithAttrs keeps the wrapper around derived handlers.
func (h Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return Handler{h.Handler.WithAttrs(attrs)}
}

// WithGroup keeps the wrapper around derived handlers.
func (h Handler) WithGroup(name string) slog.Handler {
	return Handler{h.Handler.WithGroup(name)}
}
