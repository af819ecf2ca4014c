package stattest

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/sseaudit/sseaudit/pynum"
)

// Bootstrap says how MedianDeltaCI resamples.
type Bootstrap struct {
	// Resamples is how many resamples the interval is taken from.
	Resamples int
	// Seed and Stream seed the generator (PCG): the same seed, stream and
	// samples give the same interval.
	Seed, Stream uint64
}

// DefaultResamples is the resamples of a bootstrap when none is given.
const DefaultResamples = 2000

// MedianDeltaCI is the 95% percentile bootstrap interval, in percent, of
// the relative change of the median from a to b, 100*(median(b)/median(a)
// - 1), medians as np.median (np.percentile's 50): a and b resampled with
// replacement each on its own, or, when paired (a[i] and b[i] one request's
// values in two runs), the pairs resampled together. The interval's ends
// are np.percentile's 2.5 and 97.5 of the resampled changes. NaN, NaN when
// a or b is empty, or a's median is 0.
func MedianDeltaCI(a, b []float64, paired bool, bs Bootstrap) (lo, hi float64) {
	if len(a) == 0 || len(b) == 0 || (paired && len(a) != len(b)) || pynum.NumpyPercentile(a, 50) == 0 {
		return math.NaN(), math.NaN()
	}
	if bs.Resamples <= 0 {
		bs.Resamples = DefaultResamples
	}
	rng := rand.New(rand.NewPCG(bs.Seed, bs.Stream))
	deltas := make([]float64, bs.Resamples)
	if paired {
		ra, rb := newResampler(a), newResampler(b)
		counts := make([]int, len(a))
		for r := range deltas {
			clear(counts)
			for range a {
				counts[rng.IntN(len(a))]++
			}
			deltas[r] = change(ra.median(counts), rb.median(counts))
		}
	} else {
		ra, rb := newResampler(a), newResampler(b)
		ca, cb := make([]int, len(a)), make([]int, len(b))
		for r := range deltas {
			clear(ca)
			clear(cb)
			for range a {
				ca[rng.IntN(len(a))]++
			}
			for range b {
				cb[rng.IntN(len(b))]++
			}
			deltas[r] = change(ra.median(ca), rb.median(cb))
		}
	}
	pynum.SortFloats(deltas)
	return pynum.PercentileSorted(deltas, 2.5), pynum.PercentileSorted(deltas, 97.5)
}

// change is 100*(b/a - 1).
func change(a, b float64) float64 { return (b/a - 1) * 100 }

// resampler finds the median of a resample of xs given as how many times
// each value is drawn, without sorting the resample: xs's order is sorted
// once.
type resampler struct {
	xs    []float64
	order []int // xs's indices, by value
}

func newResampler(xs []float64) *resampler {
	order := make([]int, len(xs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(xs[i], xs[j]) })
	return &resampler{xs: xs, order: order}
}

// median is np.median of the resample holding counts[i] copies of xs[i].
func (r *resampler) median(counts []int) float64 {
	n := 0
	for _, c := range counts {
		n += c
	}
	lo, hi, gamma := pynum.PercentilePositions(n, 50)
	var vlo, vhi float64
	seen := 0
	for _, i := range r.order {
		c := counts[i]
		if c == 0 {
			continue
		}
		if seen <= lo && lo < seen+c {
			vlo = r.xs[i]
		}
		if seen <= hi && hi < seen+c {
			vhi = r.xs[i]
			break
		}
		seen += c
	}
	return pynum.Lerp(vlo, vhi, gamma)
}
