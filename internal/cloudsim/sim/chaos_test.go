package sim

import (
	"testing"
	"time"
)

// The same seed and the same calls meet the same faults; another seed
// meets others.
func TestChaosIsRepeatableWithASeed(t *testing.T) {
	draw := func(seed int64) []int {
		f := NewFaults(RealClock{})
		f.Set(FaultConfig{Seed: seed, Chaos: &Chaos{ThrottleRate: 0.1, ServerErrorRate: 0.1, SpikeRate: 0.1, Spike: Duration(time.Second), ResetRate: 0.05, LostReplyRate: 0.05}})
		var out []int
		for range 200 {
			d := f.DecideTransport()
			out = append(out, int(d.Fault), int(d.Spike/time.Second), int(f.Decide(Call{Key: CallKey{Service: "ec2", Operation: "DescribeVpcs"}}).Chaos))
		}
		return out
	}
	a, b, c := draw(1), draw(1), draw(2)
	same := func(x, y []int) bool {
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	if !same(a, b) {
		t.Error("two runs with seed 1 met different faults")
	}
	if same(a, c) {
		t.Error("seeds 1 and 2 met the same faults")
	}
	faulted := 0
	for _, v := range a {
		if v != 0 {
			faulted++
		}
	}
	if faulted == 0 {
		t.Error("no fault at all in 200 calls at these rates")
	}
}
