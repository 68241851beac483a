package worker

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
)

// confine puts the worker under its memory bound (D61). RLIMIT_DATA caps
// the process's private writable memory, which is where Go keeps its heap
// and goroutine stacks: the kernel refuses a mapping past it, the Go
// runtime then dies with "out of memory", and the parent answers the render
// with the memory limit. The limit is the worker's data size once warm
// (runtime, engine and Tailwind loaded) plus headroom: one render's memory
// and room for the templates it keeps. Unlike a watcher it also stops an allocation made
// inside a native built-in (new Array(1e9).fill(1), "x".repeat(n), ...),
// which never returns to the interpreter. RLIMIT_AS would count the address
// space Go reserves without using. The soft memory limit below it makes the
// collector work hard before the kernel has to say no, so a render that
// allocates a lot but keeps little is not killed.
func confine(headroom int64) (dataLimit int64, err error) {
	if headroom <= 0 {
		return 0, nil
	}
	data, err := vmData()
	if err != nil {
		return 0, err
	}
	dataLimit = data + headroom
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	debug.SetMemoryLimit(int64(m.Sys-m.HeapReleased) + headroom*3/4)
	// A goroutine's stack is heap memory too: a deep Go recursion reaches
	// the stack bound before the memory limit.
	debug.SetMaxStack(int(min(headroom/2, 256<<20)))
	lim := syscall.Rlimit{Cur: uint64(dataLimit), Max: uint64(dataLimit)}
	if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &lim); err != nil {
		return 0, fmt.Errorf("setrlimit RLIMIT_DATA: %w", err)
	}
	return dataLimit, nil
}

// vmData is the process's data size as the kernel counts it for
// RLIMIT_DATA (VmData in /proc/self/status).
func vmData() (int64, error) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmData:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("read VmData: %w", err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("no VmData in /proc/self/status")
}
