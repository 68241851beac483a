// Package webhook is the delivery engine of webhooks (spec 2.11, 2.12, 6;
// D47 to D52): it signs payloads (D48), decides whether a URL may be
// registered (D51), sends one attempt through an HTTP client that refuses
// non-public addresses at connect time (D51), and computes when the next
// attempt is due (D49) and when a failing webhook is disabled (D50).
//
// It knows nothing of storage or of the HTTP API: the use cases build the
// payload, store deliveries and call Client.Send once per attempt.
package webhook
