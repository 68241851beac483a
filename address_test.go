package carteiro

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// assertInvalid fails unless err is a VALIDATION_ERROR on field for reason
// (D11), or nil when reason is "".
func assertInvalid(t *testing.T, err error, field, reason string) {
	t.Helper()
	if reason == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("want %s %s, got %v", field, reason, err)
	}
	if e.Code != CodeValidation || e.Field != field || e.Reason != reason {
		t.Fatalf("want VALIDATION_ERROR %s: %s, got %s %s: %s", field, reason, e.Code, e.Field, e.Reason)
	}
}

func TestParseAddress(t *testing.T) {
	t.Parallel()
	local64 := strings.Repeat("a", 64)
	// 64 + 1 + 189 = 254 octets, the longest mailbox allowed.
	longDomain := func(n int) string { // n octets, labels of 63 at most
		return strings.Repeat("d", 63) + "." + strings.Repeat("e", 63) + "." + strings.Repeat("f", n-132) + ".com"
	}
	domain189 := longDomain(189)
	cases := []struct {
		in, name, email, reason string
	}{
		{in: "a@b.co", email: "a@b.co"},
		{in: "  a@b.co \t", email: "a@b.co"},
		{in: "John.Doe@Example.COM", email: "John.Doe@example.com"},
		{in: "Ana <ana@example.com>", name: "Ana", email: "ana@example.com"},
		{in: "  Ana Maria   <ana@example.com>  ", name: "Ana Maria", email: "ana@example.com"},
		{in: "<ana@example.com>", email: "ana@example.com"},
		{in: `"Silva, Ana" <ana@example.com>`, name: "Silva, Ana", email: "ana@example.com"},
		{in: `"Ana \"Aninha\" Silva" <ana@example.com>`, name: `Ana "Aninha" Silva`, email: "ana@example.com"},
		{in: `"back\\slash" <ana@example.com>`, name: `back\slash`, email: "ana@example.com"},
		{in: `"  padded  " <ana@example.com>`, name: "padded", email: "ana@example.com"},
		{in: `"" <ana@example.com>`, email: "ana@example.com"},
		{in: `John "JJ" Doe <j@example.com>`, name: `John "JJ" Doe`, email: "j@example.com"},
		{in: "Zoë Ñandú <z@example.com>", name: "Zoë Ñandú", email: "z@example.com"},
		{in: "a <b> <c@example.com>", name: "a <b>", email: "c@example.com"},
		{in: "user+tag@example.com", email: "user+tag@example.com"},
		{in: "!#$%&'*+-/=?^_`{|}~@example.com", email: "!#$%&'*+-/=?^_`{|}~@example.com"},
		{in: "first.middle.last@sub.example.co.uk", email: "first.middle.last@sub.example.co.uk"},
		{in: "x@münchen.de", email: "x@xn--mnchen-3ya.de"},
		{in: "x@MÜNCHEN.de", email: "x@xn--mnchen-3ya.de"},
		{in: "x@xn--mnchen-3ya.de", email: "x@xn--mnchen-3ya.de"},
		{in: "Büro <büro@example.com>", reason: "invalid_email"}, // SMTPUTF8 local parts are not supported
		{in: local64 + "@" + domain189, email: local64 + "@" + domain189},

		{in: "a@b.co\r\nBcc: evil@x.com", reason: "header_injection"},
		{in: "Ana\n <ana@example.com>", reason: "header_injection"},
		{in: "a@b.co\x00", reason: "header_injection"},
		{in: "\"A\rB\" <a@b.co>", reason: "header_injection"},
		{in: "", reason: "invalid_email"},
		{in: "   ", reason: "invalid_email"},
		{in: "plainaddress", reason: "invalid_email"},
		{in: "@example.com", reason: "invalid_email"},
		{in: "a@", reason: "invalid_email"},
		{in: "a@localhost", reason: "invalid_email"},
		{in: "a@b.", reason: "invalid_email"},
		{in: "a@b.co.", reason: "invalid_email"},
		{in: "a@.b.co", reason: "invalid_email"},
		{in: "a@b..co", reason: "invalid_email"},
		{in: "a@-b.co", reason: "invalid_email"},
		{in: "a@b_c.co", reason: "invalid_email"},
		{in: "a@1.2.3.4", reason: "invalid_email"},
		{in: "a@[1.2.3.4]", reason: "invalid_email"},
		{in: ".a@b.co", reason: "invalid_email"},
		{in: "a.@b.co", reason: "invalid_email"},
		{in: "a..b@b.co", reason: "invalid_email"},
		{in: "a b@b.co", reason: "invalid_email"},
		{in: `"john doe"@b.co`, reason: "invalid_email"}, // quoted local parts are refused on purpose
		{in: "a@b@c.co", reason: "invalid_email"},
		{in: "a(comment)@b.co", reason: "invalid_email"},
		{in: "Ana ana@example.com", reason: "invalid_email"},
		{in: "Ana <ana@example.com", reason: "invalid_email"},
		{in: "Ana ana@example.com>", reason: "invalid_email"},
		{in: "Ana <ana@example.com> trailing", reason: "invalid_email"},
		{in: "<>", reason: "invalid_email"},
		{in: `"\"quoted\"" <a@b.co>`, reason: "invalid_email"}, // would read back without its quotes
		{in: "Bell\x07 <a@b.co>", reason: "invalid_email"},
		{in: "\xff <a@b.co>", reason: "invalid_email"},
		{in: strings.Repeat("n", 257) + " <a@b.co>", reason: "invalid_email"},
		{in: strings.Repeat("a", 65) + "@b.co", reason: "invalid_email"},
		{in: local64 + "@" + longDomain(190), reason: "invalid_email"}, // 255 octets
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseAddress("to[2]", c.in)
			assertInvalid(t, err, "to[2]", c.reason)
			if c.reason == "" && (got.Name != c.name || got.Email != c.email) {
				t.Fatalf("got {%q %q}, want {%q %q}", got.Name, got.Email, c.name, c.email)
			}
		})
	}
}

