package mta

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/carteiro/carteiro/internal/dnscheck"
	"github.com/carteiro/carteiro/internal/testutil"
)

// mxFarm is the D80 harness: one in-process SMTP server per destination,
// each on its own loopback address and all on one port (Direct reaches
// every exchanger on one port), published in an in-process DNS server.
// Destination i is "dest-<i>.test", its exchanger "mx.dest-<i>.test"; the
// recipient domains passed to addDomains point at it.
type mxFarm struct {
	dns     *testutil.DNSServer
	servers []*testutil.SMTPServer
	port    int
}

// farmIP is destination i's loopback address.
func farmIP(i int) string { return "127.0.0." + strconv.Itoa(40+i) }

// farmDestination is destination i's key.
func farmDestination(i int) string { return fmt.Sprintf("dest-%d.test", i) }

func newMXFarm(t testing.TB, n int, opts ...testutil.SMTPOption) *mxFarm {
	t.Helper()
	f := &mxFarm{dns: testutil.NewDNSServer(t)}
	for i := range n {
		addr := net.JoinHostPort(farmIP(i), strconv.Itoa(f.port))
		srv := testutil.NewSMTPServer(t, append([]testutil.SMTPOption{testutil.WithListenAddr(addr)}, opts...)...)
		if i == 0 {
			f.port = srv.Port()
		}
		f.servers = append(f.servers, srv)
		f.dns.SetA("mx."+farmDestination(i), farmIP(i))
	}
	return f
}

// addDomains makes domains receive their mail at destination i.
func (f *mxFarm) addDomains(i int, domains ...string) {
	for _, d := range domains {
		f.dns.SetMX(d, testutil.MX{Host: "mx." + farmDestination(i), Pref: 10})
	}
}

// direct is a Direct transport reaching the farm, closed when the test
// ends.
func (f *mxFarm) direct(t testing.TB, opts DirectOptions) *Direct {
	t.Helper()
	resolver, err := dnscheck.NewResolver(f.dns.Addr(), 2*time.Second)
	if err != nil {
		t.Fatalf("resolver: %v", err)
	}
	opts.Port = f.port
	opts.HeloName = "mta.test"
	opts.DialTimeout, opts.CommandTimeout, opts.DataTimeout = time.Second, 3*time.Second, 3*time.Second
	d := NewDirect(resolver, opts)
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// stats is the state of destination key, zero when it is unknown.
func destStats(d *Direct, key string) DestinationStats {
	for _, s := range d.Stats() {
		if s.Destination == key {
			return s
		}
	}
	return DestinationStats{}
}

// deliverAll delivers one email per recipient with the given number of
// workers, as the queue's delivery slots do, retrying a temporary outcome
// after retry (the queue's retries, shortened) until it is final or ctx
// ends. It returns each recipient's final result and how many attempts
// were deferred.
func deliverAll(ctx context.Context, d *Direct, recipients []string, workers int, background bool, retry time.Duration) (map[string]Result, int) {
	var (
		mu       sync.Mutex
		out      = make(map[string]Result, len(recipients))
		deferred int
		wg       sync.WaitGroup
	)
	work := make(chan string)
	data := []byte("Subject: farm\r\nFrom: s@example.com\r\n\r\nhello\r\n")
	for range workers {
		wg.Go(func() {
			for rcpt := range work {
				for {
					r := d.Deliver(ctx, Envelope{From: "s@example.com", Recipients: []string{rcpt}, Background: background}, data)[0]
					if r.Class != ClassTemporary || ctx.Err() != nil {
						mu.Lock()
						out[rcpt] = r
						mu.Unlock()
						break
					}
					mu.Lock()
					deferred++
					mu.Unlock()
					wait := retry
					if !r.RetryAt.IsZero() {
						wait = time.Until(r.RetryAt)
					}
					select {
					case <-time.After(wait):
					case <-ctx.Done():
					}
				}
			}
		})
	}
	for _, rcpt := range recipients {
		work <- rcpt
	}
	close(work)
	wg.Wait()
	return out, deferred
}

// assertEachOnce checks that every recipient was accepted and that the
// servers received each exactly once.
func assertEachOnce(t *testing.T, results map[string]Result, recipients []string, servers ...*testutil.SMTPServer) {
	t.Helper()
	got := map[string]int{}
	for _, srv := range servers {
		for rcpt, n := range srv.RecipientCounts() {
			got[rcpt] += n
		}
	}
	bad := 0
	for _, rcpt := range recipients {
		if r := results[rcpt]; r.Class != ClassAccepted || got[rcpt] != 1 {
			if bad++; bad <= 5 {
				t.Errorf("%s: result %+v, received %d time(s), want accepted once", rcpt, r, got[rcpt])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d recipients not delivered exactly once", bad, len(recipients))
	}
}

// transactionsPerConnection counts the messages each connection carried.
func transactionsPerConnection(srv *testutil.SMTPServer) map[string]int {
	out := map[string]int{}
	for _, m := range srv.Messages() {
		out[m.Connection]++
	}
	return out
}
