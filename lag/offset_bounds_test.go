package lag

import "testing"

// BUG 8: EstimateOffset forgets the low bound of every compared pair met
// before the first one that gives a high bound (its counts differ), so a
// known clock outside the true bounds is taken as the offset.
func TestEstimateOffsetKeepsEveryLowBound(t *testing.T) {
	wire := []Request{
		{ID: "w0", Success: true, T0Ns: 0, Points: []int64{10e6, 20e6, 30e6}, EndNs: 30e6},
		{ID: "w1", Success: true, T0Ns: 100e6, Points: []int64{110e6, 120e6}, EndNs: 120e6},
	}
	client := []Request{
		// Sent 1 ms (client clock) after the tap's t0: offset >= 1 ms.
		{ID: "c0", Success: true, T0Ns: 1e6, Points: []int64{12e6, 22e6, 32e6, 33e6}, EndNs: 33e6},
		// Same counts: offset <= 2 ms; offset >= 0.
		{ID: "c1", Success: true, T0Ns: 100e6, Points: []int64{112e6, 122e6}, EndNs: 122e6},
	}
	pairs := []Pair{{Wire: 0, Client: 0}, {Wire: 1, Client: 1}}
	o := EstimateOffset(wire, client, pairs, []Known{{Name: "clock_monotonic_ns", Ns: 0.5e6}})
	if o.LowNs != 1e6 || o.HighNs != 2e6 {
		t.Errorf("bounds [%d, %d], want [1000000, 2000000]", o.LowNs, o.HighNs)
	}
	if o.Source != "estimated" || o.Ns != 2e6 {
		t.Errorf("offset %d from %s: the known clock (0.5 ms) lies below the low bound (1 ms)", o.Ns, o.Source)
	}
}
