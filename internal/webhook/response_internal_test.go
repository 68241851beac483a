package webhook

import (
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	date := func(t time.Time) string { return t.Format(http.TimeFormat) }
	cases := []struct {
		name       string
		retryAfter string
		dateHeader string
		want       time.Duration
	}{
		{"absent", "", "", 0},
		{"seconds", "7", "", 7 * time.Second},
		{"seconds with spaces", " 120 ", "", 2 * time.Minute},
		{"zero", "0", "", 0},
		{"negative", "-5", "", 0},
		{"garbage", "soon", "", 0},
		{"fraction", "1.5", "", 0},
		{"capped seconds", "999999999", "", MaxRetryAfter},
		{"huge seconds", "99999999999999999999", "", MaxRetryAfter},
		{"date from now", date(now.Add(10 * time.Minute)), "", 10 * time.Minute},
		{"date in the past", date(now.Add(-time.Minute)), "", 0},
		{"date measured from Date header", date(now.Add(3 * time.Hour)), date(now.Add(2 * time.Hour)), time.Hour},
		{"date capped", date(now.Add(72 * time.Hour)), "", MaxRetryAfter},
	}
	for _, c := range cases {
		h := http.Header{}
		if c.retryAfter != "" {
			h.Set("Retry-After", c.retryAfter)
		}
		if c.dateHeader != "" {
			h.Set("Date", c.dateHeader)
		}
		if got := retryAfter(h, now); got != c.want {
			t.Errorf("%s: retryAfter = %s, want %s", c.name, got, c.want)
		}
	}
}

func TestStorableText(t *testing.T) {
	t.Parallel()
	// A 3-byte character cut by the 4096-byte limit must not leave half a
	// character behind.
	cut := strings.Repeat("a", MaxResponseBody-1) + "€"
	got := storableText([]byte(cut[:MaxResponseBody]))
	if !utf8.ValidString(got) || len(got) > MaxResponseBody || !strings.HasPrefix(got, strings.Repeat("a", MaxResponseBody-1)) {
		t.Errorf("cut character: got %d bytes, valid=%v", len(got), utf8.ValidString(got))
	}
	// Replacement characters may not push the text over the limit.
	invalid := []byte(strings.Repeat("a\xff", MaxResponseBody/2))
	got = storableText(invalid)
	if !utf8.ValidString(got) || len(got) > MaxResponseBody {
		t.Errorf("invalid bytes: got %d bytes, valid=%v", len(got), utf8.ValidString(got))
	}
	if got := storableText([]byte("a\x00b")); got != "ab" {
		t.Errorf("NUL: got %q", got)
	}
}
