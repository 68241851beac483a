package app

import (
	"strings"
	"testing"
)

// The worker reads X-Service-Event-Id (D47) from stored bodies: those
// written now (id first) and those stored by earlier versions, whose keys
// came in alphabetical order with "data" before "id".
func TestPayloadEventID(t *testing.T) {
	written, err := marshalEvent("evt-1", "email.received", "2026-11-28T00:00:00Z", map[string]any{"text": strings.Repeat("x", 1000)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(written), `{"id":"evt-1","type":"email.received",`) {
		t.Fatalf("the id is not written first: %.60s", written)
	}
	for _, tc := range []struct {
		name, body, want string
		fails            bool
	}{
		{"written now", string(written), "evt-1", false},
		{"stored by an earlier version", `{"createdAt":"2026-11-28T00:00:00Z","data":{"id":"not-this","nested":[1,{"id":"nor-this"}]},"id":"evt-2","type":"email.sent"}`, "evt-2", false},
		{"no id", `{"type":"email.sent","data":{}}`, "", false},
		{"id not a string", `{"id":42}`, "", true},
		{"not an object", `["id","evt-3"]`, "", true},
		{"cut short", `{"data":{"text":"abc`, "", true},
	} {
		got, err := payloadEventID([]byte(tc.body))
		if (err != nil) != tc.fails || got != tc.want {
			t.Errorf("%s: got %q, %v; want %q (error: %v)", tc.name, got, err, tc.want, tc.fails)
		}
	}
}
