package main

import (
	"bufio"
	"os"
	"runtime"
	"strings"
)

// machine describes where a result was measured; a shared machine's load
// average at the start tells how noisy the figures may be.
type machine struct {
	CPUs     int
	Model    string
	Go       string
	Platform string
	LoadAvg  string
	Revision string
}

func describeMachine() machine {
	m := machine{CPUs: runtime.NumCPU(), Model: cpuModel(), Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH,
		LoadAvg: "unknown", Revision: sourceRevision()}
	if raw, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(raw)); len(f) >= 3 {
			m.LoadAvg = strings.Join(f[:3], " ")
		}
	}
	return m
}

// cpuModel reads the first "model name" of /proc/cpuinfo.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// loadAverage is the 1-minute load average now, or "?".
func loadAverage() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	if f := strings.Fields(string(raw)); len(f) > 0 {
		return f[0]
	}
	return "?"
}
