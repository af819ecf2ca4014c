package pynum

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// This file reproduces, bit for bit, the numpy 1.24 and CPython 3.11 arithmetic
// that AISBench's calculators run: the summary statistics must equal AISBench's
// to the last digit, so nothing here may be "equivalent up to rounding".

// numpyBufferSize is numpy's default ufunc buffer (np.getbufsize()): np.sum and
// np.mean reduce a float64 array in chunks of this many elements, pairwise within
// each chunk, left to right across chunks.
const numpyBufferSize = 8192

// numpyPairwiseBlock is PW_BLOCKSIZE in numpy's loops_utils.h.
const numpyPairwiseBlock = 128

// NumpySum returns np.sum(xs) for a float64 array, as numpy computes it.
func NumpySum(xs []float64) float64 {
	total := 0.0
	for start := 0; start < len(xs); start += numpyBufferSize {
		end := min(start+numpyBufferSize, len(xs))
		total += pairwiseSum(xs[start:end])
	}
	return total
}

// NumpyMean returns np.mean(xs): NumpySum divided by the count; NaN when empty.
func NumpyMean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return NumpySum(xs) / float64(len(xs))
}

// Sum adds values in order as NumpySum adds one array of all of them:
// pairwise within each chunk of numpyBufferSize values, the chunks left to
// right. A pool's mean is so taken without gathering the pool.
type Sum struct {
	chunk []float64
	total float64
	n     int
}

// Add adds xs after the values added so far.
func (s *Sum) Add(xs []float64) {
	s.n += len(xs)
	for len(xs) > 0 {
		if len(s.chunk) == 0 && len(xs) >= numpyBufferSize {
			// A whole chunk in xs: summed where it lies.
			s.total += pairwiseSum(xs[:numpyBufferSize])
			xs = xs[numpyBufferSize:]
			continue
		}
		if s.chunk == nil {
			s.chunk = make([]float64, 0, numpyBufferSize)
		}
		k := min(len(xs), numpyBufferSize-len(s.chunk))
		s.chunk = append(s.chunk, xs[:k]...)
		xs = xs[k:]
		if len(s.chunk) == numpyBufferSize {
			s.total += pairwiseSum(s.chunk)
			s.chunk = s.chunk[:0]
		}
	}
}

// Len is the number of values added.
func (s *Sum) Len() int { return s.n }

// Mean is NumpyMean of the values added: NaN when there are none.
func (s *Sum) Mean() float64 {
	if s.n == 0 {
		return math.NaN()
	}
	total := s.total
	if len(s.chunk) > 0 {
		total += pairwiseSum(s.chunk)
	}
	return total / float64(s.n)
}

