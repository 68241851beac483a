package machine

import (
	"errors"
	"os"
	"testing"
)

func TestCPUShares(t *testing.T) {
	t.Parallel()
	before := CPU{Busy: 100, Steal: 10, Total: 400}
	after := CPU{Busy: 250, Steal: 30, Total: 600}
	if busy, steal := after.Shares(before); busy != 75 || steal != 10 {
		t.Fatalf("Shares = %v, %v; want 75, 10", busy, steal)
	}
	if busy, steal := before.Shares(after); busy != 0 || steal != 0 {
		t.Fatalf("Shares backwards = %v, %v; want 0, 0", busy, steal)
	}
	if f := BusyFraction(before, after, nil, nil); f != 0.85 {
		t.Fatalf("BusyFraction = %v, want 0.85 (busy and stolen)", f)
	}
	if f := BusyFraction(before, after, errors.New("no /proc"), nil); f != -1 {
		t.Fatalf("BusyFraction of a failed sample = %v, want -1", f)
	}
	if _, err := ReadCPU(); err != nil {
		t.Fatalf("ReadCPU on this machine: %v", err)
	}
}

func TestThisProcessIsMeasurable(t *testing.T) {
	t.Parallel()
	if _, err := ProcessCPU(os.Getpid()); err != nil {
		t.Fatalf("ProcessCPU(self): %v", err)
	}
	if rss, hwm, err := MemoryStatus(os.Getpid()); err != nil || rss <= 0 || hwm < rss {
		t.Fatalf("MemoryStatus(self) = %d, %d, %v", rss, hwm, err)
	}
}
