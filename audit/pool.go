package audit

import (
	"math"
	"slices"
)

// pool is a metric's samples in order: the concatenation of its spans (each
// request's intervals, say). Statistics read the samples span by span, so
// that a pool as long as ITL's is never gathered into one array, nor copied
// to be sorted, and intervals are never held (span).
type pool []span

// poolOf is a pool of values held as they are.
func poolOf(values []float64) pool { return pool{ownSpan(values)} }

func (p pool) len() int {
	n := 0
	for _, s := range p {
		n += s.len()
	}
	return n
}

// each calls fn with the samples of each span in order; fn must not keep
// them (a decoding buffer is reused).
func (p pool) each(fn func(xs []float64)) {
	var buf []float64
	for _, s := range p {
		if xs := s.values(&buf); len(xs) > 0 {
			fn(xs)
		}
	}
}

// mean is NumpyMean of the concatenation.
func (p pool) mean() float64 {
	var s numpySum
	p.each(s.add)
	return s.mean()
}

// minMax is NumpyMin and NumpyMax of the concatenation: the first NaN, if
// any, is both; NaN for an empty pool.
func (p pool) minMax() (lo, hi float64) {
	var m minMax
	p.each(m.add)
	return m.result()
}

// minMax is np.min and np.max of samples added in order, piece by piece:
// the first NaN is both (numpy's NaN wins), and NaN when none was added.
type minMax struct {
	lo, hi      float64
	seen, isNaN bool
}

func (m *minMax) add(xs []float64) {
	if m.isNaN {
		return
	}
	for _, x := range xs {
		switch {
		case math.IsNaN(x):
			m.lo, m.hi, m.isNaN = x, x, true
			return
		case !m.seen:
			m.lo, m.hi, m.seen = x, x, true
		case x < m.lo:
			m.lo = x
		case x > m.hi:
			m.hi = x
		}
	}
}

func (m *minMax) result() (lo, hi float64) {
	if !m.seen && !m.isNaN {
		return math.NaN(), math.NaN()
	}
	return m.lo, m.hi
}

