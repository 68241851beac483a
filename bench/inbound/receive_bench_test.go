// Package inbound measures receiving mail (issue 28, D75): 20 KB messages
// over 16 concurrent STARTTLS connections to the inbound listener of a real
// server on SQLite, each answered 250 only once committed with its
// email.received webhook job, and counted done when the webhook receiver
// has it. Target: at least 500 messages per second, memory flat.
//
// Run: go test -run '^$' -bench Receive -benchtime 20000x ./bench/inbound/
package inbound

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"net/smtp"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/testserver"
	"github.com/carteiro/carteiro/internal/testutil"
)

const (
	connections = 16
	messageSize = 20 << 10
)

// message is a 20 KB plain message to rcpt.
func message(rcpt string, n int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "From: sender@sender.example\r\nTo: %s\r\nSubject: bench %d\r\nMessage-ID: <bench-%d@sender.example>\r\n\r\n", rcpt, n, n)
	line := strings.Repeat("x", 76) + "\r\n"
	for b.Len() < messageSize {
		b.WriteString(line)
	}
	return []byte(b.String())
}

func BenchmarkReceive20KB16Connections(b *testing.B) {
	receive(b, true)
}

// BenchmarkReceiveWithoutWebhook is the same without a webhook subscribed:
// what receiving alone costs, against the run above.
func BenchmarkReceiveWithoutWebhook(b *testing.B) {
	receive(b, false)
}

func receive(b *testing.B, withWebhook bool) {
	receiveWith(b, withWebhook, false)
}

// receiveWith runs the bench; sampleMemory records the process's memory
// over the run (BenchmarkReceiveMemory).
func receiveWith(b *testing.B, withWebhook, sampleMemory bool) {
	var hooks atomic.Int64
	rcv := testutil.NewTLSReceiver(b, func(w http.ResponseWriter, _ *http.Request) {
		hooks.Add(1)
		w.WriteHeader(http.StatusOK)
	})
	ts := testserver.StartServer(b, testserver.SQLite, map[string]string{
		"CARTEIRO_INBOUND_ADDR": "127.0.0.1:0", "CARTEIRO_INBOUND_HOST": "mx.carteiro.test",
		"CARTEIRO_INBOUND_RATE_LIMIT_IP": "1000000,1000000", "CARTEIRO_INBOUND_CONNECTIONS_PER_IP": "64",
		"CARTEIRO_WEBHOOK_ALLOW_PRIVATE": "true", "CARTEIRO_WEBHOOK_CA_FILE": rcv.CAFile(),
	})
	setUpDomain(b, ts, rcv.URL(), withWebhook)
	// Every message asks the DNS server for SPF, DKIM and DMARC records;
	// its query log would grow with the run and count in its memory.
	ts.DNS.StopRecordingQueries()

	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	cpuBefore := cpuTime(b)
	diskBefore := diskWrites()
	b.ResetTimer()
	start := time.Now()
	var next, done atomic.Int64
	var mem *memorySampler
	if sampleMemory {
		mem = startMemorySampler(int64(b.N), &done, time.Second)
	}
	var wg sync.WaitGroup
	errs := make(chan error, connections)
	for c := 0; c < connections; c++ {
		wg.Go(func() { errs <- sendMany(ts.InboundAddr(), &next, &done, int64(b.N)) })
	}
	// The receiver keeps every request it gets; forget them as they come.
	stopReset := make(chan struct{})
	go func() {
		for {
			select {
			case <-stopReset:
				return
			case <-time.After(200 * time.Millisecond):
				rcv.Reset()
			}
		}
	}()
	wg.Wait()
	accepted := time.Since(start)
	close(errs)
	for err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
	for withWebhook && hooks.Load() < int64(b.N) {
		// Counted from the last 250, not the start: a long run (100,000
		// messages for BenchmarkReceiveMemory) takes that long to send.
		if time.Since(start) > accepted+30*time.Minute {
			b.Fatalf("webhooks: %d of %d 30 minutes after the last message", hooks.Load(), b.N)
		}
		time.Sleep(20 * time.Millisecond)
	}
	delivered := time.Since(start)
	b.StopTimer()
	if mem != nil {
		mem.finish(b)
	}
	cpu := cpuTime(b) - cpuBefore
	disk := diskWrites() - diskBefore
	close(stopReset)
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(b.N)/accepted.Seconds(), "accepted/s")
	b.ReportMetric(float64(b.N)/delivered.Seconds(), "delivered/s")
	b.ReportMetric(float64(after.HeapInuse)/(1<<20), "heapMB-after")
	b.ReportMetric(float64(before.HeapInuse)/(1<<20), "heapMB-before")
	// CPU per message varies far less than the rate with the load other
	// processes put on a shared machine; it counts the whole process:
	// server, the 16 clients and the webhook receiver.
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/msg")
	// Bytes the process sent to the disk (database, WAL and checkpoints)
	// per message: what the shared commit's fsync waits on, and far less
	// noisy than the rate.
	if diskBefore >= 0 && disk >= 0 {
		b.ReportMetric(float64(disk)/1024/float64(b.N), "disk-KB/msg")
	}
}

