package stattest

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/sseaudit/sseaudit/pynum"
)

// TestResampledMedian: the median of a resample given by counts is
// np.median of the resample written out, ties and all.
func TestResampledMedian(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		n := 1 + rng.IntN(40)
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(rng.IntN(10)) / 4 // ties
		}
		r := newResampler(xs)
		counts := make([]int, n)
		var written []float64
		for range n {
			i := rng.IntN(n)
			counts[i]++
			written = append(written, xs[i])
		}
		if got, want := r.median(counts), pynum.NumpyPercentile(written, 50); got != want {
			t.Fatalf("trial %d: median %v, np.median of the resample %v", trial, got, want)
		}
	}
}

// TestMedianDeltaCI: seeded (the same interval twice, another with another
// seed), an interval around the change, and [0, 0] for a run paired with
// itself.
func TestMedianDeltaCI(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a, b := make([]float64, 200), make([]float64, 200)
	for i := range a {
		a[i] = 20 + rng.NormFloat64()
		b[i] = 23 + rng.NormFloat64()
	}
	bs := Bootstrap{Seed: 7, Stream: 1}
	lo, hi := MedianDeltaCI(a, b, false, bs)
	lo2, hi2 := MedianDeltaCI(a, b, false, bs)
	if lo != lo2 || hi != hi2 {
		t.Fatalf("not deterministic: [%v, %v] then [%v, %v]", lo, hi, lo2, hi2)
	}
	if lo3, hi3 := MedianDeltaCI(a, b, false, Bootstrap{Seed: 8, Stream: 1}); lo3 == lo && hi3 == hi {
		t.Errorf("another seed, the same interval [%v, %v]", lo, hi)
	}
	delta := change(pynum.NumpyPercentile(a, 50), pynum.NumpyPercentile(b, 50))
	if !(lo < delta && delta < hi && lo > 10 && hi < 20) {
		t.Errorf("interval [%v, %v] for a change of %v%%", lo, hi, delta)
	}
	if lo, hi := MedianDeltaCI(a, a, true, bs); lo != 0 || hi != 0 {
		t.Errorf("a run paired with itself: [%v, %v], want [0, 0]", lo, hi)
	}
	if lo, hi := MedianDeltaCI(nil, b, false, bs); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("empty sample: [%v, %v], want NaN", lo, hi)
	}
}
