package tracking

import (
	"strings"
	"testing"
)

// urlPathSafe is the alphabet a token may use: base64url plus the '.'
// that separates payload and MAC.
const urlPathSafe = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."

func TestOpenTokenRoundTrip(t *testing.T) {
	t.Parallel()
	s := newSigner(t, testSecret)
	for _, id := range []string{testEmailID, "x", "0b3e3c0e-7f5e-4a55-9a43-0f1c2d3e4f50", "ümlaut/?#&"} {
		token := OpenToken(s, id)
		if strings.Trim(token, urlPathSafe) != "" {
			t.Errorf("open token %q is not URL-path safe", token)
		}
		got, ok := ParseOpen(s, token)
		if !ok || got != id {
			t.Errorf("ParseOpen(OpenToken(%q)) = %q, %v", id, got, ok)
		}
	}
	if token := OpenToken(s, testEmailID); len(token) > 60 {
		t.Errorf("open token for a typical id has %d characters; URLs should stay short", len(token))
	}
}

func TestClickTokenRoundTrip(t *testing.T) {
	t.Parallel()
	s := newSigner(t, testSecret)
	for _, c := range []struct{ id, url string }{
		{testEmailID, "https://example.com/"},
		{testEmailID, "http://example.com/a?b=1&c=2#frag"},
		{testEmailID, "HTTPS://Example.com/Path?Q=%20x"},
		// Ids with any bytes, including what a naive separator would use.
		{"a\x00b.c\nd", "https://example.com/é?x=ü"},
		{strings.Repeat("i", 300), "https://example.com/" + strings.Repeat("p", 2000)},
	} {
		token := ClickToken(s, c.id, c.url)
		if strings.Trim(token, urlPathSafe) != "" {
			t.Errorf("click token %q is not URL-path safe", token)
		}
		id, url, ok := ParseClick(s, token)
		if !ok || id != c.id || url != c.url {
			t.Errorf("ParseClick(ClickToken(%q, %q)) = %q, %q, %v", c.id, c.url, id, url, ok)
		}
	}
}

// TestAlteredTokensFail flips every character of valid tokens to every
// other URL-safe character: none may verify (D53: a forged token gets 404).
func TestAlteredTokensFail(t *testing.T) {
	t.Parallel()
	s := newSigner(t, testSecret)
	open := OpenToken(s, testEmailID)
	click := ClickToken(s, testEmailID, "https://example.com/x")
	for i := range len(open) {
		for _, c := range []byte(urlPathSafe) {
			if c == open[i] {
				continue
			}
			altered := open[:i] + string(c) + open[i+1:]
			if id, ok := ParseOpen(s, altered); ok {
				t.Fatalf("altered open token %q accepted (id %q)", altered, id)
			}
		}
	}
	for i := range len(click) {
		for _, c := range []byte(urlPathSafe) {
			if c == click[i] {
				continue
			}
			altered := click[:i] + string(c) + click[i+1:]
			if id, url, ok := ParseClick(s, altered); ok {
				t.Fatalf("altered click token %q accepted (%q, %q)", altered, id, url)
			}
		}
	}
	// Truncated, extended and empty tokens.
	for _, bad := range []string{"", ".", open[:len(open)-1], open + "A", open[1:], click + "=", strings.Replace(click, ".", "", 1)} {
		if _, ok := ParseOpen(s, bad); ok {
			t.Errorf("ParseOpen accepted %q", bad)
		}
		if _, _, ok := ParseClick(s, bad); ok {
			t.Errorf("ParseClick accepted %q", bad)
		}
	}
}

func TestCrossPurposeAndForeignTokensFail(t *testing.T) {
	t.Parallel()
	s := newSigner(t, testSecret)
	other := newSigner(t, otherSecret)
	// A click payload that is also a plausible email id, and the reverse.
	click := ClickToken(s, testEmailID, "https://example.com/")
	if _, ok := ParseOpen(s, click); ok {
		t.Error("a click token was accepted as an open token")
	}
	openForURL := s.Sign("open", clickPayload(testEmailID, "https://example.com/"))
	if _, _, ok := ParseClick(s, openForURL); ok {
		t.Error("an open-purpose token was accepted as a click token")
	}
	if _, _, ok := ParseClick(s, OpenToken(s, testEmailID)); ok {
		t.Error("an open token was accepted as a click token")
	}
	if _, ok := ParseOpen(s, OpenToken(other, testEmailID)); ok {
		t.Error("an open token signed with another secret was accepted")
	}
	if _, _, ok := ParseClick(s, ClickToken(other, testEmailID, "https://example.com/")); ok {
		t.Error("a click token signed with another secret was accepted")
	}
}

// TestParseClickRefusesUnsafeDestinations: even a correctly signed token
// never redirects anywhere but an absolute http(s) URL.
func TestParseClickRefusesUnsafeDestinations(t *testing.T) {
	t.Parallel()
	s := newSigner(t, testSecret)
	for _, url := range []string{
		"javascript:alert(1)",
		"JavaScript:alert(1)",
		"data:text/html,<script>alert(1)</script>",
		"vbscript:msgbox(1)",
		"mailto:a@example.com",
		"ftp://example.com/file",
		"file:///etc/passwd",
		"//example.com/protocol-relative",
		"/relative",
		"https:example.com",
		"http://",
		"https://example.com/\r\nSet-Cookie: x=1",
		"https://example.com/\x00",
		"",
	} {
		if id, got, ok := ParseClick(s, ClickToken(s, testEmailID, url)); ok {
			t.Errorf("ParseClick accepted a signed %q (%q, %q)", url, id, got)
		}
	}
	if _, _, ok := ParseClick(s, ClickToken(s, "", "https://example.com/")); ok {
		t.Error("ParseClick accepted an empty email id")
	}
	if _, ok := ParseOpen(s, OpenToken(s, "")); ok {
		t.Error("ParseOpen accepted an empty email id")
	}
}

// TestParseClickRefusesMalformedPayloads: a signed payload whose length
// prefix is broken or too long must not panic nor parse.
func TestParseClickRefusesMalformedPayloads(t *testing.T) {
	t.Parallel()
	s := newSigner(t, testSecret)
	for _, payload := range [][]byte{
		{},
		{0x80},           // unterminated uvarint
		{0x05, 'a', 'b'}, // id longer than the payload
		{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, // huge length
	} {
		if _, _, ok := ParseClick(s, s.Sign("click", payload)); ok {
			t.Errorf("ParseClick accepted payload %x", payload)
		}
	}
}
