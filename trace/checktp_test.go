package trace

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// checkTimePointsPlain is the rule point by point, as it was written
// first: the reference CheckTimePoints' one-test loop is held to.
func checkTimePointsPlain(tp []float64) error {
	for i, t := range tp {
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return fmt.Errorf("time point %d is %v: want a finite number of seconds", i, t)
		}
		if i > 0 && t < tp[i-1] {
			return fmt.Errorf("time point %d (%v s) goes back from %v s: want non-decreasing time points (a monotonic clock)", i, t, tp[i-1])
		}
	}
	return nil
}

// TestCheckTimePointsAsPlain: the same verdict and message as the plain
// rule on lists with NaN, either infinity, the largest floats, both zeros,
// repeats and points going back, anywhere in the list.
func TestCheckTimePointsAsPlain(t *testing.T) {
	odd := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.MaxFloat64, -math.MaxFloat64,
		math.Copysign(0, -1), 0, math.SmallestNonzeroFloat64, -1, 1e-300}
	rng := rand.New(rand.NewPCG(5, 9))
	cases := [][]float64{nil, {}, {1}, {math.NaN()}, {math.Inf(-1), 0}, {0, math.Copysign(0, -1)}, {math.Copysign(0, -1), 0},
		{-math.MaxFloat64, math.MaxFloat64}, {1, 1, 1}, {2, 1}}
	for range 3000 {
		tp := make([]float64, rng.IntN(8))
		t0 := rng.Float64() * 100
		for i := range tp {
			t0 += rng.Float64() * 0.1
			tp[i] = t0
		}
		if len(tp) > 0 {
			switch rng.IntN(3) {
			case 0:
				tp[rng.IntN(len(tp))] = odd[rng.IntN(len(odd))]
			case 1:
				tp[rng.IntN(len(tp))] -= rng.Float64()
			}
		}
		cases = append(cases, tp)
	}
	bad := 0
	for _, tp := range cases {
		got, want := CheckTimePoints(tp), checkTimePointsPlain(tp)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%v: %v, want %v", tp, got, want)
		}
		if want != nil {
			bad++
		}
	}
	if bad < 500 || bad > len(cases)-500 {
		t.Errorf("%d of %d lists bad: the test wants many of each", bad, len(cases))
	}
}
