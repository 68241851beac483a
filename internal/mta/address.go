package mta

import (
	"mime"
	"strings"

	"github.com/carteiro/carteiro"
)

// addressSpecials are the characters RFC 5322 does not allow unquoted in a
// local part or domain; addresses carrying them (quoted local parts) are
// refused rather than quoted, since the API never produces them.
const addressSpecials = "()<>[]:;@\\,\"` "

// checkAddress validates an addr-spec ("local@domain") well enough that it
// can be written into a header and an SMTP command without quoting: no
// control characters, spaces or specials, one '@', non-empty parts. A domain
// literal ("[192.0.2.1]") is accepted. Non-ASCII (RFC 6532) is left alone:
// the API sends internationalized domains as punycode (D16).
func checkAddress(what, addr string) error {
	if err := checkValue(what, addr); err != nil {
		return err
	}
	at := strings.LastIndexByte(addr, '@')
	if at <= 0 || at == len(addr)-1 {
		return invalidf("%s %q is not local@domain", what, addr)
	}
	local, domain := addr[:at], addr[at+1:]
	if hasControl(addr) || strings.ContainsAny(local, addressSpecials) {
		return invalidf("%s %q has a character not allowed in an address", what, addr)
	}
	if strings.HasPrefix(domain, "[") && strings.HasSuffix(domain, "]") {
		domain = domain[1 : len(domain)-1]
	}
	if domain == "" || strings.ContainsAny(domain, addressSpecials) {
		return invalidf("%s %q has an invalid domain", what, addr)
	}
	return nil
}

// hasControl reports ASCII control characters (DEL included).
func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] == 0x7f {
			return true
		}
	}
	return false
}

// formatAddress renders one mailbox for a header: "addr" alone, or a display
// name followed by "<addr>". ASCII names are written as atoms when they can
// be, else as a quoted string; non-ASCII names become RFC 2047 encoded words
// (Q when the name's ASCII characters are all allowed in a Q-encoded phrase,
// else B, since RFC 2047 section 5(3) restricts what a phrase may carry).
func formatAddress(what string, a carteiro.Address) (string, error) {
	if err := checkAddress(what, a.Email); err != nil {
		return "", err
	}
	if err := checkValue(what+" name", a.Name); err != nil {
		return "", err
	}
	if a.Name == "" {
		return a.Email, nil
	}
	return formatPhrase(a.Name) + " <" + a.Email + ">", nil
}

// formatPhrase encodes a display name.
func formatPhrase(name string) string {
	if !isPlainASCII(name) || hasLongWord(name) {
		if phraseSafeQ(name) && !hasLongWord(name) {
			return mime.QEncoding.Encode("utf-8", name)
		}
		return encodeWordsB(name)
	}
	if isAtomPhrase(name) {
		return name
	}
	return carteiro.QuoteDisplayName(name)
}

// isAtomPhrase reports whether name is a sequence of atoms separated by
// single spaces, which needs no quoting.
func isAtomPhrase(name string) bool {
	if name == "" || name[0] == ' ' || name[len(name)-1] == ' ' || strings.Contains(name, "  ") {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		isAlnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !isAlnum && c != ' ' && !strings.ContainsRune("!#$%&'*+-/=?^_`{|}~", rune(c)) {
			return false
		}
	}
	return true
}

// phraseSafeQ reports whether the Q encoding of Go's mime package, which
// leaves most printable ASCII unencoded, would produce a valid phrase for
// name: its ASCII characters must be letters, digits, space or "!*+-/".
func phraseSafeQ(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 0x80 {
			continue
		}
		isAlnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !isAlnum && !strings.ContainsRune(" !*+-/", rune(c)) {
			return false
		}
	}
	return true
}

// formatAddressList renders a list for To, Cc or Reply-To, comma separated
// so the folder can break lines after each comma.
func formatAddressList(what string, list []carteiro.Address) (string, error) {
	parts := make([]string, len(list))
	for i, a := range list {
		s, err := formatAddress(what, a)
		if err != nil {
			return "", err
		}
		parts[i] = s
	}
	return strings.Join(parts, ", "), nil
}
