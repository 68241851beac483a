// Package carteiro holds the domain of the Carteiro email service: its types,
// their statuses and transitions, and the one Error type with stable codes.
// It knows neither HTTP nor SQL; adapters live under internal/ and are wired
// together only in cmd/carteiro.
package carteiro
