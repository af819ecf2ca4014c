// Package peak is the busiest second of a run as vLLM's benchmark_serving
// counts it (calculate_metrics' max_output_tokens_per_s and
// max_concurrent_requests), which SGLang's bench_serving, a fork of it,
// counts the same way.
package peak

import (
	"math"

	"github.com/sseaudit/sseaudit/pynum"
)

// Request is what the count reads of a successful request, in seconds.
type Request struct {
	Start, TTFT, Latency float64
	ITL                  []float64
}

// Of counts tokens (the first at start + ttft, then one at each ITL added
// on) and requests in flight in one-second buckets from the first
// successful start (int(t - min_start), truncated), over
// int(np.ceil(max_end - min_start)) + 1 buckets, a request's seconds
// stopping at the last bucket; it returns the fullest bucket of each. at
// gives request i, and whether it succeeded (only successes count).
func Of(n int, at func(i int) (Request, bool)) (tokensPerS float64, concurrent int) {
	first := true
	var minStart, maxEnd float64
	for i := range n {
		r, ok := at(i)
		if !ok {
			continue
		}
		end := r.Start + r.Latency
		if first || r.Start < minStart {
			minStart = r.Start
		}
		if first || end > maxEnd {
			maxEnd = end
		}
		first = false
	}
	if first {
		return 0, 0
	}
	buckets := int(math.Ceil(maxEnd-minStart)) + 1
	if buckets <= 0 {
		return 0, 0
	}
	tokens := make([]float64, buckets)
	inFlight := make([]float64, buckets)
	for i := range n {
		r, ok := at(i)
		if !ok {
			continue
		}
		t := r.Start + r.TTFT
		bucket(tokens, t-minStart)
		for _, itl := range r.ITL {
			t += itl
			bucket(tokens, t-minStart)
		}
		from := int(r.Start - minStart)
		to := min(int((r.Start+r.Latency)-minStart)+1, buckets)
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
