package webhook_test

import (
	"net/netip"
	"testing"

	"github.com/carteiro/carteiro/internal/webhook"
)

func TestIsPublicIP(t *testing.T) {
	t.Parallel()
	notPublic := []string{
		"127.0.0.1", "127.255.255.254", "0.0.0.0", "0.1.2.3", "10.0.0.1", "172.16.0.1",
		"172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1", "100.127.255.255",
		"224.0.0.1", "239.255.255.250", "255.255.255.255", "240.0.0.1", "192.0.2.1",
		"198.51.100.7", "203.0.113.9", "198.18.0.1", "192.0.0.8",
		"::", "::1", "fc00::1", "fd12:3456::1", "fe80::1", "fe80::1%eth0", "ff02::1", "ff0e::1",
		"::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "::127.0.0.1",
		"64:ff9b::7f00:1", "64:ff9b::a00:1", "2002:7f00:1::1", "2002:c0a8:101::1",
		"2001:db8::1", "2001::1", "3fff::1", "100::1", "fec0::1", "5f00::1",
	}
	public := []string{
		"8.8.8.8", "1.1.1.1", "93.184.215.14", "100.63.255.255", "100.128.0.0", "172.32.0.1",
		"169.255.0.1", "223.255.255.255", "2606:4700:4700::1111", "2a00:1450:4001::200e",
		"::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1",
	}
	for _, s := range notPublic {
		if webhook.IsPublicIP(netip.MustParseAddr(s)) {
			t.Errorf("IsPublicIP(%s) = true, want false", s)
		}
	}
	for _, s := range public {
		if !webhook.IsPublicIP(netip.MustParseAddr(s)) {
			t.Errorf("IsPublicIP(%s) = false, want true", s)
		}
	}
	if webhook.IsPublicIP(netip.Addr{}) {
		t.Error("the zero Addr counts as public")
	}
}
