package sglang

import (
	"math"

	"github.com/sseaudit/sseaudit/pynum"
)

// SGLang's formulas, written once, each from
// python/sglang/benchmark/serving.py at
// db570fe619ae15d8bd4ee04f146bc8234c52a20d (calculate_metrics).

// TPOT is calculate_metrics' per-request time per output token:
// (latency - ttft) / (output_len - 1), for output_len > 1 only.
func TPOT(latency, ttft float64, outputLen int64) (float64, bool) {
	if outputLen > 1 {
		return (latency - ttft) / float64(outputLen-1), true
	}
	return 0, false
}

// Stats are one metric's statistics in seconds (the keys are these times
// 1000): np.mean, np.median, np.std and np.percentile at 90, 95 and 99.
type Stats struct {
	Mean, Median, Std, P90, P95, P99 float64
	Samples                          int
}

// StatsOf computes Stats of xs; orZero is calculate_metrics' `xs or 0`
// (TTFT, TPOT, ITL): no values is one 0. E2E has no `or 0`:
// np.percentile of nothing raises (ok false then).
func StatsOf(xs []float64, orZero bool) (s Stats, ok bool) {
	s.Samples = len(xs)
	if len(xs) == 0 {
		if !orZero {
			return s, false
		}
		xs = []float64{0}
	}
	s.Mean, s.Median, s.Std = pynum.NumpyMean(xs), pynum.NumpyMedian(xs), pynum.NumpyStd(xs)
	s.P90, s.P95, s.P99 = pynum.NumpyPercentile(xs, 90), pynum.NumpyPercentile(xs, 95), pynum.NumpyPercentile(xs, 99)
	return s, true
}

// Peak is calculate_metrics' max_output_tokens_per_s and
// max_concurrent_requests: tokens (the first at start_time + ttft, then one
// at each ITL added on) and requests in flight counted in one-second buckets
// from the first successful start_time (int(t - min_start), truncated), over
// int(np.ceil(max_end - min_start)) + 1 buckets, a request's seconds
// stopping at the last bucket; the fullest bucket of each.
func Peak(outputs []Output) (tokensPerS float64, concurrent int) {
	first := true
	var minStart, maxEnd float64
	for i := range outputs {
		o := &outputs[i]
		if !o.Success {
			continue
		}
		end := o.StartTime + o.Latency
		if first || o.StartTime < minStart {
			minStart = o.StartTime
		}
		if first || end > maxEnd {
			maxEnd = end
		}
		first = false
	}
	if first {
		return 0, 0
	}
	n := int(math.Ceil(maxEnd-minStart)) + 1
	if n <= 0 {
		return 0, 0
	}
	tokens := make([]float64, n)
	inFlight := make([]float64, n)
	for i := range outputs {
		o := &outputs[i]
		if !o.Success {
			continue
		}
		t := o.StartTime + o.TTFT
		bucket(tokens, t-minStart)
		for _, itl := range o.ITL {
			t += itl
			bucket(tokens, t-minStart)
		}
		from := int(o.StartTime - minStart)
		to := min(int((o.StartTime+o.Latency)-minStart)+1, n)
		for s := max(from, 0); s < to; s++ {
			inFlight[s]++
		}
	}
	return pynum.NumpyMax(tokens), int(pynum.NumpyMax(inFlight))
}

func bucket(counts []float64, offset float64) {
	if b := int(offset); b >= 0 && b < len(counts) {
		counts[b]++
	}
}
