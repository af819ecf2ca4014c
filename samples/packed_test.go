package samples

import (
	"math"
	"slices"
	"testing"

	"github.com/sseaudit/sseaudit/pynum"
)

// Time points decode to the float64 values added, bit for bit, packed or
// not: replay's (whole nanoseconds, on a small or a Unix-epoch clock) pack;
// others (NaN, -0, decreasing, a step over 4.3 s, decimals) are kept as
// they came.
func TestTimePointsKeptExactly(t *testing.T) {
	seconds := func(ns ...int64) []float64 {
		tp := make([]float64, len(ns))
		for i, n := range ns {
			tp[i] = pynum.SecondsFromNanos(n)
		}
		return tp
	}
	for _, c := range []struct {
		tp     []float64
		packed bool
	}{
		{seconds(0, 50_000_000, 70_000_001, 70_000_001, 90_123_456), true},
		{seconds(1_764_500_000_123_456_789, 1_764_500_000_173_456_789, 1_764_500_004_000_000_000), true},
		{seconds(5, 5+math.MaxUint32), true},
		{seconds(5, 6+math.MaxUint32), false},
		{seconds(100, 99), false},
		{[]float64{0.1, 0.2, 0.3}, true},
		{[]float64{0.1, 0.2, 0.30000000000000004}, false},
		{[]float64{1.0000000001234, 1.1}, false},
		{[]float64{math.Copysign(0, -1), 1}, false},
		{[]float64{0, math.NaN()}, false},
		{[]float64{0, math.Inf(1)}, false},
		{[]float64{}, false},
		{nil, false},
	} {
		p := NewPacked(-1)
		ref := p.Add(c.tp)
		got := p.TimePoints(ref, nil)
		if packed := p.entries[ref].slab >= 0; packed != c.packed || p.Points(ref) != len(c.tp) || len(got) != len(c.tp) {
			t.Errorf("%v: packed %v (want %v), %d points decoded to %v", c.tp, packed, c.packed, p.Points(ref), got)
			continue
		}
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(c.tp[i]) {
				t.Errorf("%v: point %d decoded to %v", c.tp, i, got[i])
			}
		}
	}
}

// Add keeps time points that do not pack as they are, without a copy, and
// reads them back; time points that pack are packed.
func TestPackedAddKeeps(t *testing.T) {
	odd := []float64{1.0000000001234, 1.1, 1.25}
	even := []float64{0.1, 0.2, 0.3}
	p := NewPacked(-1)
	for _, tp := range [][]float64{odd, even} {
		if got := p.TimePoints(p.Add(tp), nil); !slices.Equal(got, tp) {
			t.Errorf("%v: reads %v", tp, got)
		}
	}
	if &p.floats[0][0] != &odd[0] {
		t.Error("Add copied time points that do not pack")
	}
	if len(p.floats) != 1 {
		t.Errorf("%d float arrays kept: want 1 (the packable one packed)", len(p.floats))
	}
}
