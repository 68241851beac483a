package main

import (
	"debug/buildinfo"
	"os/exec"
	"runtime"
	"strconv"
	"strings"

	"github.com/carteiro/carteiro/bench/internal/machine"
)

// machineInfo describes where the numbers were taken.
type machineInfo struct {
	CPUs     string // as nproc prints it
	CPUModel string
	MemGiB   float64
	Go       string
	Tree     string // commit of the server binary, "+ local changes" when dirty
}

func describeMachine(bin string) machineInfo {
	m := machineInfo{Tree: sourceTree(bin), CPUs: strconv.Itoa(runtime.NumCPU()), Go: runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH}
	if out, err := exec.Command("nproc").Output(); err == nil {
		m.CPUs = strings.TrimSpace(string(out))
	}
	m.CPUModel = machine.ProcField("/proc/cpuinfo", "model name")
	if kb, err := strconv.ParseFloat(strings.TrimSuffix(machine.ProcField("/proc/meminfo", "MemTotal"), " kB"), 64); err == nil {
		m.MemGiB = kb / (1 << 20)
	}
	return m
}

// sourceTree names the commit the server binary was built from, read from
// the build information Go stamps into it (vcs.revision, vcs.modified).
func sourceTree(bin string) string {
	info, err := buildinfo.ReadFile(bin)
	if err != nil {
		return gitTree()
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return gitTree()
	}
	tree := "commit " + rev[:min(len(rev), 7)]
	if dirty {
		tree += " + local changes"
	}
	return tree
}

// gitTree describes the working directory's checkout, for a binary built
// without VCS stamps (GOFLAGS=-buildvcs=false).
func gitTree() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	tree := "commit " + strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(st) > 0 {
		tree += " + local changes"
	}
	return "not stamped in the binary; the working directory is at " + tree
}
