package app

import (
	"context"
	"testing"
	"time"
)

// The retention purge (D77) must leave the writer to accepts most of the
// time: after each batch it rests three times as long as the batch took,
// and it sizes batches towards a few milliseconds.
func TestBatchPacerRestsThreeTimesTheBatch(t *testing.T) {
	for _, c := range []struct {
		name     string
		took     time.Duration
		size     int
		wantRest time.Duration
		wantSize int
	}{
		{"fast batch grows", time.Millisecond, 100, 3 * time.Millisecond, 200},
		{"on target keeps its size", 5 * time.Millisecond, 100, 15 * time.Millisecond, 100},
		{"slow batch shrinks", 40 * time.Millisecond, 100, 120 * time.Millisecond, 50},
		{"size never above the maximum", time.Microsecond, maxPurgeBatch, time.Millisecond, maxPurgeBatch},
		{"size never below the minimum", time.Second, minPurgeBatch, 3 * time.Second, minPurgeBatch},
	} {
		t.Run(c.name, func(t *testing.T) {
			var rested []time.Duration
			p := newBatchPacer()
			p.size = c.size
			p.wait = func(_ context.Context, d time.Duration) error {
				rested = append(rested, d)
				return nil
			}
			if err := p.rest(context.Background(), c.took); err != nil {
				t.Fatal(err)
			}
			if len(rested) != 1 || rested[0] != c.wantRest {
				t.Errorf("after a batch of %s the pacer rested %v, want [%s]", c.took, rested, c.wantRest)
			}
			if p.size != c.wantSize {
				t.Errorf("next batch size %d, want %d", p.size, c.wantSize)
			}
		})
	}
}

// A pass cut short (its time limit, shutdown) stops resting at once.
func TestBatchPacerRestEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := newBatchPacer()
	if err := p.rest(ctx, time.Hour); err == nil {
		t.Fatal("rest of 3 hours with a cancelled context returned no error")
	}
}
