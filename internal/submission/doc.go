// Package submission is the SMTP submission listener of D74: mail clients,
// CMSs and MTAs (a Postfix smarthost) send through Carteiro over SMTP,
// authenticated with an API key, and each message is accepted by the same
// use case as POST /emails (app.SendEmail), so it gets the same checks,
// timeline, webhooks and stats.
//
// Two listeners share one backend: CARTEIRO_SUBMISSION_ADDR speaks
// STARTTLS, CARTEIRO_SUBMISSIONS_ADDR implicit TLS. AUTH PLAIN and LOGIN
// are offered only over TLS, or to loopback clients (a local MTA or app on
// the same host) without it. The reply to DATA comes after the commit.
package submission
