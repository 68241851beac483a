// Package health computes the domain health diagnostic of D33: DNSBL
// look-ups of the sending IPs and of the domain, and a deterministic score
// with recommendations built from the record checks of D32, the blocklist
// listings and the sending metrics of the last 30 days.
//
// The package is pure apart from the DNS look-ups of CheckBlocklists: the
// caller gathers the checks, listings and metrics and passes them to
// Evaluate, which turns them into a score and recommendations whose messages
// the caller localizes with the i18n catalog (ids "health.<code>").
package health
