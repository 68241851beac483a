package mta

import (
	"fmt"
	"os"
	"strings"
)

// heloName validates the configured EHLO name, or picks the machine's host
// name (then "localhost") when none is configured. Direct delivery wants a
// name that resolves back to the sending address; operators set it
// (CARTEIRO_HELO_NAME, D68), and the server passes DefaultHeloName when
// they did not.
func heloName(configured string) (string, error) {
	name := configured
	if name == "" {
		if host, err := os.Hostname(); err == nil {
			name = host
		}
	}
	if name == "" {
		name = "localhost"
	}
	if strings.ContainsAny(name, " \t") || hasControl(name) {
		return "", fmt.Errorf("mta: HELO name %q contains spaces or control characters", name)
	}
	return name, nil
}

// DefaultHeloName is D68's EHLO name when CARTEIRO_HELO_NAME is unset: the
// machine's host name when it is fully qualified (has a dot), else the
// bounce host. A short name such as "vm" is refused by receivers that check
// the HELO (Postfix's reject_non_fqdn_helo_hostname answers 504 5.5.2).
func DefaultHeloName(hostname, bounceHost string) string {
	hostname = strings.TrimSuffix(strings.TrimSpace(hostname), ".")
	if strings.Contains(hostname, ".") {
		return hostname
	}
	return bounceHost
}

// HeloNameProblem says why name is likely refused by receiving servers when
// sending directly (D68): it has no dot, or it ends in .localhost, which
// resolves nowhere but the sender's own machine. "" when it looks usable.
func HeloNameProblem(name string) string {
	name = strings.ToLower(strings.TrimSuffix(name, "."))
	switch {
	case !strings.Contains(name, "."):
		return "it is not a fully qualified name (no dot)"
	case name == "localhost" || strings.HasSuffix(name, ".localhost"):
		return "it ends in .localhost, which no other server resolves"
	}
	return ""
}
