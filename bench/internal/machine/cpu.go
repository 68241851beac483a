package machine

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/PID/stat; it
// is 100 on every Linux architecture Go runs the benchmarks on.
const clockTicks = 100

// SelfCPU is the CPU time this process (the benchmark, and the service
// when it runs in-process) has used so far.
func SelfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ProcessCPU is the user plus system CPU time process pid has used so far,
// from /proc/PID/stat.
func ProcessCPU(pid int) (time.Duration, error) {
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

// CPU is the busy, stolen and total time of all CPUs so far, from the
// first line of /proc/stat, so a run can tell whether the machine as a
// whole (service, database, load generator and anything else) was
// saturated. Steal is time the hypervisor gave to other machines: on a
// shared VM it shows how noisy the neighbours were.
type CPU struct{ Busy, Steal, Total uint64 }

// ReadCPU samples /proc/stat.
func ReadCPU() (CPU, error) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return CPU{}, err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	fields := strings.Fields(line)
	if len(fields) < 5 || fields[0] != "cpu" {
		return CPU{}, fmt.Errorf("/proc/stat: unexpected first line %q", line)
	}
	var m CPU
	for i, f := range fields[1:] {
		n, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return CPU{}, fmt.Errorf("/proc/stat: %w", err)
		}
		// user nice system idle iowait irq softirq steal; guest and
		// guest_nice that may follow are already counted in user and nice.
		if i >= 8 {
			break
		}
		m.Total += n
		switch i {
		case 3, 4: // idle, iowait
		case 7:
			m.Steal += n
		default:
			m.Busy += n
		}
	}
	return m, nil
}

// Since formats the share of all CPUs' time between earlier and m that
// was busy here and that was stolen, as percentages.
func (m CPU) Since(earlier CPU) string {
	busy, steal := m.Shares(earlier)
	return fmt.Sprintf("%.0f %% busy, %.0f %% stolen by the hypervisor", busy, steal)
}

// Shares are the percentages of all CPUs' time between earlier and m that
// were busy and stolen; 0, 0 when no time passed.
func (m CPU) Shares(earlier CPU) (busy, steal float64) {
	if m.Total <= earlier.Total {
		return 0, 0
	}
	span := float64(m.Total - earlier.Total)
	return 100 * float64(m.Busy-earlier.Busy) / span, 100 * float64(m.Steal-earlier.Steal) / span
}

// BusyFraction is the fraction (0 to 1) of all cores not idle between
// samples a and b, time stolen by neighbours included, or -1 when either
// sample failed or no time passed.
func BusyFraction(a, b CPU, errA, errB error) float64 {
	if errA != nil || errB != nil || b.Total <= a.Total {
		return -1
	}
	busy, steal := b.Shares(a)
	return (busy + steal) / 100
}
