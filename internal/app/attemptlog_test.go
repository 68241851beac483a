package app

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/mta"
)

// TestDeliveryAttemptLogLine is D72: one INFO line per attempt outcome with
// the email id, the recipient's domain (never the address), the MX host,
// both codes and the duration in milliseconds.
func TestDeliveryAttemptLogLine(t *testing.T) {
	var buf bytes.Buffer
	a := &App{logger: slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))}
	a.logAttempt(context.Background(), "e-1", []mta.Result{
		{Recipient: "Carol@Customer.Example", Class: mta.ClassPermanent, Code: 550, Enhanced: "5.0.0", Message: "5.1.1 unknown user", Host: "mx.customer.example"},
		{Recipient: "dave@other.example", Class: mta.ClassAccepted, Code: 250, Enhanced: "2.0.0", Host: "mx.other.example"},
	}, 1234567*time.Microsecond)
	lines := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	if len(lines) != 2 {
		t.Fatalf("want 2 lines, got %q", buf.String())
	}
	var first map[string]any
	if err := json.Unmarshal(lines[0], &first); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"level": "INFO", "email_id": "e-1", "domain": "customer.example", "mx": "mx.customer.example",
		"code": float64(550), "enhanced": "5.1.1", "duration_ms": 1234.567}
	for k, v := range want {
		if first[k] != v {
			t.Errorf("%s = %v, want %v (line %s)", k, first[k], v, lines[0])
		}
	}
	if bytes.Contains(buf.Bytes(), []byte("Carol")) || bytes.Contains(buf.Bytes(), []byte("dave@")) {
		t.Errorf("the log names a recipient address: %s", buf.String())
	}
}
