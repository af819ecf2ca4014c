package guidellm

import (
	"cmp"
	"math"
	"slices"

	"github.com/sseaudit/sseaudit/pynum"
)

// The distributions over the run's timeline (src/guidellm/schemas/statistics.py
// at ee7a77457ba668b4b5ccb40f110518829893b36a): rates of events in time and
// requests in flight, between the measured window's start and end.

// mergeThreshold is the threshold of rate_distribution_from_timings and
// concurrency_distribution_from_timings: 1e-4 s.
const mergeThreshold = 1e-4

// byTime sorts (time, weight) pairs by time, as np.argsort does (which pair
// of equal times comes first does not matter: they are merged).
func byTime(xs []Weighted) {
	slices.SortStableFunc(xs, func(a, b Weighted) int { return cmp.Compare(a.V, b.V) })
}

// mergeTimes is _merge_sorted_times_with_weights on pairs sorted by time:
// equal times merged, their weights summed; then, until no two neighbours
// are within the threshold, each run of times within the threshold of one
// another merged into its first: every time up to the first's plus the
// threshold, the weight their cumulative sums' difference.
func mergeTimes(xs []Weighted) []Weighted {
	var u []Weighted
	for i := 0; i < len(xs); {
		j, w := i, 0.0
		for ; j < len(xs) && xs[j].V == xs[i].V; j++ {
			w += xs[j].W
		}
		u = append(u, Weighted{xs[i].V, w})
		i = j
	}
	for len(u) > 1 {
		n := len(u)
		within := make([]bool, n-1)
		any := false
		for i := range within {
			within[i] = u[i+1].V-u[i].V <= mergeThreshold
			any = any || within[i]
		}
		if !any {
			break
		}
		var starts, ends []int
		for i, w := range within {
			if w && (i == 0 || !within[i-1]) {
				starts = append(starts, i)
				// searchsorted(times, times[start] + threshold, "right") - 1
				lim := u[i].V + mergeThreshold
				e, _ := slices.BinarySearchFunc(u, lim, func(x Weighted, t float64) int {
					if x.V <= t {
						return -1
					}
					return 1
				})
				ends = append(ends, e-1)
			}
		}
		if len(starts) > 1 {
			ks, ke := starts[:1], ends[:1]
			for k := 1; k < len(starts); k++ {
				if starts[k] > ends[k-1] {
					ks, ke = append(ks, starts[k]), append(ke, ends[k])
				}
			}
			starts, ends = ks, ke
		}
		cum := make([]float64, n+1)
		for i, x := range u {
			cum[i+1] = cum[i] + x.W
		}
		remove := make([]bool, n)
		for k, s := range starts {
			u[s].W = cum[ends[k]+1] - cum[s]
			for i := s + 1; i <= ends[k]; i++ {
				remove[i] = true
			}
		}
		kept := u[:0]
		for i, x := range u {
			if !remove[i] {
				kept = append(kept, x)
			}
		}
		u = kept
	}
	return u
}

// RateDist is DistributionSummary.rate_distribution_from_timings of events
// (time, count) in [start, end] (window; else all of them, as
// GenerativeMetrics.compile asks for the token rates): the window's ends
// added with no count, times merged (mergeTimes); each time's rate its count over its share of the
// timeline (half the gaps to its neighbours; the last's at least 1e-6),
// weighted by that share; count the counts' sum, rounded.
func RateDist(events []Weighted, window bool, start, end float64) Dist {
	var xs []Weighted
	if !window {
		xs = append(xs, events...)
	} else {
		xs = append(xs, Weighted{start, 0})
		for _, e := range events {
			if e.V >= start && e.V <= end {
				xs = append(xs, e)
			}
		}
		xs = append(xs, Weighted{end, 0})
	}
	byTime(xs)
	xs = mergeTimes(xs)
	if len(xs) <= 1 {
		return Dist{}
	}
	n := len(xs)
	mid := make([]float64, n-1)
	for i := range mid {
		mid[i] = (xs[i+1].V + xs[i].V) / 2
	}
	dur := make([]float64, n)
	dur[0] = mid[0] - xs[0].V
	for i := 1; i < n-1; i++ {
		dur[i] = mid[i] - mid[i-1]
	}
	dur[n-1] = max(xs[n-1].V-mid[n-2], 1e-6)
	occ := make([]float64, n)
	rates := make([]Weighted, n)
	for i, x := range xs {
		occ[i] = x.W
		rates[i] = Weighted{x.W / dur[i], dur[i]}
	}
	return fromValuesCount(rates, int64(math.RoundToEven(pynum.NumpySum(occ))))
}

// ConcurrencyDist is DistributionSummary.concurrency_distribution_from_timings
// of intervals (start, end), each of weight 1, within [start, end]: a +1 at
// each interval's start and a -1 at its end, merged (mergeTimes), the
// window's start holding what came before it; the concurrency after each
// time (the cumulative sum, at least 0) weighted by the time to the next;
// count the intervals.
func ConcurrencyDist(intervals [][2]float64, start, end float64) Dist {
	var add, rm []Weighted
	for _, iv := range intervals {
		if iv[1] >= start && iv[0] <= end {
			add, rm = append(add, Weighted{iv[0], 1}), append(rm, Weighted{iv[1], -1})
		}
	}
	count := int64(len(add))
	xs := append(add, rm...)
	byTime(xs)
	xs = mergeTimes(xs)
	if len(xs) > 0 {
		i, _ := slices.BinarySearchFunc(xs, start, func(x Weighted, t float64) int { return cmp.Compare(x.V, t) })
		prior := 0.0
		if i > 0 {
			ws := make([]float64, i)
			for k := range ws {
				ws[k] = xs[k].W
			}
			prior = pynum.NumpySum(ws)
		}
		xs = append([]Weighted{{start, prior}}, xs[i:]...)
		j, _ := slices.BinarySearchFunc(xs, end, func(x Weighted, t float64) int {
			if x.V <= t {
				return -1
			}
			return 1
		})
		xs = append(xs[:j], Weighted{end, 0})
	}
	conc, acc := make([]float64, len(xs)), 0.0
	for i, x := range xs {
		acc += x.W
		conc[i] = max(acc, 0)
	}
	if len(conc) <= 1 {
		if count == 0 {
			return Dist{}
		}
		return FromValues([]Weighted{{conc[0], 1}})
	}
	vals, positive := make([]Weighted, len(xs)-1), false
	for i := range vals {
		d := max(xs[i+1].V-xs[i].V, 0)
		vals[i] = Weighted{conc[i], d}
		positive = positive || d > 0
	}
	if !positive {
		return Dist{}
	}
	return fromValuesCount(vals, count)
}

// linspace is np.linspace(start, stop, num) (endpoint, num > 1).
func linspace(start, stop float64, num int64) []float64 {
	div := float64(num - 1)
	delta := stop - start
	step := delta / div
	out := make([]float64, num)
	for i := range out {
		if step == 0 {
			out[i] = float64(i)/div*delta + start
		} else {
			out[i] = float64(i)*step + start
		}
	}
	out[num-1] = stop
	return out
}
