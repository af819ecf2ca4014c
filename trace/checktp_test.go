package trace

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestCheckTimePointsAsPlain: the one-test loop gives the verdict and the
// message of the plain rule, point by point (timePointsError, nil for a good
// list), on lists with NaN, either infinity, the largest floats, both zeros,
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
		got, want := CheckTimePoints(tp), timePointsError(tp)
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
