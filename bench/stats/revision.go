package main

import (
	"os/exec"
	"strings"
)

// sourceRevision names the commit the service was built from, and says so
// when its code (internal/, cmd/, the root package, go.mod) has changes not
// yet committed: other engineers work in the same tree, so a figure must
// say which code it measured. Read-only git commands only.
func sourceRevision() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown (not a git work tree)"
	}
	rev := strings.TrimSpace(string(out))
	status, err := exec.Command("git", "status", "--porcelain", "--", "internal", "cmd", ":(glob)*.go", "go.mod").Output()
	if err == nil && len(strings.TrimSpace(string(status))) > 0 {
		rev += " with uncommitted changes to the service code"
	}
	return rev
}
