package vllm

import (
	"math"

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
// max_concurrent_requests: tokens (the first at start_time + ttft, then one
// at each ITL added on) and requests in flight counted in one-second buckets
// from the first successful start_time, int(t - min_start) truncated, over
// int(np.ceil(max_end - min_start)) + 1 buckets; the fullest bucket of each.
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
		to := int((o.StartTime+o.Latency)-minStart) + 1
		for s := max(from, 0); s < to && s < n; s++ {
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
