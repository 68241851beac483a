package mta

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// BenchmarkDirectSaturatedDestination measures what a destination's few
// connections carry when deliveries always wait for one, as destination 0
// of bench/load's direct scenario does: every transaction is on a reused
// connection, so its round trips bound the rate (issue 32's target).
func BenchmarkDirectSaturatedDestination(b *testing.B) {
	farm := newMXFarm(b, 1)
	farm.addDomains(0, "busy.test")
	direct := farm.direct(b, DirectOptions{Connections: 2})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	data := []byte("Subject: bench\r\nFrom: s@example.com\r\n\r\nhello\r\n")
	work := make(chan int)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for i := range work {
				r := direct.Deliver(ctx, Envelope{From: "s@example.com", Recipients: []string{fmt.Sprintf("r%d@busy.test", i)}}, data)[0]
				if r.Class != ClassAccepted {
					b.Errorf("delivery %d: %+v", i, r)
				}
			}
		})
	}
	start := time.Now()
	for i := range b.N {
		work <- i
	}
	close(work)
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "msgs/s")
}
