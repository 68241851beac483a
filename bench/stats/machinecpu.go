package main

import (
	"os"
	"strconv"
	"strings"
)

// cpuTicks is the machine's CPU time from /proc/stat's "cpu" line: busy
// and total ticks over all cores. The difference of two samples says how
// busy the whole machine was (this process, the database server and any
// neighbours), which tells a CPU-bound run from one that waits.
type cpuTicks struct{ Busy, Total uint64 }

func machineTicks() (cpuTicks, bool) {
	raw, err := os.ReadFile("/proc/stat")
	if err != nil {
		return cpuTicks{}, false
	}
	line, _, _ := strings.Cut(string(raw), "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return cpuTicks{}, false
	}
	var t cpuTicks
	for i, s := range f[1:] {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return cpuTicks{}, false
		}
		t.Total += v
		if i != 3 && i != 4 { // idle and iowait
			t.Busy += v
		}
	}
	return t, true
}

// busyShare is the fraction of all cores busy between a and b, or -1.
func busyShare(a, b cpuTicks, okA, okB bool) float64 {
	if !okA || !okB || b.Total <= a.Total {
		return -1
	}
	return float64(b.Busy-a.Busy) / float64(b.Total-a.Total)
}