// statistics computes the named statistics (AISBench's _calculate_statistics,
// and any name ParseStatistic accepts) with numpy's numerics; Rounded is
// Python's round(x, 4), as AISBench rounds them. The mean, the extremes and
// the percentiles' first count are taken in one pass over the samples.
func statistics(names []string, values pool) []Statistic {
	out := make([]Statistic, len(names))
	var ps []float64
	var at []int // where each of ps goes in out
	wantMean, wantExtremes := false, false
	for i, name := range names {
		switch name {
		case "Average":
			wantMean = true
		case "Min", "Max":
			wantExtremes = true
		default:
			p, _ := ParseStatistic(name) // names are validated
			ps, at = append(ps, p), append(at, i)
		}
	}
	n := values.len()
	var sum numpySum
	var extremes minMax
	var sel *selection
	if len(ps) > 0 && n >= selectMinLen {
		sel = newSelection()
	}
	if wantMean || wantExtremes || sel != nil {
		values.each(func(xs []float64) {
			if wantMean {
				sum.add(xs)
			}
			if wantExtremes {
				extremes.add(xs)
			}
			if sel != nil {
				sel.countTop(xs)
			}
		})
	}
	lo, hi := extremes.result()
	for i, name := range names {
		var raw float64
		switch name {
		case "Average":
			raw = sum.mean()
		case "Min":
			raw = lo
		case "Max":
			raw = hi
		default:
			continue
		}
		out[i] = Statistic{Name: name, Raw: raw, Rounded: PyRound(raw, 4)}
	}
	if len(ps) > 0 {
		var raws []float64
		if sel != nil {
			raws = values.selectPercentiles(ps, n, sel)
		} else {
			raws = values.sortedPercentiles(ps)
		}
		for k, raw := range raws {
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
	sel := newSelection()
	p.each(sel.countTop)
	return p.selectPercentiles(qs, n, sel)
}

// selection is radix selection's first count: of the keys' top 16 bits.
type selection struct {
	top []int
	nan bool // a NaN seen: every percentile is NaN
}

func newSelection() *selection { return &selection{top: make([]int, 1<<16)} }

func (s *selection) countTop(xs []float64) {
	if s.nan {
		return
	}
	for _, x := range xs {
		if math.IsNaN(x) {
			s.nan = true
			return
		}
		s.top[floatKey(x)>>48]++
	}
}

// selectPercentiles is percentiles of the n samples of p once sel has
// counted them all.
func (p pool) selectPercentiles(qs []float64, n int, sel *selection) []float64 {
	out := make([]float64, len(qs))
	if sel.nan {
		for i := range out {
			out[i] = math.NaN()
		}
		return out
	}
	if uint64(n) > math.MaxUint32 { // hists count in uint32
		return p.sortedPercentiles(qs)
	}
	top := sel.top
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
	// groupOf is, per top digit, 0, or g << 16 for the g-th digit (from 1)
	// holding a wanted rank, whose counts of the next 16 bits are
	// hists[g<<16 : (g+1)<<16]: one array for all, of uint32 (n < 2^32).
	groupOf := make([]uint32, 1<<16)
	groups := 0
	for i, r := range ranks {
		d, below := bucketOf(top, r)
		if groupOf[d] == 0 {
			if groups == maxSelectDigits {
				return p.sortedPercentiles(qs)
			}
			groups++
			groupOf[d] = uint32(groups) << 16
		}
		targets[i] = target{rank: r, within: r - below, group: uint16(groupOf[d] >> 16)}
	}
	hists := make([]uint32, (groups+1)<<16) // the first 1<<16 unused: group 0 is none
	p.each(func(xs []float64) {
		for _, x := range xs {
			k := floatKey(x)
			if g := groupOf[k>>48]; g != 0 {
				hists[g|uint32(k>>32)&0xffff]++
			}
		}
	})
	for i := range targets {
		t := &targets[i]
		h := hists[int(t.group)<<16 : int(t.group+1)<<16]
		d, below := bucketOf(h, t.within)
		t.second, t.within, t.size = d, t.within-below, int(h[d])
	}
	// The 32-bit buckets holding a rank, each gathered apart: hists now
	// number them (1 + index in buckets) instead of counting.
	clear(hists)
	var buckets []gathered
	for _, t := range targets {
		if i := int(t.group)<<16 | t.second; hists[i] == 0 {
			buckets = append(buckets, gathered{size: t.size})
			hists[i] = uint32(len(buckets))
		}
	}
	p.each(func(xs []float64) {
		for _, x := range xs {
			k := floatKey(x)
			if g := groupOf[k>>48]; g != 0 {
				if b := hists[g|uint32(k>>32)&0xffff]; b != 0 {
					buckets[b-1].add(k)
				}
			}
		}
	})
	for _, b := range buckets {
		slices.Sort(b.keys)
	}
	at := make(map[int]float64, len(targets))
	for _, t := range targets {
		at[t.rank] = keyFloat(buckets[hists[int(t.group)<<16|t.second]-1].at(t.within))
	}
	for i, q := range qs {
		lo, hi, gamma := percentilePositions(n, q)
		out[i] = numpyLerp(at[lo], at[hi], gamma)
	}
	return out
}

// gathered is the keys of one 32-bit bucket, size of them in all. While
// they are all one key (a pool of equal values: token counts, say) only
// that key is kept, not a copy each.
type gathered struct {
	size  int
	first uint64
	n     int
	keys  []uint64 // nil while every key is first
}

func (g *gathered) add(k uint64) {
	if g.keys == nil {
		if g.n == 0 || k == g.first {
			g.first = k
			g.n++
			return
		}
		g.keys = make([]uint64, g.n, g.size)
		for i := range g.keys {
			g.keys[i] = g.first
		}
	}
	g.keys = append(g.keys, k)
	g.n++
}

// at is the i-th key in order once keys is sorted.
func (g *gathered) at(i int) uint64 {
	if g.keys == nil {
		return g.first
	}
	return g.keys[i]
}

// maxSelectDigits bounds percentiles' second counts, one of 256 KB for each
// top digit holding a wanted rank; ranks spread wider (many percentiles)
// are found by sorting instead.
const maxSelectDigits = 16

// sortedPercentiles is percentiles by gathering the pool and sorting it.
func (p pool) sortedPercentiles(qs []float64) []float64 {
	sorted := p.gather()
	sortFloats(sorted)
	out := make([]float64, len(qs))
	for i, q := range qs {
		out[i] = numpyPercentileSorted(sorted, q)
	}
	return out
}

// bucketOf is the bucket of counts that holds the rank-th value (from 0) in
// bucket order, and how many values lie in the buckets before it.
func bucketOf[C int | uint32](counts []C, rank int) (bucket, below int) {
	for rank >= below+int(counts[bucket]) {
		below += int(counts[bucket])
		bucket++
	}
	return bucket, below
}

// gather is the samples in one new array.
func (p pool) gather() []float64 {
	out := make([]float64, 0, p.len())
	p.each(func(xs []float64) { out = append(out, xs...) })
	return out
}
