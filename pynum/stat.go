package pynum

import (
	"math"
	"slices"
)

// NumpyStd returns np.std(xs) (ddof 0) as numpy 1.24's _var computes it: the
// mean as NumpySum over the count, every deviation squared (x*x), their
// NumpySum over the count, its square root. NaN when empty.
func NumpyStd(xs []float64) float64 {
	n := len(xs)
	if n == 0 {
		return math.NaN()
	}
	mean := NumpySum(xs) / float64(n)
	sq := make([]float64, n)
	for i, x := range xs {
		d := x - mean
		sq[i] = d * d
	}
	return math.Sqrt(NumpySum(sq) / float64(n))
}

// NumpyMedian returns np.median(xs): the middle value of the sorted values,
// or np.mean of the two middle ones ((a + b) / 2); NaN when empty or when a
// value is NaN.
func NumpyMedian(xs []float64) float64 {
	n := len(xs)
	if n == 0 {
		return math.NaN()
	}
	sorted := append([]float64(nil), xs...)
	SortFloats(sorted)
	if math.IsNaN(sorted[n-1]) {
		return sorted[n-1]
	}
	if n%2 == 1 {
		return sorted[n/2]
	}
	return NumpySum(sorted[n/2-1:n/2+1]) / 2
}

// Describe is what AIPerf's MetricArray.to_result and GenAI-Perf's
// Statistics compute of one metric's values: np.mean, np.percentile at
// each of ps (numpy's linear method), np.min, np.max and np.std (ddof 0).
// xs must not be empty.
func Describe(xs, ps []float64) (mean float64, pct []float64, lo, hi, std float64) {
	sorted := slices.Clone(xs)
	SortFloats(sorted)
	for _, p := range ps {
		pct = append(pct, PercentileSorted(sorted, p))
	}
	return NumpyMean(xs), pct, NumpyMin(xs), NumpyMax(xs), NumpyStd(xs)
}
