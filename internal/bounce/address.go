package bounce

import (
	"net/mail"
	"regexp"
	"strings"
)

// addressPattern finds addresses in free text. It is looser than RFC 5322
// on purpose: bounces quote addresses in every possible decoration.
var addressPattern = regexp.MustCompile(`[A-Za-z0-9._%+=!#$&'*/?^{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+`)

// typedAddress returns the address of a DSN recipient field
// ("rfc822; Alice@Example.ORG"): the address type is removed, xtext
// escapes of '+' and '=' are undone when xtext is set (ORCPT values), angle
// brackets and whitespace are dropped, and the result is lowercased.
func typedAddress(v string, xtext bool) string {
	if semi := strings.IndexByte(v, ';'); semi >= 0 && !strings.ContainsAny(v[:semi], "@<\" ") {
		v = v[semi+1:]
	}
	if xtext {
		v = decodeXtext(v)
	}
	return normalizeAddress(v)
}

// normalizeAddress strips angle brackets, whitespace and a trailing dot
// from an address and lowercases it.
func normalizeAddress(v string) string {
	v = strings.TrimSpace(v)
	if i := strings.IndexByte(v, '<'); i >= 0 {
		if j := strings.IndexByte(v[i:], '>'); j > 0 {
			v = v[i+1 : i+j]
		}
	}
	v = strings.Trim(v, "<> \t\"'")
	return strings.ToLower(strings.TrimSuffix(v, "."))
}

// decodeXtext undoes the xtext escapes (RFC 3461 section 4) that matter
// for the ASCII addresses Carteiro sends: "+2B" is '+', "+3D" is '='.
// Other "+XX" sequences are left alone, so that an already decoded address
// such as "a+AB@x" keeps its plus sign.
func decodeXtext(v string) string {
	if !strings.Contains(v, "+") {
		return v
	}
	r := strings.NewReplacer("+2B", "+", "+2b", "+", "+3D", "=", "+3d", "=")
	return r.Replace(v)
}

// addressList parses an address header (To, X-Failed-Recipients) into
// normalized addresses, falling back to a pattern search when the field is
// not valid RFC 5322 (bare lists, redacted names, broken quoting).
func addressList(v string) []string {
	var out []string
	if list, err := mail.ParseAddressList(v); err == nil {
		for _, a := range list {
			out = appendUnique(out, normalizeAddress(a.Address))
		}
		return out
	}
	for _, a := range addressPattern.FindAllString(v, -1) {
		out = appendUnique(out, normalizeAddress(a))
	}
	return out
}

// mailFrom returns an envelope sender value without angle brackets and
// whitespace, keeping its case: Carteiro's bounce token is case-sensitive.
func mailFrom(v string) string {
	v = strings.TrimSpace(v)
	if i := strings.IndexByte(v, '<'); i >= 0 {
		if j := strings.IndexByte(v[i:], '>'); j > 0 {
			return strings.TrimSpace(v[i+1 : i+j])
		}
	}
	if semi := strings.IndexByte(v, ';'); semi >= 0 && !strings.Contains(v[:semi], "@") {
		v = v[semi+1:] // "rfc822;..." as some generators write it
	}
	if f := strings.Fields(v); len(f) > 0 {
		return strings.Trim(f[0], "<>")
	}
	return ""
}

// messageID returns a Message-ID value without angle brackets: the first
// <...> group, or the first word when there are no brackets.
func messageID(v string) string {
	v = strings.TrimSpace(v)
	if i := strings.IndexByte(v, '<'); i >= 0 {
		if j := strings.IndexByte(v[i:], '>'); j > 0 {
			return strings.TrimSpace(v[i+1 : i+j])
		}
		v = v[i+1:]
	}
	if f := strings.Fields(v); len(f) > 0 {
		return strings.Trim(f[0], "<>")
	}
	return ""
}

// appendUnique appends s to list unless it is empty, already there, or
// the list holds maxRecipients already (which also keeps this linear
// search cheap).
func appendUnique(list []string, s string) []string {
	if s == "" || len(list) >= maxRecipients {
		return list
	}
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