// pairwiseSum is numpy's DOUBLE_pairwise_sum: a plain loop under 8 values, eight
// unrolled accumulators up to the block size, recursive halving (kept a multiple
// of 8) above it.
func pairwiseSum(xs []float64) float64 {
	n := len(xs)
	switch {
	case n < 8:
		res := 0.0
		for _, x := range xs {
			res += x
		}
		return res
	case n <= numpyPairwiseBlock:
		var r [8]float64
		copy(r[:], xs[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			for j := range r {
				r[j] += xs[i+j]
			}
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			res += xs[i]
		}
		return res
	default:
		half := n / 2
		half -= half % 8
		return pairwiseSum(xs[:half]) + pairwiseSum(xs[half:])
	}
}

// NumpyPercentile returns np.percentile(xs, p) with numpy 1.24's default
// 'linear' method: virtual index (n-1)*(p/100), the neighbours by floor, and
// numpy's two-sided _lerp. Any NaN makes the result NaN; an empty input too.
func NumpyPercentile(xs []float64, p float64) float64 {
	sorted := slices.Clone(xs)
	SortFloats(sorted)
	return PercentileSorted(sorted, p)
}

// CompareNaNLast orders floats ascending with NaN last, as numpy's sort does.
func CompareNaNLast(a, b float64) int {
	switch {
	case math.IsNaN(a) && math.IsNaN(b):
		return 0
	case math.IsNaN(a):
		return 1
	case math.IsNaN(b):
		return -1
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// PercentileSorted is NumpyPercentile on values already sorted NaN last.
func PercentileSorted(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	if math.IsNaN(sorted[n-1]) {
		return sorted[n-1]
	}
	lo, hi, gamma := PercentilePositions(n, p)
	return Lerp(sorted[lo], sorted[hi], gamma)
}

// PercentilePositions are the positions in n sorted values (n > 0) that
// np.percentile's 'linear' method interpolates between for p, and its weight.
func PercentilePositions(n int, p float64) (lo, hi int, gamma float64) {
	quantile := p / 100
	virtual := float64(n-1) * quantile
	previous := math.Floor(virtual)
	next := previous + 1
	if virtual >= float64(n-1) {
		previous, next = -1, -1
	}
	if virtual < 0 {
		previous, next = 0, 0
	}
	if math.IsNaN(virtual) {
		previous, next = -1, -1
	}
	at := func(i float64) int {
		k := int(i)
		if k < 0 {
			k += n
		}
		if k >= n {
			k = n - 1
		}
		return k
	}
	// numpy computes gamma from the indices after the bound fixes (so -1 above).
	return at(previous), at(next), virtual - previous
}

// Lerp is numpy's _lerp: a+(b-a)*t below one half, b-(b-a)*(1-t) from it.
func Lerp(a, b, t float64) float64 {
	diff := b - a
	if t >= 0.5 {
		return b - diff*(1-t)
	}
	return a + diff*t
}

// NumpyDiff returns np.diff(xs): xs[i+1]-xs[i]; empty for fewer than two values.
func NumpyDiff(xs []float64) []float64 {
	if len(xs) < 2 {
		return []float64{}
	}
	out := make([]float64, len(xs)-1)
	for i := range out {
		out[i] = xs[i+1] - xs[i]
	}
	return out
}

// SecondsFromNanos is how a captured arrival time in int64 nanoseconds enters
// AISBench's arithmetic: Python's t_ns / 1e9, the value time.perf_counter()
// would have returned on a clock with that origin.
func SecondsFromNanos(ns int64) float64 {
	return float64(ns) / 1e9
}

// PySum returns Python's sum(xs): one left-to-right loop starting from 0.
// Python 3.12+ compensates sums of exact floats, but AISBench's lists hold
// np.float64 (a float subclass, added through the generic path), so the plain
// loop holds there too; the oracle runs CPython 3.11.
func PySum(xs []float64) float64 {
	total := 0.0
	for _, x := range xs {
		total += x
	}
	return total
}

// PyRound returns Python's round(x, ndigits) for a float: the correctly rounded
// decimal (ties to even on the exact binary value), read back as a float.
func PyRound(x float64, ndigits int) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || x == 0 {
		return x
	}
	rounded, err := strconv.ParseFloat(strconv.FormatFloat(x, 'f', ndigits, 64), 64)
	if err != nil {
		// Only overflow can fail here, and round never overflows a finite
		// float for ndigits >= 0: keep the input.
		return x
	}
	if rounded == 0 {
		return math.Copysign(0, x)
	}
	return rounded
}

// NumpyRound returns round(np.float64(x), decimals) as numpy 1.24 computes it:
// rint(x * 10**decimals) / 10**decimals. Unlike PyRound it is not correctly
// rounded (round(np.float64(1803.40635), 4) is 1803.4064, Python's 1803.4063);
// AISBench applies it to every value derived from time points without float().
func NumpyRound(x float64, decimals int) float64 {
	scale := 1.0
	for range decimals {
		scale *= 10
	}
	return math.RoundToEven(x*scale) / scale
}

// PyFloatRepr returns Python's repr(x) (= str(x)) for a float, which is also
// str(np.float64(x)) and what json.dump writes: the shortest round-trip digits,
// positional for 1e-4 <= |x| < 1e16 with at least one decimal ("100.0"),
// scientific otherwise with a two-digit exponent ("1e-05", "1.5e+16").
func PyFloatRepr(x float64) string {
	switch {
	case math.IsNaN(x):
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	sci := strconv.FormatFloat(x, 'e', -1, 64) // e.g. "-1.2345e+06"
	mantissa, expText, _ := strings.Cut(sci, "e")
	exp, _ := strconv.Atoi(expText)
	sign := ""
	if strings.HasPrefix(mantissa, "-") {
		sign, mantissa = "-", mantissa[1:]
	}
	digits := strings.Replace(mantissa, ".", "", 1)
	if exp < -4 || exp >= 16 {
		expSign := "+"
		if exp < 0 {
			expSign, exp = "-", -exp
		}
		expDigits := strconv.Itoa(exp)
		if len(expDigits) < 2 {
			expDigits = "0" + expDigits
		}
		return sign + mantissa + "e" + expSign + expDigits
	}
	point := exp + 1 // digits before the decimal point
	var b strings.Builder
	b.WriteString(sign)
	switch {
	case point <= 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -point))
		b.WriteString(digits)
	case point >= len(digits):
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", point-len(digits)))
		b.WriteString(".0")
	default:
		b.WriteString(digits[:point])
		b.WriteByte('.')
		b.WriteString(digits[point:])
	}
	return b.String()
}
