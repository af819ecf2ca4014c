package audit

import (
	"math"
	"slices"
)

// pool is a metric's samples in order: the concatenation of its pieces (each
// request's intervals, say). Statistics read the samples where they lie, so
// that a pool as long as ITL's is never gathered into one array, nor copied
// to be sorted.
type pool [][]float64

func (p pool) len() int {
	n := 0
	for _, xs := range p {
		n += len(xs)
	}
	return n
}

// mean is NumpyMean of the concatenation.
func (p pool) mean() float64 {
	var s numpySum
	for _, xs := range p {
		s.add(xs)
	}
	return s.mean()
}

// minMax is NumpyMin and NumpyMax of the concatenation: the first NaN, if
// any, is both; NaN for an empty pool.
func (p pool) minMax() (lo, hi float64) {
	lo, hi = math.NaN(), math.NaN()
	first := true
	for _, xs := range p {
		for _, x := range xs {
			switch {
			case math.IsNaN(x):
				return x, x
			case first:
				lo, hi, first = x, x, false
			case x < lo:
				lo = x
			case x > hi:
				hi = x
			}
		}
	}
	return lo, hi
}

// statistics computes the named statistics (AISBench's _calculate_statistics,
// and any name ParseStatistic accepts) with numpy's numerics; Rounded is
// Python's round(x, 4), as AISBench rounds them.
func statistics(names []string, values pool) []Statistic {
	out := make([]Statistic, len(names))
	var ps []float64
	var at []int // where each of ps goes in out
	lo, hi, extremes := 0.0, 0.0, false
	for i, name := range names {
		var raw float64
		switch name {
		case "Average":
			raw = values.mean()
		case "Min", "Max":
			if !extremes {
				lo, hi = values.minMax()
				extremes = true
			}
			raw = lo
			if name == "Max" {
				raw = hi
			}
		default:
			p, _ := ParseStatistic(name) // names are validated
			ps, at = append(ps, p), append(at, i)
			continue
		}
		out[i] = Statistic{Name: name, Raw: raw, Rounded: PyRound(raw, 4)}
	}
	if len(ps) > 0 {
		for k, raw := range values.percentiles(ps) {
			out[at[k]] = Statistic{Name: names[at[k]], Raw: raw, Rounded: PyRound(raw, 4)}
		}
	}
	return out
}

// selectMinLen is the pool length from which percentiles selects rather
// than sorts: below it a sorted copy costs less than the counts (1.5 MB).
// It is above radixMinLen: selection gives the radix sort's values.
const selectMinLen = 1 << 16

// percentiles returns numpyPercentileSorted(s, q) for each q of qs, s being
// the pool sorted by sortFloats. Pools shorter than selectMinLen are gathered
// and sorted so. Longer ones, which sortFloats would sort by radix, are not:
// only the order statistics read are found, by radix selection on the same
// keys: a count of the keys' top 16 bits, then of the next 16 bits within
// the buckets holding a wanted rank, then those few 32-bit buckets gathered
// and sorted. The values are the radix sort's (+0 for -0; math.NaN() for any
// NaN, which it puts last and numpy returns), so the results are the same.
func (p pool) percentiles(qs []float64) []float64 {
	n := p.len()
	if n < selectMinLen {
		return p.sortedPercentiles(qs)
	}
	out := make([]float64, len(qs))
	top := make([]int, 1<<16)
	for _, xs := range p {
		for _, x := range xs {
			if math.IsNaN(x) {
				for i := range out {
					out[i] = math.NaN()
				}
				return out
			}
			top[floatKey(x)>>48]++
		}
	}
	var ranks []int
	for _, q := range qs {
		lo, hi, _ := percentilePositions(n, q)
		ranks = append(ranks, lo, hi)
	}
	slices.Sort(ranks)
	ranks = slices.Compact(ranks)

	// Each rank's top digit and its rank among the keys with that digit.
	type target struct {
		rank, within int
		group        uint16 // 1 + index in hists of its top digit's counts
		second       int    // its digit in the next 16 bits
		size         int    // values in its 32-bit bucket
	}
	targets := make([]target, len(ranks))
	groupOf := make([]uint16, 1<<16) // 1 + index in hists, per top digit
	var hists [][]int
	for i, r := range ranks {
		d, below := bucketOf(top, r)
		if groupOf[d] == 0 {
			if len(hists) == maxSelectDigits {
				return p.sortedPercentiles(qs)
			}
			hists = append(hists, make([]int, 1<<16))
			groupOf[d] = uint16(len(hists))
		}
		targets[i] = target{rank: r, within: r - below, group: groupOf[d]}
	}
	for _, xs := range p {
		for _, x := range xs {
			k := floatKey(x)
			if g := groupOf[k>>48]; g != 0 {
				hists[g-1][(k>>32)&0xffff]++
			}
		}
	}
	for i := range targets {
		t := &targets[i]
		h := hists[t.group-1]
		d, below := bucketOf(h, t.within)
		t.second, t.within, t.size = d, t.within-below, h[d]
	}
	// The 32-bit buckets holding a rank, each gathered apart: hists now
	// number them (1 + index in buckets) instead of counting.
	for _, h := range hists {
		clear(h)
	}
	var buckets [][]uint64
	for _, t := range targets {
		if h := hists[t.group-1]; h[t.second] == 0 {
			buckets = append(buckets, make([]uint64, 0, t.size))
			h[t.second] = len(buckets)
		}
	}
	for _, xs := range p {
		for _, x := range xs {
			k := floatKey(x)
			if g := groupOf[k>>48]; g != 0 {
				if b := hists[g-1][(k>>32)&0xffff]; b != 0 {
					buckets[b-1] = append(buckets[b-1], k)
				}
			}
		}
	}
	for _, b := range buckets {
		slices.Sort(b)
	}
	at := make(map[int]float64, len(targets))
	for _, t := range targets {
		at[t.rank] = keyFloat(buckets[hists[t.group-1][t.second]-1][t.within])
	}
	for i, q := range qs {
		lo, hi, gamma := percentilePositions(n, q)
		out[i] = numpyLerp(at[lo], at[hi], gamma)
	}
	return out
}

// maxSelectDigits bounds percentiles' second counts, one of 512 KB for each
// top digit holding a wanted rank; ranks spread wider (many percentiles)
// are found by sorting instead.
const maxSelectDigits = 16

// sortedPercentiles is percentiles by gathering the pool and sorting it.
func (p pool) sortedPercentiles(qs []float64) []float64 {
	sorted := make([]float64, 0, p.len())
	for _, xs := range p {
		sorted = append(sorted, xs...)
	}
	sortFloats(sorted)
	out := make([]float64, len(qs))
	for i, q := range qs {
		out[i] = numpyPercentileSorted(sorted, q)
	}
	return out
}

// bucketOf is the bucket of counts that holds the rank-th value (from 0) in
// bucket order, and how many values lie in the buckets before it.
func bucketOf(counts []int, rank int) (bucket, below int) {
	for rank >= below+counts[bucket] {
		below += counts[bucket]
		bucket++
	}
	return bucket, below
}
