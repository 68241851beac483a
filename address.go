package carteiro

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// Address limits. The octet limits come from RFC 5321 (4.5.3.1); the name
// limit is ours, generous for any real display name.
const (
	MaxLocalPartOctets = 64
	MaxAddressOctets   = 254
	MaxDisplayNameLen  = 256 // characters
)

// ParseAddress reads an address written as "a@b.c" or "Name <a@b.c>" (D16).
// field is the JSON path reported on failure, for example "to[2]".
//
// The display name may be quoted, with \" and \\ escapes inside the quotes;
// an unquoted name is everything before the last "<". Surrounding spaces of
// the whole string and of the name are trimmed.
//
// The mailbox itself is deliberately simpler than RFC 5322: the local part
// must be a dot-atom of ASCII atext (quoted local parts such as
// "john doe"@x.com, comments and domain literals are refused; almost no real
// mailbox needs them and each one is an escaping hazard downstream). The
// local part keeps its case; the domain is converted to punycode (IDNA
// lookup profile), lowercased, and must be a hostname of two labels or more.
//
// A string holds one address (D67): a comma or semicolon outside quotes
// and angle brackets starts a second one, and the string is refused rather
// than sent to only one of them; several recipients are an array.
//
// Errors: header_injection when CR, LF or NUL appears anywhere (D12), else
// invalid_email.
func ParseAddress(field, s string) (Address, error) {
	if hasLineBreakOrNUL(s) {
		return Address{}, Invalid(field, "header_injection")
	}
	if holdsSecondAddress(s) {
		return Address{}, Invalid(field, "invalid_email")
	}
	s = strings.TrimSpace(s)
	mailbox, name := s, ""
	if strings.HasSuffix(s, ">") {
		lt := strings.LastIndexByte(s, '<')
		if lt < 0 {
			return Address{}, Invalid(field, "invalid_email")
		}
		mailbox = s[lt+1 : len(s)-1]
		var ok bool
		if name, ok = decodeDisplayName(strings.TrimSpace(s[:lt])); !ok {
			return Address{}, Invalid(field, "invalid_email")
		}
	}
	if name != "" && displayNameProblem(name) != "" {
		return Address{}, Invalid(field, "invalid_email")
	}
	email, ok := normalizeMailbox(mailbox)
	if !ok {
		return Address{}, Invalid(field, "invalid_email")
	}
	return Address{Name: name, Email: email}, nil
}

// NewAddress builds an address from the object form {email, name?} (D16)
// with the same rules as ParseAddress. field is the JSON path of the object;
// errors name its members, field+".email" (invalid_email or
// header_injection) and field+".name" (header_injection, too_long or
// invalid_value). Both strings are trimmed of surrounding spaces.
func NewAddress(field, email, name string) (Address, error) {
	if hasLineBreakOrNUL(email) {
		return Address{}, Invalid(field+".email", "header_injection")
	}
	normalized, ok := normalizeMailbox(strings.TrimSpace(email))
	if !ok {
		return Address{}, Invalid(field+".email", "invalid_email")
	}
	name = strings.TrimSpace(name)
	if reason := displayNameProblem(name); reason != "" {
		return Address{}, Invalid(field+".name", reason)
	}
	return Address{Name: name, Email: normalized}, nil
}

// DomainOf returns the part of email after its last "@", lowercased, or ""
// when there is no "@".
func DomainOf(email string) string {
	at := strings.LastIndexByte(email, '@')
	if at < 0 {
		return ""
	}
	return strings.ToLower(email[at+1:])
}

// SenderDomainMatches reports whether a from address on fromDomain may be
// sent under verifiedDomain (D17): the two are equal or fromDomain is a
// subdomain of it, so "mail.example.com" matches "example.com" and
// "badexample.com" does not. Both are compared case-insensitively, ignoring
// one trailing dot.
func SenderDomainMatches(fromDomain, verifiedDomain string) bool {
	from := NormalizeDomainName(fromDomain)
	verified := NormalizeDomainName(verifiedDomain)
	if from == "" || verified == "" {
		return false
	}
	return from == verified || strings.HasSuffix(from, "."+verified)
}

