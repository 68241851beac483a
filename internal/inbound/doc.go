// Package inbound is the SMTP listener that receives bounces and complaints
// (D55): delivery status notifications and abuse reports addressed to the
// bounce host or to "bounces.<a registered domain>" (the return-path CNAME
// of D31 points those domains here).
//
// The listener only receives; what a message means is the Handler's
// business. It refuses every recipient outside those domains at RCPT, caps
// message size and recipients, rate-limits each client address, and answers
// 451 whenever the Handler cannot take a message, so the sending MTA keeps
// it and tries again.
//
// There is no AUTH (nobody logs in to send bounces) and no STARTTLS: the
// listener sits on an unprivileged port (D56's CARTEIRO_INBOUND_ADDR,
// ":2525" by default) behind port 25 forwarding, and the mail it takes is
// already public-facing DSN traffic that MTAs commonly send in the clear.
// Transport encryption, when wanted, belongs to whatever fronts port 25.
package inbound
