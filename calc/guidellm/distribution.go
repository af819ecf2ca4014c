package guidellm

import (
	"cmp"
	"math"
	"slices"

	"github.com/sseaudit/sseaudit/pynum"
)

// PercentileNames are Percentiles' fields, PercentileProbs their
// probabilities (Percentiles.from_pdf, src/guidellm/schemas/statistics.py).
var (
	PercentileNames = [...]string{"p001", "p01", "p05", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "p999"}
	PercentileProbs = [...]float64{0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999}
)

// Dist is a DistributionSummary, without its pdf (include_pdf False).
type Dist struct {
	Mean, Median, Mode, Variance, StdDev, Min, Max float64
	Count                                          int64
	TotalSum                                       float64
	Percentiles                                    [len(PercentileNames)]float64
}

// Weighted is a value and its weight.
type Weighted struct{ V, W float64 }

// FromValues is DistributionSummary.from_values of (value, weight) pairs
// (statistics.py, l. 240): count is round(sum of the weights); equal values
// merged, their weights summed; values of weight 0 or less dropped; the
// weights normalized to probabilities (all 1 when their sum is 1e-6 or
// less); then from_pdf: a percentile is the first value whose cumulative
// probability (np.cumsum) reaches it (np.searchsorted, side left); the
// mean and the variance are np.sum of value × probability and of (value -
// mean)² × probability; the mode the first value of the largest
// probability; the total mean × count. No value: every field 0.
func FromValues(xs []Weighted) Dist {
	if len(xs) == 0 {
		return Dist{}
	}
	ws := make([]float64, len(xs))
	for i, x := range xs {
		ws[i] = x.W
	}
	return fromValuesCount(xs, int64(math.RoundToEven(pynum.NumpySum(ws))))
}

// fromValuesCount is from_values given its count.
func fromValuesCount(xs []Weighted, count int64) Dist {
	if len(xs) == 0 {
		return Dist{} // from_pdf of no value: count 0 whatever it was given
	}
	sorted := slices.Clone(xs)
	slices.SortStableFunc(sorted, func(a, b Weighted) int { return cmp.Compare(a.V, b.V) })
	var vals, wts []float64
	for i := 0; i < len(sorted); {
		j, w := i, 0.0
		for ; j < len(sorted) && sorted[j].V == sorted[i].V; j++ {
			w += sorted[j].W // np.add.at, in sorted order
		}
		if w > 0 {
			vals, wts = append(vals, sorted[i].V), append(wts, w)
		}
		i = j
	}
	total := pynum.NumpySum(wts)
	if total <= 1e-6 {
		for i := range wts {
			wts[i] = 1
		}
		total = pynum.NumpySum(wts)
	}
	d := Dist{Count: count}
	if len(vals) == 0 {
		return d
	}
	probs := make([]float64, len(wts))
	for i, w := range wts {
		probs[i] = w / total
	}
	cdf, acc := make([]float64, len(probs)), 0.0
	for i, p := range probs {
		acc += p
		cdf[i] = acc
	}
	for k, p := range PercentileProbs {
		i, _ := slices.BinarySearch(cdf, p) // the first cdf >= p
		d.Percentiles[k] = vals[min(i, len(vals)-1)]
	}
	d.Median = d.Percentiles[5]
	prod := make([]float64, len(vals))
	for i, v := range vals {
		prod[i] = v * probs[i]
	}
	d.Mean = pynum.NumpySum(prod)
	mode := 0
	for i, p := range probs {
		if p > probs[mode] {
			mode = i
		}
	}
	d.Mode = vals[mode]
	for i, v := range vals {
		dv := v - d.Mean
		prod[i] = dv * dv * probs[i]
	}
	d.Variance = pynum.NumpySum(prod)
	d.StdDev = math.Sqrt(d.Variance)
	d.Min, d.Max = vals[0], vals[len(vals)-1]
	d.TotalSum = d.Mean * float64(count)
	return d
}
