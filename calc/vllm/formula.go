package vllm

import (
	"github.com/sseaudit/sseaudit/calc/internal/peak"
	"github.com/sseaudit/sseaudit/pynum"
)

// vLLM's formulas, written once, each from vllm/benchmarks/serve.py at
// 2f41c894e320a07a46a360ee72149dd84d6f4bec.

// TPOT is calculate_metrics' per-request time per output token:
// (latency - ttft) / (output_len - 1), for output_len > 1 only (ok false
// otherwise: the request adds no TPOT).
func TPOT(latency, ttft float64, outputLen int64) (tpot float64, ok bool) {
	if outputLen > 1 {
		return (latency - ttft) / float64(outputLen-1), true
	}
	return 0, false
}

// Stats are calculate_metrics' statistics of one metric, in seconds (the
// result keys are these times 1000): np.mean, np.std, np.median and
// np.percentile of the values, or of 0 when there are none (`values or 0`).
type Stats struct {
	Mean, Std, Median float64
	Percentiles       []float64 // at the selected percentiles
	Samples           int       // the values behind them
}

// StatsOf computes Stats of xs at the percentiles ps.
func StatsOf(xs []float64, ps []float64) Stats {
	s := Stats{Samples: len(xs)}
	if len(xs) == 0 {
		xs = []float64{0} // `ttfts or 0`: np.mean(0) is 0.0, and so on
	}
	s.Mean, s.Std, s.Median = pynum.NumpyMean(xs), pynum.NumpyStd(xs), pynum.NumpyMedian(xs)
	for _, p := range ps {
		s.Percentiles = append(s.Percentiles, pynum.NumpyPercentile(xs, p))
	}
	return s
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
