package carteiro

import (
	"strings"
	"testing"
)

// FuzzParseAddress checks ParseAddress never panics and that what it accepts
// is safe to put in a header and stable: its String() reads back unchanged.
func FuzzParseAddress(f *testing.F) {
	for _, seed := range []string{
		"a@b.co",
		"Ana <ana@example.com>",
		`"Silva, Ana" <ana@example.com>`,
		`"A \"B\" \\ C" <a@b.co>`,
		`"x" y <a@b.co>`,
		"x@münchen.de",
		"a@b.co\r\nBcc: x@y.z",
		"<>",
		`"\"q\"" <a@b.co>`,
		"a <b> <c@d.ef>",
		"0<0@0.0\xff>",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseAddress("to[0]", s)
		if err != nil {
			if AsError(err).Code != CodeValidation {
				t.Fatalf("%q: error %v is not a validation error", s, err)
			}
			return
		}
		if strings.ContainsAny(a.Name+a.Email, "\r\n\x00") {
			t.Fatalf("%q: accepted %+v carries CR, LF or NUL", s, a)
		}
		if len(a.Email) > MaxAddressOctets || strings.ContainsFunc(a.Email, func(r rune) bool { return r > 0x7e || r < 0x21 }) {
			t.Fatalf("%q: accepted email %q is not short printable ASCII", s, a.Email)
		}
		if d := DomainOf(a.Email); d != strings.ToLower(d) || !ValidDomainName(d) {
			t.Fatalf("%q: accepted domain %q is not a lowercase hostname", s, d)
		}
		again, err := ParseAddress("to[0]", a.String())
		if err != nil {
			t.Fatalf("%q: String() %q does not re-parse: %v", s, a.String(), err)
		}
		if again != a {
			t.Fatalf("%q: String() %q re-parses as %+v, want %+v", s, a.String(), again, a)
		}
	})
}
