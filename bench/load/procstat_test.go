package main

import "testing"

func TestMachineCPUShares(t *testing.T) {
	t.Parallel()
	before := machineCPU{busy: 100, steal: 10, total: 400}
	after := machineCPU{busy: 250, steal: 30, total: 600}
	if busy, steal := after.shares(before); busy != 75 || steal != 10 {
		t.Fatalf("shares = %v, %v; want 75, 10", busy, steal)
	}
	if busy, steal := before.shares(after); busy != 0 || steal != 0 {
		t.Fatalf("shares backwards = %v, %v; want 0, 0", busy, steal)
	}
	if _, err := readMachineCPU(); err != nil {
		t.Fatalf("readMachineCPU on this machine: %v", err)
	}
}
