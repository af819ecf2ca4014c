package aisbench

// AISBench's per-request formulas (_calc_perf_data), written once: every
// figure that quotes AISBench's E2EL, TTFT, TPOT or a throughput of one
// request, and ITL's N, goes through them.

// E2EL is a request's end-to-end latency: its last time point minus t0.
func E2EL(t0, tm float64) float64 { return tm - t0 }

// TTFT is a request's time to first token: its second time point minus t0.
func TTFT(t0, t1 float64) float64 { return t1 - t0 }

// TPOT is (E2EL - TTFT) / (output tokens - 1), and 0 for a request with at
// most one output token.
func TPOT(e2el, ttft float64, outputTokens int64) float64 {
	if outputTokens > 1 {
		return (e2el - ttft) / float64(outputTokens-1)
	}
	return 0
}

// OutputTokenThroughput is a request's output tokens over its E2EL.
func OutputTokenThroughput(outputTokens int64, e2el float64) float64 {
	return float64(outputTokens) / e2el
}

// PrefillTokenThroughput is a request's input tokens over its TTFT, and 0
// when TTFT is not positive (Python's `if ttft and ttft > 0`: NaN is truthy
// but not > 0).
func PrefillTokenThroughput(inputTokens int64, ttft float64) float64 {
	if ttft > 0 {
		return float64(inputTokens) / ttft
	}
	return 0
}

// HasNonzeroInterval says whether a request counts towards ITL's (and
// TPOT's) N: numpy's .any() over its intervals, true for a nonzero or NaN
// interval; zero of them exactly 0.
func HasNonzeroInterval(intervals, zero int) bool { return intervals > zero }