// diskWrites is the bytes this process has caused to be written to
// storage (write_bytes of /proc/self/io), -1 where that is not available.
func diskWrites() int64 {
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "write_bytes: "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return -1
			}
			return n
		}
	}
	return -1
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// sendMany sends messages over one STARTTLS connection, taking numbers
// from next until total are sent, and counts in done those answered 250.
func sendMany(addr string, next, done *atomic.Int64, total int64) error {
	c, err := smtp.Dial(addr)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Hello("mail.sender.example"); err != nil {
		return err
	}
	if err := c.StartTLS(&tls.Config{InsecureSkipVerify: true}); err != nil { //nolint:gosec // opportunistic TLS, as MTAs
		return err
	}
	for {
		n := next.Add(1)
		if n > total {
			return c.Quit()
		}
		rcpt := fmt.Sprintf("box%d@shop.example", n%100)
		if err := c.Mail("sender@sender.example"); err != nil {
			return fmt.Errorf("message %d: %w", n, err)
		}
		if err := c.Rcpt(rcpt); err != nil {
			return fmt.Errorf("message %d: %w", n, err)
		}
		w, err := c.Data()
		if err != nil {
			return fmt.Errorf("message %d: %w", n, err)
		}
		if _, err := w.Write(message(rcpt, int(n))); err != nil {
			return err
		}
		if err := w.Close(); err != nil {
			return fmt.Errorf("message %d: %w", n, err)
		}
		done.Add(1)
	}
}

// setUpDomain registers shop.example, publishes its records, verifies it,
// turns inbound on and, withWebhook, subscribes a webhook to email.received.
func setUpDomain(b *testing.B, ts *testserver.TestServer, hookURL string, withWebhook bool) {
	r := ts.Do(b, testserver.Request{Method: "POST", Path: "/v1/product/domains", Key: ts.LiveKey, Body: map[string]any{"name": "shop.example"}})
	testserver.Expect(b, r, http.StatusCreated, "")
	var d struct {
		ID      string `json:"id"`
		Records []struct{ Type, Host, Value string }
	}
	if err := json.Unmarshal(r.Body, &d); err != nil {
		b.Fatal(err)
	}
	for _, rec := range d.Records {
		if rec.Type == "CNAME" {
			ts.DNS.SetCNAME(rec.Host, rec.Value)
		} else {
			ts.DNS.SetTXT(rec.Host, rec.Value)
		}
	}
	r = ts.Do(b, testserver.Request{Method: "POST", Path: "/v1/product/domains/" + d.ID + "/verify", Key: ts.LiveKey})
	testserver.Must(b, strings.Contains(string(r.Body), `"status":"verified"`), "verify: %s", r.Body)
	r = ts.Do(b, testserver.Request{Method: "POST", Path: "/v1/product/domains/" + d.ID + "/inbound", Key: ts.LiveKey, Body: map[string]any{"enabled": true}})
	testserver.Expect(b, r, http.StatusOK, "")
	if !withWebhook {
		return
	}
	r = ts.Do(b, testserver.Request{Method: "POST", Path: "/v1/product/webhooks", Key: ts.LiveKey,
		Body: map[string]any{"url": hookURL, "events": []string{"email.received"}, "secret": "bench-secret-0123456789abcdef"}})
	testserver.Expect(b, r, http.StatusCreated, "")
}
