package health

import (
	"net/netip"
	"testing"
)

func TestQueryNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ip, want string
	}{
		// RFC 5782 section 5: the IPv4 test point 127.0.0.2.
		{"127.0.0.2", "2.0.0.127.bl.example"},
		{"192.0.2.99", "99.2.0.192.bl.example"},
		// RFC 5782 section 2.4: every nibble of the expanded address, reversed.
		{"2001:db8:1:2:3:4:567:89ab", "b.a.9.8.7.6.5.0.4.0.0.0.3.0.0.0.2.0.0.0.1.0.0.0.8.b.d.0.1.0.0.2.bl.example"},
		{"::1", "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.bl.example"},
	}
	for _, tt := range tests {
		addr, err := parseIP(tt.ip)
		if err != nil {
			t.Fatalf("parseIP(%q): %v", tt.ip, err)
		}
		if got := queryIP(addr, "bl.example"); got != tt.want {
			t.Errorf("queryIP(%s) = %q, want %q", tt.ip, got, tt.want)
		}
	}
	if got := queryDomain("example.com", "dbl.example"); got != "example.com.dbl.example" {
		t.Errorf("queryDomain = %q", got)
	}
}

func TestParseIP(t *testing.T) {
	t.Parallel()
	addr, err := parseIP(" ::ffff:192.0.2.1 ")
	if err != nil || addr != netip.MustParseAddr("192.0.2.1") {
		t.Errorf("a mapped address must become IPv4: %v, %v", addr, err)
	}
	for _, bad := range []string{"", "192.0.2", "example.com", "fe80::1%eth0"} {
		if _, err := parseIP(bad); err == nil {
			t.Errorf("parseIP(%q) accepted", bad)
		}
	}
}

func TestClassifyAnswer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		answer string
		want   answerKind
	}{
		{"127.0.0.2", answerListed},
		{"127.0.0.11", answerListed},
		{"127.0.1.2", answerListed}, // dbl.spamhaus.org return codes
		{"127.0.0.1", answerListed},
		{"127.255.255.252", answerRefused},
		{"127.255.255.254", answerRefused},
		{"127.255.255.255", answerRefused},
		{"198.51.100.7", answerUnexpected},
		{"10.0.0.1", answerUnexpected},
	}
	for _, tt := range tests {
		if got := classifyAnswer(netip.MustParseAddr(tt.answer)); got != tt.want {
			t.Errorf("classifyAnswer(%s) = %d, want %d", tt.answer, got, tt.want)
		}
	}
}