// SenderDomainCandidates are the names a verified domain must have for
// SenderDomainMatches(fromDomain, name): fromDomain itself and each of its
// parents, longest first ("a.example.com", "example.com", "com"). Looking
// them up by name finds the sending domain without reading every domain of
// the organization.
func SenderDomainCandidates(fromDomain string) []string {
	from := NormalizeDomainName(fromDomain)
	if from == "" {
		return nil
	}
	names := []string{from}
	for i := range len(from) {
		if from[i] == '.' && i+1 < len(from) {
			names = append(names, from[i+1:])
		}
	}
	return names
}

// hasLineBreakOrNUL reports the characters that would let a value break out
// of a header line (D12).
func hasLineBreakOrNUL(s string) bool {
	return strings.ContainsAny(s, "\r\n\x00")
}

// holdsSecondAddress reports a list separator (D67): a comma or semicolon
// outside a quoted string and outside angle brackets, as in
// "R <r@x.test>, E <e@y.test>". Inside quotes a backslash escapes the next
// character, as in the display names ParseAddress reads. A string whose
// quotes or angle brackets do not balance could hide a separator inside
// them (`R <r@x.test, E <e@y.test>`), so there any comma or semicolon counts.
func holdsSecondAddress(s string) bool {
	quoted, angle, separator := false, 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '<':
			angle++
		case c == '>' && angle > 0:
			angle--
		case (c == ',' || c == ';') && angle == 0:
			separator = true
		}
	}
	if quoted || angle != 0 {
		return strings.ContainsAny(s, ",;")
	}
	return separator
}

// normalizeMailbox checks "local@domain" and returns it with the domain in
// lowercase punycode.
func normalizeMailbox(s string) (string, bool) {
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return "", false
	}
	local, domain := s[:at], s[at+1:]
	if len(local) > MaxLocalPartOctets || !isDotAtom(local) {
		return "", false
	}
	// The IDNA library maps invalid UTF-8 to U+FFFD rather than failing,
	// so it is refused here first.
	if !utf8.ValidString(domain) {
		return "", false
	}
	ascii, err := idna.Lookup.ToASCII(domain)
	if err != nil {
		return "", false
	}
	ascii = strings.ToLower(ascii)
	if !ValidDomainName(ascii) {
		return "", false
	}
	// The punycode form must stand on its own: stored addresses are read
	// back through this same function.
	if again, err := idna.Lookup.ToASCII(ascii); err != nil || again != ascii {
		return "", false
	}
	email := local + "@" + ascii
	if len(email) > MaxAddressOctets {
		return "", false
	}
	return email, true
}

// isDotAtom reports whether s is one or more runs of atext joined by single
// dots (RFC 5322 3.2.3).
func isDotAtom(s string) bool {
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, "..") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '.' && !isAtext(c) {
			return false
		}
	}
	return true
}

// isAtext reports the ASCII characters RFC 5322 allows unquoted in an atom.
func isAtext(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-/=?^_`{|}~", c) >= 0
}

// decodeDisplayName turns the text before "<" into a name. A name that is
// one well-formed quoted string is unquoted and trimmed; anything else is
// taken literally, so a name such as `John "JJ" Doe` survives.
func decodeDisplayName(raw string) (string, bool) {
	if unquoted, ok := unquoteWhole(raw); ok {
		return strings.TrimSpace(unquoted), true
	}
	return raw, true
}

// unquoteWhole unquotes s when s is exactly one quoted string: an opening
// quote, text where a backslash escapes the next character, and a closing
// quote at the very end.
func unquoteWhole(s string) (string, bool) {
	if len(s) < 2 || s[0] != '"' {
		return "", false
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			i++
			if i >= len(s) {
				return "", false
			}
			b.WriteByte(s[i])
		case '"':
			if i != len(s)-1 {
				return "", false
			}
			return b.String(), true
		default:
			b.WriteByte(c)
		}
	}
	return "", false
}

// displayNameProblem returns the reason name cannot be a display name, or
// "" when it can. Besides the length and control characters, a name that
// is itself one quoted string is refused: Address.String writes names
// unquoted, and such a name would read back without its quotes.
func displayNameProblem(name string) string {
	switch {
	case hasLineBreakOrNUL(name):
		return "header_injection"
	case utf8.RuneCountInString(name) > MaxDisplayNameLen:
		return "too_long"
	case !utf8.ValidString(name) || hasControl(name):
		return "invalid_value"
	}
	if _, quoted := unquoteWhole(name); quoted {
		return "invalid_value"
	}
	return ""
}

// hasControl reports C0 control characters and DEL, which have no place in
// a display name.
func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return true
		}
	}
	return false
}
