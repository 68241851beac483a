package logctx

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"
)

func TestRequestIDOnEveryLine(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(Handler{slog.NewJSONHandler(&buf, nil)}).With("component", "test")
	ctx := WithRequestID(context.Background(), "req-123")
	logger.InfoContext(ctx, "first")
	logger.WithGroup("g").InfoContext(ctx, "second", "k", "v")
	logger.Info("no context")

	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	if len(lines) != 3 {
		t.Fatalf("got %d lines, want 3", len(lines))
	}
	for i, want := range []string{"req-123", "req-123", ""} {
		var m map[string]any
		if err := json.Unmarshal(lines[i], &m); err != nil {
			t.Fatal(err)
		}
		got, _ := m["request_id"].(string)
		if i == 1 {
			g, _ := m["g"].(map[string]any)
			got, _ = g["request_id"].(string)
		}
		if got != want {
			t.Errorf("line %d: request_id = %q, want %q (%s)", i, got, want, lines[i])
		}
	}
}
