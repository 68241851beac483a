package app

import (
	"strings"
	"testing"
	"time"

	"github.com/carteiro/carteiro"
)

// Unit rules of D73's sign-in: password hashing, TOTP, session lifetimes.

func TestPasswordHashIsArgon2idAndSalted(t *testing.T) {
	a, err := hashPassword("correct horse battery staple")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := hashPassword("correct horse battery staple")
	if !strings.HasPrefix(a, "$argon2id$v=19$m=65536,t=2,p=2$") || a == b {
		t.Fatalf("hashes %q and %q: want argon2id with a fresh salt each", a, b)
	}
	if !checkPassword(a, "correct horse battery staple") || checkPassword(a, "correct horse battery stapl") ||
		checkPassword(a, "") || checkPassword("plain text", "plain text") {
		t.Fatal("checkPassword accepts a wrong password or a malformed hash")
	}
}

func TestNewPasswordBounds(t *testing.T) {
	for pw, want := range map[string]string{"1234567": "too_short", strings.Repeat("x", 1025): "too_long", "12345678": ""} {
		err := checkNewPassword("password", pw)
		if got := reasonOf(err); got != want {
			t.Errorf("password of %d bytes: reason %q, want %q", len(pw), got, want)
		}
	}
}

func reasonOf(err error) string {
	if err == nil {
		return ""
	}
	return carteiro.AsError(err).Reason
}

// RFC 6238 appendix B's SHA-1 vectors (the 8-digit codes' last 6 digits).
func TestTOTPMatchesRFC6238(t *testing.T) {
	secret := []byte("12345678901234567890")
	for unix, code := range map[int64]string{59: "287082", 1111111109: "081804", 1234567890: "005924", 2000000000: "279037"} {
		now := time.Unix(unix, 0)
		step, ok := matchTOTP(secret, code, now)
		if !ok || step != uint64(unix/30) {
			t.Errorf("at %d: code %s not accepted at its step (%d, %v)", unix, code, step, ok)
		}
		// One step of drift either way, not two.
		if _, ok := matchTOTP(secret, code, now.Add(30*time.Second)); !ok {
			t.Errorf("at %d: code refused 30 s later", unix)
		}
		if _, ok := matchTOTP(secret, code, now.Add(90*time.Second)); ok {
			t.Errorf("at %d: code accepted 90 s later", unix)
		}
	}
}

func TestSessionLifetimes(t *testing.T) {
	start := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	s := carteiro.Session{CreatedAt: start, LastSeenAt: start}
	cases := []struct {
		lastSeen, now time.Time
		expired       bool
	}{
		{start, start.Add(12*time.Hour - time.Second), false},
		{start, start.Add(12 * time.Hour), true}, // 12 h idle
		{start.Add(6*24*time.Hour + 23*time.Hour), start.Add(7*24*time.Hour - time.Second), false},
		{start.Add(6*24*time.Hour + 23*time.Hour), start.Add(7 * 24 * time.Hour), true}, // 7 days, however active
	}
	for i, c := range cases {
		s.LastSeenAt = c.lastSeen
		if got := s.Expired(c.now); got != c.expired {
			t.Errorf("case %d: expired %v, want %v", i, got, c.expired)
		}
	}
}

func TestOnlyOwnersPassRequireOwner(t *testing.T) {
	key := &Principal{}
	owner := &Principal{User: &carteiro.User{Role: carteiro.RoleOwner}}
	member := &Principal{User: &carteiro.User{Role: carteiro.RoleMember}}
	if key.requireOwner() != nil || owner.requireOwner() != nil {
		t.Fatal("an API key or an owner is refused")
	}
	err := carteiro.AsError(member.requireOwner())
	if err.Code != carteiro.CodeForbidden || err.Details["reason"] != "role" {
		t.Fatalf("member: %v, want FORBIDDEN reason role", err)
	}
}

func TestCSRFMatches(t *testing.T) {
	p := &Principal{Session: &carteiro.Session{CSRFToken: "token-of-the-session"}}
	if !p.CSRFMatches("token-of-the-session") || p.CSRFMatches("") || p.CSRFMatches("token-of-the-sessio") || (&Principal{}).CSRFMatches("x") {
		t.Fatal("CSRFMatches accepts a wrong token or refuses the right one")
	}
}
