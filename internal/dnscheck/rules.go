package dnscheck

import (
	"strings"

	"github.com/carteiro/carteiro"
)

// matcher reports whether one value found in DNS satisfies the expected one.
type matcher func(expected, found string) bool

// matcherFor picks the rule of D31/D32 for a record kind. Unknown kinds fall
// back to exact comparison, of host names for CNAMEs.
func matcherFor(record carteiro.DNSRecord) matcher {
	switch record.Record {
	case carteiro.RecordOwnership:
		return matchExact
	case carteiro.RecordDKIM:
		return matchDKIMKey
	case carteiro.RecordSPF, carteiro.RecordMX:
		// An MX passes when any of the domain's exchangers is ours (D75):
		// a customer may keep a backup MX of their own.
		return matchHost
	case carteiro.RecordDMARC:
		return matchAnyDMARC
	}
	if strings.EqualFold(record.Type, "CNAME") {
		return matchHost
	}
	return matchExact
}

// matchExact compares trimmed values; the ownership token must be exact.
func matchExact(expected, found string) bool {
	return strings.TrimSpace(expected) == strings.TrimSpace(found)
}

// matchHost compares host names ignoring case and a trailing dot.
func matchHost(expected, found string) bool {
	return normalizeHost(expected) == normalizeHost(found)
}

// matchDKIMKey accepts a DKIM key record publishing the expected public key:
// v=DKIM1 or no v, k=rsa or no k, and the same p= once whitespace is
// removed. Other tags (t=, h=, n=...) are the customer's business.
func matchDKIMKey(expected, found string) bool {
	wantKey, ok := tagValue(parseTags(expected), "p")
	wantKey = removeSpace(wantKey)
	if !ok || wantKey == "" {
		return false
	}
	tags := parseTags(found)
	if v, ok := tagValue(tags, "v"); ok && v != "DKIM1" {
		return false
	}
	if k, ok := tagValue(tags, "k"); ok && !strings.EqualFold(k, "rsa") {
		return false
	}
	key, ok := tagValue(tags, "p")
	return ok && removeSpace(key) == wantKey
}

// matchAnyDMARC accepts any DMARC record, whatever its policy: D31 only
// recommends one, and a stricter policy than p=none is the customer's choice.
// The record must begin with the v=DMARC1 tag (RFC 7489 section 6.4).
func matchAnyDMARC(_, found string) bool {
	tags := parseTags(found)
	return len(tags) > 0 && tags[0].name == "v" && tags[0].value == "DMARC1"
}