func TestParseAddressNameLimit(t *testing.T) {
	t.Parallel()
	name := strings.Repeat("é", MaxDisplayNameLen) // characters, not octets
	got, err := ParseAddress("from", name+" <a@b.co>")
	if err != nil || got.Name != name {
		t.Fatalf("a %d-character name should pass: %v", MaxDisplayNameLen, err)
	}
}

func TestParseAddressStringRoundTrip(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"a@b.co",
		"Ana <ana@example.com>",
		`"Silva, Ana" <ana@example.com>`,
		`"Ana \"Aninha\"" <ana@example.com>`,
		`"x" y <a@b.co>`,
		`"a" "b" <a@b.co>`,
		"Zoë <z@münchen.de>",
		`"a < b; c" <a@b.co>`,
		`"a \"b\", c" <a@b.co>`,
	} {
		first, err := ParseAddress("from", in)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		again, err := ParseAddress("from", first.String())
		if err != nil || again != first {
			t.Fatalf("%q: String %q read back as %+v (%v), want %+v", in, first.String(), again, err, first)
		}
	}
}

func TestNewAddress(t *testing.T) {
	t.Parallel()
	cases := []struct {
		desc, email, name   string
		wantName, wantEmail string
		field, reason       string
	}{
		{desc: "email only", email: "a@B.co", wantEmail: "a@b.co"},
		{desc: "with name", email: "a@b.co", name: "Ana", wantName: "Ana", wantEmail: "a@b.co"},
		{desc: "trimmed", email: " a@b.co ", name: "  Ana  ", wantName: "Ana", wantEmail: "a@b.co"},
		{desc: "idn", email: "x@bücher.example", wantEmail: "x@xn--bcher-kva.example"},
		{desc: "name keeps quotes inside", email: "a@b.co", name: `Ana "A" Silva`, wantName: `Ana "A" Silva`, wantEmail: "a@b.co"},
		{desc: "name at limit", email: "a@b.co", name: strings.Repeat("n", 256), wantName: strings.Repeat("n", 256), wantEmail: "a@b.co"},
		{desc: "display form in email", email: "Ana <a@b.co>", field: "from.email", reason: "invalid_email"},
		{desc: "empty email", email: "", field: "from.email", reason: "invalid_email"},
		{desc: "email injection", email: "a@b.co\nBcc: x@y.z", field: "from.email", reason: "header_injection"},
		{desc: "name injection", email: "a@b.co", name: "Ana\r\nBcc: x@y.z", field: "from.name", reason: "header_injection"},
		{desc: "name NUL", email: "a@b.co", name: "A\x00", field: "from.name", reason: "header_injection"},
		{desc: "name too long", email: "a@b.co", name: strings.Repeat("n", 257), field: "from.name", reason: "too_long"},
		{desc: "name control", email: "a@b.co", name: "A\tB", field: "from.name", reason: "invalid_value"},
		{desc: "name fully quoted", email: "a@b.co", name: `"Ana"`, field: "from.name", reason: "invalid_value"},
	}
	for _, c := range cases {
		t.Run(c.desc, func(t *testing.T) {
			t.Parallel()
			got, err := NewAddress("from", c.email, c.name)
			assertInvalid(t, err, c.field, c.reason)
			if c.reason == "" && (got.Name != c.wantName || got.Email != c.wantEmail) {
				t.Fatalf("got {%q %q}, want {%q %q}", got.Name, got.Email, c.wantName, c.wantEmail)
			}
		})
	}
}

