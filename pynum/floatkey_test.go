package pynum

import (
	"cmp"
	"math"
	"math/rand/v2"
	"testing"
)

// TestFloatKey: keys order as the floats compare (the two zeros alike),
// KeyFloat gives each float back bit for bit (+0 for -0), on the extremes,
// the subnormals, both zeros and random floats of every exponent.
func TestFloatKey(t *testing.T) {
	xs := []float64{math.Inf(-1), -math.MaxFloat64, -1, -math.SmallestNonzeroFloat64, math.Copysign(0, -1), 0,
		math.SmallestNonzeroFloat64, 2.2250738585072009e-308, 2.2250738585072014e-308, 1, math.MaxFloat64, math.Inf(1)}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		x := math.Float64frombits(rng.Uint64())
		if !math.IsNaN(x) {
			xs = append(xs, x)
		}
	}
	for i, a := range xs {
		ka := FloatKey(a)
		want := a
		if a == 0 {
			want = 0
		}
		if back := KeyFloat(ka); math.Float64bits(back) != math.Float64bits(want) {
			t.Fatalf("KeyFloat(FloatKey(%v)) = %v", a, back)
		}
		for _, b := range xs[max(0, i-40) : i+1] {
			if got, want := cmp.Compare(ka, FloatKey(b)), cmp.Compare(a, b); got != want {
				t.Fatalf("%v vs %v: keys compare %d, floats %d", a, b, got, want)
			}
		}
		for _, b := range xs[:12] {
			if got, want := cmp.Compare(ka, FloatKey(b)), cmp.Compare(a, b); got != want {
				t.Fatalf("%v vs %v: keys compare %d, floats %d", a, b, got, want)
			}
		}
	}
}
