package sglang

import (
	"github.com/sseaudit/sseaudit/calc/internal/peak"
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
// max_concurrent_requests, counted over the successful outputs (package
// peak).
func Peak(outputs []Output) (tokensPerS float64, concurrent int) {
	return peak.Of(len(outputs), func(i int) (peak.Request, bool) {
		o := &outputs[i]
		return peak.Request{Start: o.StartTime, TTFT: o.TTFT, Latency: o.Latency, ITL: o.ITL}, o.Success
	})
}
