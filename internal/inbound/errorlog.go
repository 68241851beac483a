package inbound

import (
	"fmt"
	"log/slog"
	"strings"
)

// errorLog adapts go-smtp's printf-style error log to slog. go-smtp
// reports broken connections there (clients vanishing mid-session is
// routine on port 25, hence debug) and recovered panics (an error).
type errorLog struct{ log *slog.Logger }

// Printf logs one go-smtp message.
func (e errorLog) Printf(format string, v ...any) {
	e.write(fmt.Sprintf(format, v...))
}

// Println logs one go-smtp message.
func (e errorLog) Println(v ...any) {
	e.write(strings.TrimSuffix(fmt.Sprintln(v...), "\n"))
}

func (e errorLog) write(msg string) {
	if strings.HasPrefix(msg, "panic") {
		e.log.Error("inbound SMTP panic", "detail", msg)
		return
	}
	e.log.Debug("inbound SMTP connection error", "detail", msg)
}
