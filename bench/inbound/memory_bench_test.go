package inbound

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/carteiro/carteiro/bench/internal/machine"
)

// BenchmarkReceiveMemory is BenchmarkReceive20KB16Connections with the
// process's memory sampled over the run, for the issue's "memory flat over
// 100,000 messages": resident memory (VmRSS) and the Go heap in use, every
// tenth of the run, as messages are answered 250. The server, the 16 SMTP
// clients and the webhook receiver share the process, so the figures
// count all three; what matters is whether they grow with the messages.
//
// Run: go test -run '^$' -bench ReceiveMemory -benchtime 100000x -timeout 2h ./bench/inbound/
//
// With BENCH_HEAP_PROFILES=<dir> it also writes the heap profile of the
// running process at each tenth (<dir>/heap-<messages>.pprof), so that
// `go tool pprof -base` shows what grew between two of them while the
// server was running (a -memprofile is taken once it has stopped).
func BenchmarkReceiveMemory(b *testing.B) {
	receiveWith(b, true, true)
}

// memorySample is the process's memory once done messages were answered.
type memorySample struct {
	done           int64
	rss, heapInuse uint64
	// anon and file split rss: anonymous memory (Go heap, C allocations
	// such as SQLite's page cache) and pages of mapped files (SQLite maps
	// its database and WAL index), which the kernel takes back at will.
	anon, file uint64
	at         time.Duration
}

// memorySampler records a sample each time another tenth of total
// messages is answered, checking every interval, and the highest heap in
// use seen at any check.
type memorySampler struct {
	total int64
	done  *atomic.Int64
	start time.Time
	stop  chan struct{}
	wg    sync.WaitGroup

	samples  []memorySample
	maxHeap  uint64
	maxRSS   uint64
	firstErr error
}

func startMemorySampler(total int64, done *atomic.Int64, every time.Duration) *memorySampler {
	s := &memorySampler{total: total, done: done, start: time.Now(), stop: make(chan struct{})}
	s.wg.Go(func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		next := int64(0) // the next tenth to record
		for {
			select {
			case <-s.stop:
				return
			case <-tick.C:
			}
			n := done.Load()
			m := s.read(n)
			if n*10 >= next*total && next <= 10 {
				s.samples = append(s.samples, m)
				s.writeHeapProfile(n)
				for n*10 >= next*total {
					next++
				}
			}
		}
	})
	return s
}

// writeHeapProfile writes the heap profile at done messages into
// BENCH_HEAP_PROFILES, when that is set.
func (s *memorySampler) writeHeapProfile(done int64) {
	dir := os.Getenv("BENCH_HEAP_PROFILES")
	if dir == "" {
		return
	}
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("heap-%d.pprof", done)))
	if err == nil {
		err = pprof.Lookup("heap").WriteTo(f, 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil && s.firstErr == nil {
		s.firstErr = err
	}
}

// read takes one sample; ReadMemStats stops the world for well under a
// millisecond, once an interval.
func (s *memorySampler) read(done int64) memorySample {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rss, _, err := machine.MemoryStatus(os.Getpid())
	if err != nil && s.firstErr == nil {
		s.firstErr = err
	}
	m := memorySample{done: done, rss: uint64(rss), heapInuse: ms.HeapInuse, at: time.Since(s.start)}
	m.anon, m.file = rssSplit()
	s.maxHeap, s.maxRSS = max(s.maxHeap, m.heapInuse), max(s.maxRSS, m.rss)
	return m
}

// finish stops sampling, takes the last sample (every message answered and
// its webhook delivered) and reports the series.
func (s *memorySampler) finish(b *testing.B) {
	close(s.stop)
	s.wg.Wait()
	s.samples = append(s.samples, s.read(s.done.Load()))
	if s.firstErr != nil {
		b.Fatal(s.firstErr)
	}
	for _, m := range s.samples {
		b.Logf("memory: %7d messages  %6s  RSS %4d MiB (anon %4d, file %4d)  heap in use %4d MiB",
			m.done, m.at.Round(time.Second), m.rss>>20, m.anon>>20, m.file>>20, m.heapInuse>>20)
	}
	at := func(tenth int64) memorySample {
		for _, m := range s.samples {
			if m.done*10 >= tenth*s.total {
				return m
			}
		}
		return s.samples[len(s.samples)-1]
	}
	for _, tenth := range []int64{1, 5, 10} {
		m := at(tenth)
		b.ReportMetric(float64(m.rss)/(1<<20), fmt.Sprintf("rssMB-at-%d%%", tenth*10))
		b.ReportMetric(float64(m.heapInuse)/(1<<20), fmt.Sprintf("heapMB-at-%d%%", tenth*10))
		b.ReportMetric(float64(m.anon)/(1<<20), fmt.Sprintf("anonMB-at-%d%%", tenth*10))
	}
	b.ReportMetric(float64(s.maxRSS)/(1<<20), "rssMB-max")
	b.ReportMetric(float64(s.maxHeap)/(1<<20), "heapMB-max")
}

// rssSplit reads RssAnon and RssFile (bytes) of this process, zeros where
// /proc does not have them.
func rssSplit() (anon, file uint64) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		key, value, _ := strings.Cut(line, ":")
		fields := strings.Fields(value)
		if len(fields) != 2 {
			continue
		}
		kb, err := strconv.ParseUint(fields[0], 10, 64)
		if err != nil {
			continue
		}
		switch key {
		case "RssAnon":
			anon = kb << 10
		case "RssFile":
			file = kb << 10
		}
	}
	return anon, file
}
