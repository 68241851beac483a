// Package inbound is the SMTP listener that receives bounces and complaints
// (D55): delivery status notifications and abuse reports addressed to the
// bounce host or to "bounces.<a registered domain>" (the return-path CNAME
// of D31 points those domains here); and the mail of domains whose inbound
// is on (D75).
//
// The listener only receives; what a message means, and which domains are
// served, is the Handler's business. It refuses every recipient outside
// those domains at RCPT (never an open relay), caps message size and
// recipients, limits each client address's connections and message rate,
// and answers 451 whenever the Handler cannot take a message, so the
// sending MTA keeps it and tries again.
//
// There is no AUTH (nobody logs in to send here). STARTTLS is offered when
// Options.TLS is set: mail for customers' domains deserves the
// opportunistic encryption MTAs use. The listener sits on an unprivileged
// port (D56's CARTEIRO_INBOUND_ADDR, ":2525" by default) behind port 25
// forwarding.
package inbound
