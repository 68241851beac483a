package server

import (
	"context"
	"fmt"
	"log/slog"
)

// redisLogger hands go-redis's own messages (failed dials, pool trouble) to
// the service's logger. go-redis writes them as plain text to stderr by
// default, which broke the JSON log during Redis outages.
type redisLogger struct{ logger *slog.Logger }

// Printf implements go-redis's internal.Logging.
func (l redisLogger) Printf(ctx context.Context, format string, v ...any) {
	l.logger.WarnContext(ctx, fmt.Sprintf(format, v...))
}
