package evalscope

import (
	"math"
	"slices"
	"strconv"

	"github.com/sseaudit/sseaudit/pynum"
)

// EvalScope's formulas, written once, each from modelscope/evalscope at
// fde259d2a32ab8a4cdb3af44dc8b18f504f1e277.

// TPOT is BenchmarkData.finalize's time_per_output_token
// (evalscope/perf/utils/benchmark_util.py, finalize, l. 109): (latency - ttft) /
// (completion_tokens - 1) when completion_tokens > 1, else it stays 0.0,
// and the request still counts in the average.
func TPOT(latency, ttft float64, completion int64) float64 {
	if completion > 1 {
		return (latency - ttft) / float64(completion-1)
	}
	return 0
}

// DecodedPerIter is finalize's decoded_tokens_per_iter (l. 118-128):
// n_chunks is len(inter_chunk_latency) + 1 (0 without an interval),
// (completion_tokens - 1) / (n_chunks - 1) when completion_tokens > 1 and
// n_chunks > 1, else 0.
func DecodedPerIter(completion int64, intervals int) float64 {
	nChunks := 0
	if intervals > 0 {
		nChunks = intervals + 1
	}
	if completion > 1 && nChunks > 1 {
		return float64(completion-1) / float64(nChunks-1)
	}
	return 0
}

// AcceptRate is _build_speculative_decoding_fields' p = 1 - 1/L, clamped to
// [0, 1] (l. 534).
func AcceptRate(l float64) float64 {
	if l <= 0 {
		return 0
	}
	return max(0, min(1, 1-1/l))
}

// safeDiv is MetricsAccumulator.to_result's _safe_div: -1 when the
// denominator is 0.
func safeDiv(num, den float64) float64 {
	if den == 0 {
		return -1
	}
	return num / den
}

// Percentiles are get_percentile_results' (evalscope/perf/utils/db_util.py,
// l. 180, 253): 0 (the "min" row), 1, 5, 10, 25, 50, 75, 90, 95, 99 and 100
// ("max").
var Percentiles = []int{0, 1, 5, 10, 25, 50, 75, 90, 95, 99, 100}

// PercentileLabel is the row's label in benchmark_percentile.json.
func PercentileLabel(p int) string {
	switch p {
	case 0:
		return "min"
	case 100:
		return "max"
	}
	return strconv.Itoa(p) + "%"
}

// PercentilesOf is calculate_percentiles (db_util.py, l. 141) of data,
// unrounded (it rounds each to 2 decimals): data.sort(), then for p >= 100
// the last value, else data[int(n * p / 100)]; NaN when there is none
// (IndexError). ok is false when Python's sort cannot be reproduced here
// (64 values or more holding a NaN: see PySort).
func PercentilesOf(data []float64, ps []int) (vals []float64, ok bool) {
	xs := slices.Clone(data)
	if !PySort(xs) {
		return nil, false
	}
	n := len(xs)
	for _, p := range ps {
		v := math.NaN()
		switch {
		case n == 0:
		case p >= 100:
			v = xs[n-1]
		default:
			if idx := int(float64(n*p) / 100); idx < n {
				v = xs[idx]
			}
		}
		vals = append(vals, v)
	}
	return vals, true
}

// NumpyPercentilesOf is the rule switched to AISBench's: np.percentile of
// the same data (NaN when there is none).
func NumpyPercentilesOf(data []float64, ps []int) []float64 {
	var vals []float64
	for _, p := range ps {
		v := math.NaN()
		if len(data) > 0 {
			v = pynum.NumpyPercentile(data, float64(p))
		}
		vals = append(vals, v)
	}
	return vals
}

// PySort sorts xs as CPython 3.11's list.sort does with `<` on floats. A
// NaN compares false both ways, so where NaNs stand after the sort depends
// on the algorithm: for fewer than 64 values list.sort is count_run and a
// binary insertion sort (Objects/listobject.c, listsort with minrun equal
// to n), reproduced here step for step. Without a NaN every sort gives the
// same order. With 64 values or more and a NaN, timsort's merges would have
// to be reproduced: PySort leaves xs as it is and reports false.
func PySort(xs []float64) bool {
	n := len(xs)
	hasNaN := slices.ContainsFunc(xs, math.IsNaN)
	if !hasNaN {
		slices.Sort(xs)
		return true
	}
	if n >= 64 {
		return false
	}
	// count_run
	run, descending := 1, false
	if n > 1 {
		run = 2
		if xs[1] < xs[0] {
			descending = true
			for run < n && xs[run] < xs[run-1] {
				run++
			}
		} else {
			for run < n && !(xs[run] < xs[run-1]) {
				run++
			}
		}
	}
	if descending {
		slices.Reverse(xs[:run])
	}
	// binarysort(lo, hi, lo + run)
	for start := run; start < n; start++ {
		pivot := xs[start]
		l, r := 0, start
		for l < r {
			p := l + (r-l)>>1
			if pivot < xs[p] {
				r = p
			} else {
				l = p + 1
			}
		}
		copy(xs[l+1:start+1], xs[l:start])
		xs[l] = pivot
	}
	return true
}
