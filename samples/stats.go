package samples

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/sseaudit/sseaudit/pynum"
)

// Statistic is one statistic of a metric.
type Statistic struct {
	Name    string  // "Average", "Min", "Max", "Median" or "Pnn"
	Raw     float64 // np.mean / np.min / np.max / np.percentile, unrounded
	Rounded float64 // AISBench's round(float(Raw), 4), still in the metric's Unit
}

// ParseStatistic says whether sseaudit can compute a statistic from raw
// samples, and which percentile it is (-1 for Average, Min and Max): AISBench's
// names, and any Pnn or Pnn.n from P0 to P100 (P99.9, P99.99).
func ParseStatistic(name string) (percent float64, ok bool) {
	if p, ok := AISBenchPercent(name); ok {
		return float64(p), true
	}
	rest, found := strings.CutPrefix(name, "P")
	if !found || rest == "" || strings.Trim(rest, "0123456789.") != "" || strings.Count(rest, ".") > 1 ||
		rest[0] == '.' || rest[len(rest)-1] == '.' {
		return 0, false
	}
	p, err := strconv.ParseFloat(rest, 64)
	if err != nil || p < 0 || p > 100 {
		return 0, false
	}
	return p, true
}

// AISBenchPercent says whether a statistic name is one AISBench accepts and,
// for Median and Pnn, which percentile it is (-1 for Average, Min and Max).
func AISBenchPercent(stat string) (percent int, ok bool) {
	switch stat {
	case "Average", "Min", "Max":
		return -1, true
	case "Median":
		return 50, true
	}
	// AISBench's pattern ^P(0*[1-9]\d{0,1})$ with Python's re: \d is any
	// Unicode decimal digit and $ also matches before one final newline.
	rest, found := strings.CutPrefix(stat, "P")
	if !found {
		return 0, false
	}
	rest = strings.TrimSuffix(rest, "\n")
	rest = strings.TrimLeft(rest, "0")
	runes := []rune(rest)
	if len(runes) == 0 || len(runes) > 2 || runes[0] < '1' || runes[0] > '9' {
		return 0, false
	}
	percent = int(runes[0] - '0')
	if len(runes) == 2 {
		d, ok := decimalDigit(runes[1])
		if !ok {
			return 0, false
		}
		percent = percent*10 + d
	}
	return percent, true
}

// decimalDigit is the value of a Unicode decimal digit (Python's \d and int()).
func decimalDigit(r rune) (int, bool) {
	if !unicode.Is(unicode.Nd, r) {
		return 0, false
	}
	// Unicode lays decimal digits out in contiguous runs of whole decades, each
	// starting at its zero, so the offset from the run's start, mod 10, is the value.
	start := r
	for unicode.Is(unicode.Nd, start-1) {
		start--
	}
	return int((r - start) % 10), true
}

// Statistics computes the named statistics (AISBench's _calculate_statistics,
// and any name ParseStatistic accepts) with numpy's numerics; Rounded is
// Python's round(x, 4), as AISBench rounds them. The mean, the extremes and
// the percentiles' first count are taken in one pass over the samples.
func Statistics(names []string, values Pool) []Statistic {
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
	n := values.Len()
	var sum pynum.Sum
	var extremes pynum.MinMax
	var sel *selection
	if len(ps) > 0 && n >= selectMinLen {
		sel = newSelection(n)
	}
	if wantMean || wantExtremes || sel != nil {
		values.Each(func(xs []float64) {
			if wantMean {
				sum.Add(xs)
			}
			if wantExtremes {
				extremes.Add(xs)
			}
			if sel != nil {
				sel.countTop(xs)
			}
		})
	}
	lo, hi := extremes.Result()
	for i, name := range names {
		var raw float64
		switch name {
		case "Average":
			raw = sum.Mean()
		case "Min":
			raw = lo
		case "Max":
			raw = hi
		default:
			continue
		}
		out[i] = Statistic{Name: name, Raw: raw, Rounded: pynum.PyRound(raw, 4)}
	}
	if len(ps) > 0 {
		var raws []float64
		if sel != nil {
			raws = values.selectPercentiles(ps, n, sel, maxGather)
		} else {
			raws = values.sortedPercentiles(ps)
		}
		for k, raw := range raws {
			out[at[k]] = Statistic{Name: names[at[k]], Raw: raw, Rounded: pynum.PyRound(raw, 4)}
		}
	}
	return out
}

