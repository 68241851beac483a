package config

import (
	"strings"
	"testing"
	"time"
)

// D77: content kept 30 days and records 400 days unless told otherwise.
func TestRetentionDefaultsAreD77s(t *testing.T) {
	c, err := Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.ContentRetention != 30*24*time.Hour || c.LogRetention != 400*24*time.Hour {
		t.Fatalf("retention defaults %v and %v, want 30d and 400d", c.ContentRetention, c.LogRetention)
	}
}

func TestRetentionTakesDaysDurationsOrZero(t *testing.T) {
	for in, want := range map[string]time.Duration{"7d": 7 * 24 * time.Hour, "36h": 36 * time.Hour, "0": 0, "0d": 0} {
		c, err := Load(env(map[string]string{"CARTEIRO_CONTENT_RETENTION": in, "CARTEIRO_LOG_RETENTION": in}))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if c.ContentRetention != want || c.LogRetention != want {
			t.Errorf("%s read as %v and %v, want %v", in, c.ContentRetention, c.LogRetention, want)
		}
	}
}

func TestInvalidRetentionIsNamed(t *testing.T) {
	for _, in := range []string{"forever", "-1d", "-5h", "3x", "d"} {
		_, err := Load(env(map[string]string{"CARTEIRO_CONTENT_RETENTION": in, "CARTEIRO_LOG_RETENTION": in}))
		if err == nil || !strings.Contains(err.Error(), "CARTEIRO_CONTENT_RETENTION") || !strings.Contains(err.Error(), "CARTEIRO_LOG_RETENTION") {
			t.Errorf("%q: error %v does not name both settings", in, err)
		}
	}
}
