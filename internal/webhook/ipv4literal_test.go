package webhook

import "testing"

func TestParseIPv4LooseSpellings(t *testing.T) {
	t.Parallel()
	valid := map[string]string{
		"127.0.0.1":         "127.0.0.1",
		"127.1":             "127.0.0.1",
		"127.0.1":           "127.0.0.1",
		"2130706433":        "127.0.0.1",
		"0x7f000001":        "127.0.0.1",
		"0X7F000001":        "127.0.0.1",
		"0177.0.0.1":        "127.0.0.1",
		"0x7f.1":            "127.0.0.1",
		"017700000001":      "127.0.0.1",
		"127.0.0.1.":        "127.0.0.1",
		"0":                 "0.0.0.0",
		"0x":                "0.0.0.0",
		"10.0x10.010.1":     "10.16.8.1",
		"4294967295":        "255.255.255.255",
		"192.168.0x101":     "192.168.1.1",
		"1.2.65535":         "1.2.255.255",
		"00000000000000001": "0.0.0.1",
	}
	for in, want := range valid {
		got, err := parseIPv4Loose(in)
		if err != nil || got.String() != want {
			t.Errorf("parseIPv4Loose(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	invalid := []string{
		"", "1.2.3.256", "256.1", "1.2.3.4.5", "4294967296", "0x100000000", "08.0.0.1",
		"1..2", ".1.2", "1.2.65536", "0xg", "-1", "+1", "1_000",
	}
	for _, in := range invalid {
		if got, err := parseIPv4Loose(in); err == nil {
			t.Errorf("parseIPv4Loose(%q) = %v, want an error", in, got)
		}
	}
}

func TestLooksLikeIPv4(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]bool{
		"127.1": true, "2130706433": true, "0x7f000001": true, "example.com": false,
		"1.2.3.999": true, "host.0x1": true, "host.0xg": false, "a1": false, "1a": false,
		"127.0.0.1.": true, ".": false,
	} {
		if got := looksLikeIPv4(host); got != want {
			t.Errorf("looksLikeIPv4(%q) = %v, want %v", host, got, want)
		}
	}
}