// selectMinLen is the Pool length from which percentiles selects rather
// than sorts: below it a sorted copy costs less than the counts (256 KB).
// It is above radixMinLen: selection gives the radix sort's values.
const selectMinLen = 1 << 16

// maxGather bounds the keys percentiles gathers right after its first
// count (8 MB): when the top buckets holding the wanted ranks hold more, a
// second count narrows them first, and costs a pass more.
const maxGather = 1 << 20

// wideTopLen is the Pool length above which the first count is of the keys'
// top 20 bits (4 MB of counts) rather than 16: a bucket is then a 256th of
// an octave, so that the buckets holding the wanted ranks of even tens of
// millions of intervals are few enough to gather.
const wideTopLen = maxGather

// percentiles returns pynum.PercentileSorted(s, q) for each q of qs, s being
// the Pool sorted by pynum.SortFloats. Pools shorter than selectMinLen are gathered
// and sorted so. Longer ones, which pynum.SortFloats would sort by radix, are not:
// only the order statistics read are found, by radix selection on the same
// keys: a count of the keys' top 16 or 20 bits, then the top buckets holding
// a wanted rank gathered and sorted; when they are too large to gather, a
// count of the next 16 bits within them comes first, and only the narrower
// buckets holding a rank are gathered. The values are the radix sort's (+0
// for -0; math.NaN() for any NaN, which it puts last and numpy returns), so
// the results are the same.
func (p Pool) Percentiles(qs []float64) []float64 { return p.percentiles(qs, maxGather) }

// percentiles is Percentiles gathering at most gatherMax keys before a
// second count (tests take both ways).
func (p Pool) percentiles(qs []float64, gatherMax int) []float64 {
	n := p.Len()
	if n < selectMinLen {
		return p.sortedPercentiles(qs)
	}
	sel := newSelection(n)
	p.Each(sel.countTop)
	return p.selectPercentiles(qs, n, sel, gatherMax)
}

// selection is radix selection's first count: of the keys' top bits.
type selection struct {
	shift uint     // a key's top digit is key >> shift
	top   []uint32 // counts: a Pool of 2^32 or more is sorted instead
	nan   bool     // a NaN seen: every percentile is NaN
}

func newSelection(n int) *selection {
	bits := 16
	if n > wideTopLen {
		bits = 20
	}
	return &selection{shift: uint(64 - bits), top: make([]uint32, 1<<bits)}
}

func (s *selection) countTop(xs []float64) {
	if s.nan {
		return
	}
	top, shift := s.top, s.shift
	for _, x := range xs {
		if math.IsNaN(x) {
			s.nan = true
			return
		}
		top[pynum.FloatKey(x)>>shift]++
	}
}

// selectPercentiles is percentiles of the n samples of p once sel has
// counted them all; the top buckets holding the ranks are gathered at once
// when they hold at most gatherMax keys.
func (p Pool) selectPercentiles(qs []float64, n int, sel *selection, gatherMax int) []float64 {
	out := make([]float64, len(qs))
	if sel.nan {
		for i := range out {
			out[i] = math.NaN()
		}
		return out
	}
	if uint64(n) > math.MaxUint32 { // the counts are uint32
		return p.sortedPercentiles(qs)
	}
	var ranks []int
	for _, q := range qs {
		lo, hi, _ := pynum.PercentilePositions(n, q)
		ranks = append(ranks, lo, hi)
	}
	slices.Sort(ranks)
	ranks = slices.Compact(ranks)

	// Each rank's top digit, its rank among the keys with that digit, and
	// their count, in one sweep of the counts (the ranks are in order).
	targets := make([]target, len(ranks))
	gather, digit, below := 0, 0, 0
	for i, r := range ranks {
		for r >= below+int(sel.top[digit]) {
			below += int(sel.top[digit])
			digit++
		}
		if i == 0 || targets[i-1].digit != digit {
			gather += int(sel.top[digit])
		}
		targets[i] = target{rank: r, digit: digit, within: r - below, size: int(sel.top[digit])}
	}
	var at map[int]float64
	if gather <= gatherMax {
		at = p.gatherTop(sel, targets)
	} else if at = p.gatherNarrowed(sel, targets); at == nil {
		return p.sortedPercentiles(qs)
	}
	for i, q := range qs {
		lo, hi, gamma := pynum.PercentilePositions(n, q)
		out[i] = pynum.Lerp(at[lo], at[hi], gamma)
	}
	return out
}

