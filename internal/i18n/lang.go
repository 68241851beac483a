// Package i18n holds the message catalogs of the API and dashboard in
// Brazilian Portuguese (the default), English and Spanish, and picks the
// language of a request from its Accept-Language header (D10).
package i18n

import (
	"strconv"
	"strings"

	"golang.org/x/text/language"
)

// Lang is a language the catalogs are written in. Its value is the BCP 47 tag
// that responses send back in Content-Language.
type Lang string

// The supported languages (D10).
const (
	PtBR Lang = "pt-BR"
	En   Lang = "en"
	Es   Lang = "es"
)

// Default is the language used when a request states no usable preference.
const Default = PtBR

// Langs lists the supported languages, the default first.
func Langs() []Lang { return []Lang{PtBR, En, Es} }

// Match picks the response language for an Accept-Language header (D10).
// Only the primary language subtag matters, so every Portuguese variant (pt,
// pt-PT, pt-BR) gets pt-BR, every Spanish one (es-MX, es-419) gets es and every
// English one gets en. Among the ranges the client accepts, the one with the
// highest q-value wins, the earlier one on a tie; "*" stands for the default.
// Malformed ranges are skipped rather than spoiling the whole header, and when
// nothing usable is left the answer is pt-BR.
func Match(acceptLanguage string) Lang {
	best, bestQ := Default, 0.0
	for _, part := range strings.Split(acceptLanguage, ",") {
		lang, q, ok := parseRange(part)
		// q=0 means "not acceptable" (RFC 9110 12.5.4), so it never wins.
		if ok && q > bestQ {
			best, bestQ = lang, q
		}
	}
	return best
}

// parseRange reads one language range such as "pt-PT;q=0.8" and reports the
// supported language it maps to with its weight; ok is false for ranges that
// are malformed or name an unsupported language.
func parseRange(part string) (lang Lang, q float64, ok bool) {
	tag, params, _ := strings.Cut(strings.TrimSpace(part), ";")
	q = 1
	if params != "" {
		name, value, found := strings.Cut(strings.TrimSpace(params), "=")
		if !found || !strings.EqualFold(strings.TrimSpace(name), "q") {
			return "", 0, false
		}
		weight, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil || weight < 0 || weight > 1 {
			return "", 0, false
		}
		q = weight
	}
	tag = strings.TrimSpace(tag)
	if tag == "*" {
		return Default, q, true
	}
	primary, _, _ := strings.Cut(strings.ReplaceAll(tag, "_", "-"), "-")
	base, err := language.ParseBase(primary)
	if err != nil {
		return "", 0, false
	}
	switch base.String() {
	case "pt":
		return PtBR, q, true
	case "en":
		return En, q, true
	case "es":
		return Es, q, true
	}
	return "", 0, false
}
