package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/PID/stat; it
// is 100 on every Linux architecture Go runs the benchmark on.
const clockTicks = 100

// memoryStatus reads VmRSS and VmHWM (in bytes) from /proc/PID/status.
func memoryStatus(pid int) (rss, hwm int64, err error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ":")
		if !ok || (key != "VmRSS" && key != "VmHWM") {
			continue
		}
		fields := strings.Fields(value) // "123456 kB"
		if len(fields) != 2 || fields[1] != "kB" {
			return 0, 0, fmt.Errorf("/proc/%d/status: odd %s line %q", pid, key, value)
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("/proc/%d/status: %s: %w", pid, key, err)
		}
		if key == "VmRSS" {
			rss = kb << 10
		} else {
			hwm = kb << 10
		}
	}
	return rss, hwm, nil
}

// cpuTime is the user plus system CPU time a process has used so far, from
// /proc/PID/stat.
func cpuTime(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces; fields after its closing
	// parenthesis start at field 3, so utime (14) and stime (15) are the
	// 12th and 13th.
	_, rest, ok := bytes.Cut(data, []byte(") "))
	fields := strings.Fields(string(rest))
	if !ok || len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

// selfCPUTime is the CPU time the load generator itself has used.
func selfCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// rssSampler records the peak VmRSS of a process, sampled every 250 ms.
type rssSampler struct {
	pid  int
	stop chan struct{}
	done chan struct{}

	mu   sync.Mutex
	peak int64
	err  error
}

func startRSSSampler(pid int) *rssSampler {
	s := &rssSampler{pid: pid, stop: make(chan struct{}), done: make(chan struct{})}
	go s.run()
	return s
}

func (s *rssSampler) run() {
	defer close(s.done)
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		s.sample()
		select {
		case <-s.stop:
			return
		case <-tick.C:
		}
	}
}

func (s *rssSampler) sample() {
	rss, _, err := memoryStatus(s.pid)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.err = err
		return
	}
	s.peak = max(s.peak, rss)
}

// Stop ends sampling and returns the peak seen and the last read error.
func (s *rssSampler) Stop() (int64, error) {
	close(s.stop)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak, s.err
}

// machineCPU is the busy and total time of all CPUs so far, from the first
// line of /proc/stat, so a run can tell whether the machine as a whole
// (server, database, load generator and anything else) was saturated.
// Steal is time the hypervisor gave to other machines: on a shared VM it
// shows how noisy the neighbours were.
type machineCPU struct{ busy, steal, total uint64 }

func readMachineCPU() (machineCPU, error) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return machineCPU{}, err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	fields := strings.Fields(line)
	if len(fields) < 5 || fields[0] != "cpu" {
		return machineCPU{}, fmt.Errorf("/proc/stat: unexpected first line %q", line)
	}
	var m machineCPU
	for i, f := range fields[1:] {
		n, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return machineCPU{}, fmt.Errorf("/proc/stat: %w", err)
		}
		// user nice system idle iowait irq softirq steal; guest and
		// guest_nice that may follow are already counted in user and nice.
		if i >= 8 {
			break
		}
		m.total += n
		switch i {
		case 3, 4: // idle, iowait
		case 7:
			m.steal += n
		default:
			m.busy += n
		}
	}
	return m, nil
}

// since formats the share of all CPUs' time between earlier and m that
// was busy here and that was stolen, as percentages.
func (m machineCPU) since(earlier machineCPU) string {
	busy, steal := m.shares(earlier)
	return fmt.Sprintf("%.0f %% busy, %.0f %% stolen by the hypervisor", busy, steal)
}

func (m machineCPU) shares(earlier machineCPU) (busy, steal float64) {
	if m.total <= earlier.total {
		return 0, 0
	}
	span := float64(m.total - earlier.total)
	return 100 * float64(m.busy-earlier.busy) / span, 100 * float64(m.steal-earlier.steal) / span
}
