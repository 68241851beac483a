package machine

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// MemoryStatus reads VmRSS and VmHWM (in bytes) from /proc/PID/status.
func MemoryStatus(pid int) (rss, hwm int64, err error) {
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

// RSSSampler records the peak VmRSS of a process, sampled at an interval.
type RSSSampler struct {
	pid   int
	every time.Duration
	stop  chan struct{}
	done  chan struct{}

	mu   sync.Mutex
	peak int64
	err  error
}

// StartRSSSampler samples pid every interval until Stop.
func StartRSSSampler(pid int, every time.Duration) *RSSSampler {
	s := &RSSSampler{pid: pid, every: every, stop: make(chan struct{}), done: make(chan struct{})}
	go s.run()
	return s
}

func (s *RSSSampler) run() {
	defer close(s.done)
	tick := time.NewTicker(s.every)
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

func (s *RSSSampler) sample() {
	rss, _, err := MemoryStatus(s.pid)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.err = err
		return
	}
	s.peak = max(s.peak, rss)
}

// Stop ends sampling and returns the peak seen and the last read error.
func (s *RSSSampler) Stop() (int64, error) {
	close(s.stop)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak, s.err
}
