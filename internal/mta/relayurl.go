package mta

import (
	"fmt"
	"net"
	"net/url"
)

// tlsMode is how a relay connection is protected (D56).
type tlsMode int

const (
	tlsStartTLS tlsMode = iota // smtp://: STARTTLS required
	tlsImplicit                // smtps://: TLS from the first byte
	tlsNone                    // smtp+plain://: clear text
)

// relayTarget is a parsed CARTEIRO_RELAY_URL.
type relayTarget struct {
	mode       tlsMode
	host, port string
	user, pass string
	auth       bool
}

// addr is host:port.
func (t relayTarget) addr() string { return net.JoinHostPort(t.host, t.port) }

// parseRelayURL reads smtp://[user:pass@]host[:port] (default port 587),
// smtps://... (465) or smtp+plain://... (25). Userinfo turns on AUTH PLAIN;
// its parts are URL-decoded, so a password may hold any character.
func parseRelayURL(raw string) (relayTarget, error) {
	u, err := url.Parse(raw)
	if err != nil {
		// url.Parse quotes the whole URL, credentials included; do not.
		return relayTarget{}, fmt.Errorf("mta: relay URL is not a valid URL")
	}
	var t relayTarget
	var defaultPort string
	switch u.Scheme {
	case "smtp":
		t.mode, defaultPort = tlsStartTLS, "587"
	case "smtps":
		t.mode, defaultPort = tlsImplicit, "465"
	case "smtp+plain":
		t.mode, defaultPort = tlsNone, "25"
	default:
		return relayTarget{}, fmt.Errorf("mta: relay URL scheme %q is not smtp, smtps or smtp+plain", u.Scheme)
	}
	if u.Opaque != "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return relayTarget{}, fmt.Errorf("mta: relay URL must be scheme://[user:pass@]host[:port] with no path or query")
	}
	t.host, t.port = u.Hostname(), u.Port()
	if t.host == "" {
		return relayTarget{}, fmt.Errorf("mta: relay URL has no host")
	}
	if t.port == "" {
		t.port = defaultPort
	}
	if u.User != nil {
		t.user = u.User.Username()
		t.pass, _ = u.User.Password()
		t.auth = true
		if hasBreakOrNUL(t.user) {
			return relayTarget{}, fmt.Errorf("mta: relay user name contains CR, LF or NUL")
		}
	}
	return t, nil
}
