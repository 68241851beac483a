package dnscheck

import "testing"

func TestMatchDKIMKey(t *testing.T) {
	t.Parallel()
	const expected = "v=DKIM1; k=rsa; p=ABCDEF"
	for _, c := range []struct {
		found string
		want  bool
	}{
		{"v=DKIM1; k=rsa; p=ABCDEF", true},
		{"v=DKIM1;k=rsa;p=ABCDEF;", true},
		{"p=ABCDEF", true},
		{"k=rsa; p=AB CD\tEF", true},
		{" v = DKIM1 ; p = ABC DEF ", true},
		{"v=DKIM1; k=RSA; t=y; p=ABCDEF", true},
		{"v=DKIM1; k=rsa; p=ABCDEG", false},
		{"v=DKIM1; k=rsa; p=", false},
		{"v=DKIM1; k=rsa", false},
		{"v=DKIM2; p=ABCDEF", false},
		{"k=ed25519; p=ABCDEF", false},
		{"P=ABCDEF", false},
		{"", false},
	} {
		if got := matchDKIMKey(expected, c.found); got != c.want {
			t.Errorf("matchDKIMKey(%q) = %v, want %v", c.found, got, c.want)
		}
	}
	if matchDKIMKey("v=DKIM1; k=rsa; p=", "v=DKIM1; k=rsa; p=") {
		t.Error("an empty expected key (revoked) matched")
	}
}

func TestMatchAnyDMARC(t *testing.T) {
	t.Parallel()
	for found, want := range map[string]bool{
		"v=DMARC1; p=none;":               true,
		"v=DMARC1;p=reject":               true,
		" v = DMARC1 ; p=quarantine":      true,
		"v=DMARC1":                        true,
		"v=DMARC1x; p=none":               false,
		"p=none; v=DMARC1":                false,
		"v=spf1 include:example.com -all": false,
		"":                                false,
	} {
		if got := matchAnyDMARC("v=DMARC1; p=none;", found); got != want {
			t.Errorf("matchAnyDMARC(%q) = %v, want %v", found, got, want)
		}
	}
}

func TestMatchOwnershipAndHost(t *testing.T) {
	t.Parallel()
	if !matchExact("carteiro-verification=abc", " carteiro-verification=abc ") {
		t.Error("surrounding spaces should be ignored")
	}
	for _, found := range []string{"carteiro-verification=ABC", "carteiro-verification=abcd", "carteiro-verification= abc"} {
		if matchExact("carteiro-verification=abc", found) {
			t.Errorf("ownership matched %q", found)
		}
	}
	if !matchHost("bounces.carteiro.test", "Bounces.Carteiro.Test.") {
		t.Error("host comparison should ignore case and the trailing dot")
	}
	if matchHost("bounces.carteiro.test", "bounces.carteiro.test.evil") {
		t.Error("different hosts matched")
	}
}

func TestUnescapeTXT(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`plain`:             "plain",
		`a\"b`:              `a"b`,
		`a\\b`:              `a\b`,
		`\001x\255`:         "\x01x\xff",
		`\256`:              "256",
		`\12`:               "12",
		`end\`:              `end\`,
		`\195\169t\195\169`: "été",
	} {
		if got := unescapeTXT(in); got != want {
			t.Errorf("unescapeTXT(%q) = %q, want %q", in, got, want)
		}
	}
}
