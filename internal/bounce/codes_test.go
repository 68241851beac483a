package bounce

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFindReply(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in     string
		ok     bool
		code   int
		status string
		start  int
	}{
		{"550 5.1.1 User unknown", true, 550, "5.1.1", 0},
		{"550-5.1.1 The email account", true, 550, "5.1.1", 0},
		{"host mx said: 550 5.7.1 blocked", true, 550, "5.7.1", 14},
		{"#550 5.1.1 RESOLVER.ADR.RecipNotFound", true, 550, "5.1.1", 1},
		{"Remote server returned '554 5.7.1 rejected'", true, 554, "5.7.1", 24},
		{"554: delivery error: dd", true, 554, "", 0},
		{"text\n  452 Mailbox full", true, 452, "", 7},
		{"Status: 4.4.7", true, 0, "4.4.7", 8},
		{"relayed via 192.5.1.1 then", false, 0, "", 0},
		{"[2607:f8b0:4864:20::b2a]", false, 0, "", 0},
		{"version 5.1.10.2 released", false, 0, "", 0},
		{"we sold 550 apples", false, 0, "", 0},
		{"x5.1.1 and 5501", false, 0, "", 0},
		{"code 5.1.1234", false, 0, "", 0},
		{"", false, 0, "", 0},
	}
	for _, tc := range tests {
		got, ok := findReply(tc.in)
		if ok != tc.ok || got.code != tc.code || got.status != tc.status || (ok && got.start != tc.start) {
			t.Errorf("findReply(%q) = %+v, %v; want code=%d status=%q start=%d, %v", tc.in, got, ok, tc.code, tc.status, tc.start, tc.ok)
		}
	}
}

func TestFindEnhancedCode(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"5.1.1":                             "5.1.1",
		" 4.2.2 (mailbox full)":             "4.2.2",
		"5.7.26":                            "5.7.26",
		"2.0.0":                             "2.0.0",
		"3.1.1":                             "", // no class 3 in RFC 3463
		"10.5.1.1":                          "",
		"smtp; 550 #5.1.0 Address rejected": "5.1.0",
	}
	for in, want := range tests {
		if got := findEnhancedCode(in); got != want {
			t.Errorf("findEnhancedCode(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCleanDiagnostic(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"550-5.1.1 The email account does not exist. 550-5.1.1 Please try 550 5.1.1 again": "550-5.1.1 The email account does not exist. Please try again",
		"  450   4.2.0  Greylisted,\n   try later ":                                        "450 4.2.0 Greylisted, try later",
		"no code here": "no code here",
	}
	for in, want := range tests {
		if got := cleanDiagnostic(in); got != want {
			t.Errorf("cleanDiagnostic(%q) = %q, want %q", in, got, want)
		}
	}
	long := cleanDiagnostic(strings.Repeat("é", 3000))
	if len(long) > maxDiagnostic || !utf8.ValidString(long) {
		t.Errorf("long diagnostic: %d bytes, valid UTF-8 %v", len(long), utf8.ValidString(long))
	}
}
