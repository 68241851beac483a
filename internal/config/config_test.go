package config

import (
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestDefaultsMatchD56(t *testing.T) {
	c, err := Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	checks := map[string][2]string{
		"HTTPAddr":        {c.HTTPAddr, ":8080"},
		"DatabaseURL":     {c.DatabaseURL, "sqlite:./carteiro.db"},
		"PublicURL":       {c.PublicURL, "http://localhost:8080"},
		"Delivery":        {c.Delivery, "direct"},
		"InboundAddr":     {c.InboundAddr, ":2525"},
		"SubmissionAddr":  {c.SubmissionAddr, ":2587"},
		"SubmissionsAddr": {c.SubmissionsAddr, ""},
		"BounceHost":      {c.BounceHost, "bounces.carteiro.localhost"},
		"SystemFrom":      {c.SystemFrom, "Carteiro <no-reply@carteiro.localhost>"},
		"Warmup":          {c.Warmup, "auto"},
		"DKIMLibcrypto":   {c.DKIMLibcrypto, "auto"},
	}
	for name, v := range checks {
		if v[0] != v[1] {
			t.Errorf("%s = %q, want %q", name, v[0], v[1])
		}
	}
	if c.DirectPort != 25 || c.RateLimitKey.Rate != 50 || c.RateLimitKey.Burst != 100 || c.RateLimitKey.Period != time.Second ||
		c.RateLimitIP.Rate != 100 || c.RateLimitIP.Burst != 200 || c.WebhookAllowPrivate || c.RelayAcceptIsDelivery ||
		c.DeliveryWorkers != 50 || c.MaxInflightBytes != 256<<20 {
		t.Errorf("numeric or boolean defaults wrong: %+v", c)
	}
	if !c.WarmupEnabled() {
		t.Error("warmup auto with direct delivery must be on (D34)")
	}
}

func TestEmptyInboundAddrDisablesListener(t *testing.T) {
	c, err := Load(env(map[string]string{"CARTEIRO_INBOUND_ADDR": ""}))
	if err != nil {
		t.Fatal(err)
	}
	if c.InboundAddr != "" {
		t.Fatalf("InboundAddr = %q, want empty (disabled)", c.InboundAddr)
	}
}

// D74: an empty address turns either submission listener off.
func TestSubmissionAddrsD74(t *testing.T) {
	c, err := Load(env(map[string]string{"CARTEIRO_SUBMISSION_ADDR": "", "CARTEIRO_SUBMISSIONS_ADDR": ":2465"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.SubmissionAddr != "" || c.SubmissionsAddr != ":2465" {
		t.Fatalf("SubmissionAddr = %q, SubmissionsAddr = %q; want off and :2465", c.SubmissionAddr, c.SubmissionsAddr)
	}
	_, err = Load(env(map[string]string{"CARTEIRO_TLS_CERT_FILE": "/x.pem"}))
	if err == nil || !strings.Contains(err.Error(), "CARTEIRO_TLS_KEY_FILE") {
		t.Fatalf("a certificate without its key: err = %v, want one naming CARTEIRO_TLS_KEY_FILE", err)
	}
}

func TestInvalidSettingsAreNamed(t *testing.T) {
	_, err := Load(env(map[string]string{
		"CARTEIRO_DELIVERY":         "relay",
		"CARTEIRO_DIRECT_PORT":      "x",
		"CARTEIRO_WARMUP":           "maybe",
		"CARTEIRO_DKIM_LIBCRYPTO":   "yes",
		"CARTEIRO_SECRET_KEY":       "short",
		"CARTEIRO_RATE_LIMIT_IP":    "fast",
		"CARTEIRO_DELIVERY_WORKERS": "0",
	}))
	if err == nil {
		t.Fatal("want an error")
	}
	for _, name := range []string{"CARTEIRO_RELAY_URL", "CARTEIRO_DIRECT_PORT", "CARTEIRO_WARMUP", "CARTEIRO_DKIM_LIBCRYPTO", "CARTEIRO_SECRET_KEY", "CARTEIRO_RATE_LIMIT_IP", "CARTEIRO_DELIVERY_WORKERS"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error does not name %s: %v", name, err)
		}
	}
}

func TestRelayTurnsWarmupAutoOff(t *testing.T) {
	c, err := Load(env(map[string]string{"CARTEIRO_DELIVERY": "relay", "CARTEIRO_RELAY_URL": "smtp+plain://127.0.0.1:2525"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.WarmupEnabled() {
		t.Error("warmup auto with relay must be off (D34)")
	}
}

// D60: CARTEIRO_MAX_INFLIGHT_BYTES takes bytes or binary units, and refuses
// anything else by name.
func TestMaxInflightBytes(t *testing.T) {
	for in, want := range map[string]int64{"1048576": 1 << 20, "64KiB": 64 << 10, "512 MiB": 512 << 20, "2GiB": 2 << 30, " 300MiB ": 300 << 20} {
		c, err := Load(env(map[string]string{"CARTEIRO_MAX_INFLIGHT_BYTES": in}))
		if err != nil || c.MaxInflightBytes != want {
			t.Errorf("%q: %d (%v), want %d", in, c.MaxInflightBytes, err, want)
		}
	}
	for _, in := range []string{"0", "-1", "1.5MiB", "10MB", "MiB", "lots", "9999999999GiB"} {
		_, err := Load(env(map[string]string{"CARTEIRO_MAX_INFLIGHT_BYTES": in}))
		if err == nil || !strings.Contains(err.Error(), "CARTEIRO_MAX_INFLIGHT_BYTES") {
			t.Errorf("%q: err %v, want one naming CARTEIRO_MAX_INFLIGHT_BYTES", in, err)
		}
	}
}
