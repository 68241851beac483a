package dnscheck

import (
	"strings"
	"unicode"
)

// tag is one "name=value" pair of a DKIM or DMARC record.
type tag struct {
	name, value string
}

// parseTags splits a tag list (RFC 6376 section 3.2) into pairs, trimming
// the whitespace allowed around names and values and dropping the empty
// element a trailing ";" leaves. Elements without "=" are kept with an empty
// value so they still count as present.
func parseTags(record string) []tag {
	var tags []tag
	for _, element := range strings.Split(record, ";") {
		element = strings.TrimSpace(element)
		if element == "" {
			continue
		}
		name, value, _ := strings.Cut(element, "=")
		tags = append(tags, tag{name: strings.TrimSpace(name), value: strings.TrimSpace(value)})
	}
	return tags
}

// tagValue returns the value of the first tag called name. Tag names are
// case-sensitive (RFC 6376 section 3.2).
func tagValue(tags []tag, name string) (string, bool) {
	for _, t := range tags {
		if t.name == name {
			return t.value, true
		}
	}
	return "", false
}

// removeSpace drops all whitespace, which RFC 6376 allows inside the base64
// of p= (and which zone editors insert when they wrap long values).
func removeSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}
