package inbound

import (
	"errors"
	"testing"
)

func TestParseRecipient(t *testing.T) {
	t.Parallel()
	ok := []struct{ in, address, domain string }{
		{"bounces+t@Bounces.Example.COM", "bounces+t@bounces.example.com", "bounces.example.com"},
		{"Bounces+T@bounces.example.com.", "Bounces+T@bounces.example.com", "bounces.example.com"},
		{"x@bounces.exämple.com", "x@bounces.xn--exmple-cua.com", "bounces.xn--exmple-cua.com"},
		{"user@with@bounces.example.com", "user@with@bounces.example.com", "bounces.example.com"},
	}
	for _, c := range ok {
		got, err := parseRecipient(c.in)
		if err != nil || got.Address != c.address || got.Domain != c.domain {
			t.Errorf("parseRecipient(%q) = %+v, %v; want %q on %q", c.in, got, err, c.address, c.domain)
		}
	}
	for _, in := range []string{"", "plain", "@bounces.example.com", "user@", "user@a..b", "user@-a.example.com",
		"user@localhost", "user@1.2.3.4", "user@\xff.example.com", "\xff@bounces.example.com"} {
		if _, err := parseRecipient(in); !errors.Is(err, errMalformedAddress) {
			t.Errorf("parseRecipient(%q): %v, want errMalformedAddress", in, err)
		}
	}
	if _, err := parseRecipient("postmaster@[192.0.2.1]"); !errors.Is(err, errAddressLiteral) {
		t.Errorf("address literal: %v, want errAddressLiteral", err)
	}
}

func TestOptionsDefaults(t *testing.T) {
	t.Parallel()
	o := Options{}.withDefaults()
	if o.MaxMessageBytes != 10<<20 || o.MaxRecipients != 50 || o.RatePerIP != 5 || o.BurstPerIP != 20 ||
		o.ReadTimeout != DefaultTimeout || o.WriteTimeout != DefaultTimeout || o.Hostname == "" ||
		o.Logger == nil || o.Clock == nil {
		t.Fatalf("defaults not applied: %+v", o)
	}
}
