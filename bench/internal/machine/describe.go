// Package machine reads what a benchmark reports about where it ran and
// what the machine and its processes spent: CPU model, load average, the
// commit measured, CPU time and resident memory from /proc.
package machine

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// Description says where a result was measured; a shared machine's load
// average at the start tells how noisy the figures may be.
type Description struct {
	CPUs     int
	Model    string
	Go       string
	Platform string
	LoadAvg  string
	Revision string
}

// Describe describes this machine now, for a service built into the
// benchmark's own process (its revision is the work tree's).
func Describe() Description {
	d := Description{CPUs: runtime.NumCPU(), Model: ProcField("/proc/cpuinfo", "model name"), Go: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH, LoadAvg: "unknown", Revision: SourceRevision()}
	if raw, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(raw)); len(f) >= 3 {
			d.LoadAvg = strings.Join(f[:3], " ")
		}
	}
	return d
}

// Summary is the report's machine row: CPUs, model, platform and the load
// average at the start and (loadAtEnd) at the end.
func (d Description) Summary(loadAtEnd string) string {
	return fmt.Sprintf("%d CPUs, %s, %s; load average %s at start, %s at end", d.CPUs, d.Model, d.Platform, d.LoadAvg, loadAtEnd)
}

// Code is the report's row on what was measured: Go version and commit.
func (d Description) Code() string { return fmt.Sprintf("%s, commit %s", d.Go, d.Revision) }

// LoadAverage is the 1-minute load average now, or "?".
func LoadAverage() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	if f := strings.Fields(string(raw)); len(f) > 0 {
		return f[0]
	}
	return "?"
}

// ProcField returns the value of the first "key : value" line of a /proc
// file, or "unknown".
func ProcField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// SourceRevision names the commit the service was built from, and says so
// when its code (internal/, cmd/, the root package, go.mod) has changes not
// yet committed: other engineers work in the same tree, so a figure must
// say which code it measured. Read-only git commands only.
func SourceRevision() string {
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
