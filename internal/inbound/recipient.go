package inbound

import (
	"errors"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"github.com/carteiro/carteiro"
)

// errMalformedAddress and errAddressLiteral are parseRecipient's two ways
// to fail: the first earns 501, the second 550 (a well-formed address that
// simply cannot be ours).
var (
	errMalformedAddress = errors.New("malformed recipient address")
	errAddressLiteral   = errors.New("recipient domain is an address literal")
)

// recipient is a RCPT TO address split for the handler.
type recipient struct {
	// Address is local@domain with the normalised domain.
	Address string
	// Domain is lowercase punycode without a trailing dot, the form
	// registered domains are stored in.
	Domain string
}

// parseRecipient checks the address go-smtp parsed from RCPT TO (it already
// requires a non-empty local part and domain) and normalises its domain.
// The local part is kept as sent: bounce addresses carry a token in it, and
// SMTP leaves its interpretation to the receiving host.
func parseRecipient(addr string) (recipient, error) {
	at := strings.LastIndexByte(addr, '@')
	if at <= 0 || at == len(addr)-1 || len(addr) > carteiro.MaxAddressOctets {
		return recipient{}, errMalformedAddress
	}
	local, domain := addr[:at], addr[at+1:]
	if strings.HasPrefix(domain, "[") {
		return recipient{}, errAddressLiteral
	}
	domain, ok := normalizeDomain(domain)
	if !ok || !utf8.ValidString(local) {
		return recipient{}, errMalformedAddress
	}
	return recipient{Address: local + "@" + domain, Domain: domain}, nil
}

// normalizeDomain turns a domain as written (possibly UTF-8 under
// SMTPUTF8, any case, one trailing dot) into lowercase punycode, and
// reports whether it is a valid host name.
func normalizeDomain(domain string) (string, bool) {
	// idna maps invalid UTF-8 to U+FFFD instead of failing.
	if !utf8.ValidString(domain) {
		return "", false
	}
	ascii, err := idna.Lookup.ToASCII(strings.TrimSuffix(domain, "."))
	if err != nil {
		return "", false
	}
	ascii = carteiro.NormalizeDomainName(ascii)
	if !carteiro.ValidDomainName(ascii) {
		return "", false
	}
	return ascii, true
}
