package testutil

import (
	"maps"
	"time"
)

// SMTPOption configures NewSMTPServer.
type SMTPOption func(*smtpConfig)

// smtpConfig is what the options set. The fault part is also what Reset
// restores, so a reset server behaves as it did when created.
type smtpConfig struct {
	tls             bool
	authUser        string
	authPass        string
	maxMessageBytes int64
	// refuseShortHelo answers RCPT 504 5.5.2 when the EHLO name has no dot.
	refuseShortHelo bool
	faults          smtpFaults
	// listenAddr is where to listen (WithListenAddr); "" is 127.0.0.1:0.
	listenAddr string
}

// smtpFaults are the misbehaviours that can change while the server runs.
type smtpFaults struct {
	stalls         map[Stage]time.Duration
	dropDuringData bool
}

func (f smtpFaults) clone() smtpFaults {
	return smtpFaults{stalls: maps.Clone(f.stalls), dropDuringData: f.dropDuringData}
}

// WithTLS offers STARTTLS with a certificate for 127.0.0.1, ::1 and localhost
// signed by a CA of this server only; trust it with SMTPServer.CertPool.
// TLS stays optional: clients that do not upgrade are still served.
func WithTLS() SMTPOption {
	return func(c *smtpConfig) { c.tls = true }
}

// WithAuth offers AUTH PLAIN and requires it before MAIL FROM: the server
// behaves like a relay smarthost (D3). Authentication is allowed without TLS
// so tests need not combine the two.
func WithAuth(user, pass string) SMTPOption {
	return func(c *smtpConfig) { c.authUser, c.authPass = user, pass }
}

// WithMaxMessageBytes advertises SIZE n and rejects larger messages with
// 552 5.3.4.
func WithMaxMessageBytes(n int64) SMTPOption {
	return func(c *smtpConfig) { c.maxMessageBytes = n }
}

// RefuseNonFQDNHelo makes the server behave like Postfix with
// reject_non_fqdn_helo_hostname and delayed rejects (smtpd_delay_reject,
// its default): the session goes on, and every RCPT TO is answered
// "504 5.5.2 <name>: Helo command rejected: need fully-qualified hostname"
// when the EHLO name has no dot (D68).
func RefuseNonFQDNHelo() SMTPOption {
	return func(c *smtpConfig) { c.refuseShortHelo = true }
}

// StallAfter makes the server stay silent for d at stage (see
// SMTPServer.SetStall) on every connection.
func StallAfter(stage Stage, d time.Duration) SMTPOption {
	return func(c *smtpConfig) {
		if c.faults.stalls == nil {
			c.faults.stalls = make(map[Stage]time.Duration)
		}
		c.faults.stalls[stage] = d
	}
}

// DropDuringData makes the server close every connection in the middle of
// DATA (see SMTPServer.SetDropDuringData).
func DropDuringData() SMTPOption {
	return func(c *smtpConfig) { c.faults.dropDuringData = true }
}
