package mta

import (
	"fmt"
	"os"
	"strings"
)

// heloName validates the configured EHLO name, or picks the machine's host
// name (then "localhost") when none is configured. Direct delivery wants a
// name that resolves back to the sending address; operators set it.
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