// target is one wanted rank: in its top digit's bucket, then (narrowed)
// in its second digit's.
type target struct {
	rank, within int // within: its rank among the keys of its bucket
	digit        int // its top digit
	size         int // the keys in its bucket
	group        int // narrowed: 1 + index of its top digit's second count
	second       int // narrowed: its digit in the next 16 bits
}

// gatherTop gathers the keys of the top buckets holding a rank, in one
// pass, and returns the value at each rank.
func (p Pool) gatherTop(sel *selection, targets []target) map[int]float64 {
	// The counts are read: their memory now numbers the buckets gathered
	// (1 + index in buckets), 0 for the others.
	index := sel.top
	clear(index)
	var buckets []gathered
	for _, t := range targets {
		if index[t.digit] == 0 {
			buckets = append(buckets, gathered{size: t.size})
			index[t.digit] = uint32(len(buckets))
		}
	}
	shift := sel.shift
	p.Each(func(xs []float64) {
		for _, x := range xs {
			k := pynum.FloatKey(x)
			if b := index[k>>shift]; b != 0 {
				buckets[b-1].add(k)
			}
		}
	})
	for _, b := range buckets {
		slices.Sort(b.keys)
	}
	at := make(map[int]float64, len(targets))
	for _, t := range targets {
		at[t.rank] = pynum.KeyFloat(buckets[index[t.digit]-1].at(t.within))
	}
	return at
}

// gatherNarrowed counts the next 16 bits of the keys in the top buckets
// holding a rank, then gathers the narrower buckets holding one: two
// passes. It returns nil when the ranks lie in more than maxSelectDigits
// top buckets.
func (p Pool) gatherNarrowed(sel *selection, targets []target) map[int]float64 {
	// groupOf is, per top digit, 0, or g << 16 for the g-th digit (from 1)
	// holding a wanted rank, whose counts of the next 16 bits are
	// hists[g<<16 : (g+1)<<16]: one array for all. The first counts are
	// read: their memory holds it.
	groupOf := sel.top
	clear(groupOf)
	groups := 0
	for i := range targets {
		t := &targets[i]
		if groupOf[t.digit] == 0 {
			if groups == maxSelectDigits {
				return nil
			}
			groups++
			groupOf[t.digit] = uint32(groups) << 16
		}
		t.group = int(groupOf[t.digit] >> 16)
	}
	shift, second := sel.shift, sel.shift-16
	hists := make([]uint32, (groups+1)<<16) // the first 1<<16 unused: group 0 is none
	p.Each(func(xs []float64) {
		for _, x := range xs {
			k := pynum.FloatKey(x)
			if g := groupOf[k>>shift]; g != 0 {
				hists[g|uint32(k>>second)&0xffff]++
			}
		}
	})
	for i := range targets {
		t := &targets[i]
		h := hists[t.group<<16 : (t.group+1)<<16]
		d, below := bucketOf(h, t.within)
		t.second, t.within, t.size = d, t.within-below, int(h[d])
	}
	// The narrowed buckets holding a rank, each gathered apart: hists now
	// number them (1 + index in buckets) instead of counting.
	clear(hists)
	var buckets []gathered
	for _, t := range targets {
		if i := t.group<<16 | t.second; hists[i] == 0 {
			buckets = append(buckets, gathered{size: t.size})
			hists[i] = uint32(len(buckets))
		}
	}
	p.Each(func(xs []float64) {
		for _, x := range xs {
			k := pynum.FloatKey(x)
			if g := groupOf[k>>shift]; g != 0 {
				if b := hists[g|uint32(k>>second)&0xffff]; b != 0 {
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
		at[t.rank] = pynum.KeyFloat(buckets[hists[t.group<<16|t.second]-1].at(t.within))
	}
	return at
}

// gathered is the keys of one bucket, size of them in all. While
// they are all one key (a Pool of equal values: token counts, say) only
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

// sortedPercentiles is percentiles by gathering the Pool and sorting it.
func (p Pool) sortedPercentiles(qs []float64) []float64 {
	sorted := p.Gather()
	pynum.SortFloats(sorted)
	out := make([]float64, len(qs))
	for i, q := range qs {
		out[i] = pynum.PercentileSorted(sorted, q)
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