func TestNewAddressMatchesParseAddress(t *testing.T) {
	t.Parallel()
	a, err := NewAddress("to[0]", "ana@example.com", "Silva, Ana")
	if err != nil {
		t.Fatal(err)
	}
	b, err := ParseAddress("to[0]", a.String())
	if err != nil || a != b {
		t.Fatalf("object form %+v reads back as %+v (%v)", a, b, err)
	}
}

func TestDomainOf(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"a@Example.COM":        "example.com",
		"Ana <a@b.co>":         "b.co>", // expects a bare address, as stored in Address.Email
		"weird@local@Mail.org": "mail.org",
		"no-at-sign":           "",
		"trailing@":            "",
	} {
		if got := DomainOf(in); got != want {
			t.Errorf("DomainOf(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSenderDomainMatches(t *testing.T) {
	t.Parallel()
	cases := []struct {
		from, verified string
		want           bool
	}{
		{"example.com", "example.com", true},
		{"Example.COM", "example.com", true},
		{"example.com.", "example.com", true},
		{"mail.example.com", "example.com", true},
		{"a.b.mail.example.com", "example.com", true},
		{"mail.example.com", "Example.com.", true},
		{"badexample.com", "example.com", false},
		{"example.com", "mail.example.com", false},
		{"example.com.evil.org", "example.com", false},
		{"example.org", "example.com", false},
		{"", "example.com", false},
		{"example.com", "", false},
	}
	for _, c := range cases {
		if got := SenderDomainMatches(c.from, c.verified); got != c.want {
			t.Errorf("SenderDomainMatches(%q, %q) = %v, want %v", c.from, c.verified, got, c.want)
		}
	}
}

// Every candidate matches, and every name that matches is a candidate: the
// look-up by name finds exactly the domains the rule allows.
func TestSenderDomainCandidates(t *testing.T) {
	t.Parallel()
	got := SenderDomainCandidates("A.b.Example.com.")
	want := []string{"a.b.example.com", "b.example.com", "example.com", "com"}
	if !slices.Equal(got, want) {
		t.Fatalf("SenderDomainCandidates = %q, want %q", got, want)
	}
	if c := SenderDomainCandidates(""); len(c) != 0 {
		t.Errorf("no from domain: candidates %q, want none", c)
	}
	for _, from := range []string{"example.com", "mail.example.com", "badexample.com", "example.com.evil.org", "x.y.z.example.org"} {
		candidates := SenderDomainCandidates(from)
		for _, verified := range []string{"example.com", "mail.example.com", "badexample.com", "evil.org", "z.example.org", "org", "com", "y.z.example.org"} {
			if SenderDomainMatches(from, verified) != slices.Contains(candidates, verified) {
				t.Errorf("from %q, verified %q: matches %v, but candidates are %q", from, verified, SenderDomainMatches(from, verified), candidates)
			}
		}
	}
}

// D67: a string holds one address; a second one after a comma or semicolon
// outside quotes and angle brackets is refused, not silently dropped.
func TestParseAddressRefusesSecondAddressD67(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in, name, email, reason string
	}{
		{in: "R <r@x.test>, E <e@y.test>", reason: "invalid_email"},
		{in: "r@x.test, e@y.test", reason: "invalid_email"},
		{in: "r@x.test; e@y.test", reason: "invalid_email"},
		{in: "R <r@x.test>; e@y.test", reason: "invalid_email"},
		{in: "Doe, John <j@x.test>", reason: "invalid_email"},
		{in: "r@x.test,", reason: "invalid_email"},
		// Inside quotes a comma or semicolon is part of the name.
		{in: `"Doe, John" <j@x.test>`, name: "Doe, John", email: "j@x.test"},
		{in: `"a; b \" c, d" <j@x.test>`, name: `a; b " c, d`, email: "j@x.test"},
		{in: "E <e@y.test>", name: "E", email: "e@y.test"},
		// Unbalanced quotes or brackets cannot hide a separator.
		{in: `R" <r@x.test>, E <e@y.test>`, reason: "invalid_email"},
		{in: "R <r@x.test, E <e@y.test>", reason: "invalid_email"},
	}
	for _, c := range cases {
		a, err := ParseAddress("to", c.in)
		assertInvalid(t, err, "to", c.reason)
		if c.reason == "" && (a.Name != c.name || a.Email != c.email) {
			t.Errorf("ParseAddress(%q) = %+v, want %q <%s>", c.in, a, c.name, c.email)
		}
	}
}
