package genaiperf

// Result is what LLMProfileDataParser's Statistics hold, with what the
// bytes cannot give.
type Result struct {
	// Err is the exception that stops perf_analyzer or GenAI-Perf on these
	// bytes ("" none): then it saves nothing.
	Err               string
	Requests          int     // every request of the run
	Kept              int     // the requests left with a response (request_count)
	Multi             int     // those with two responses or more (TTST; ITL with the tokenizer)
	SameText          bool    // every kept request's text is the same (their token counts too)
	SameITL           bool    // every request of Multi has the same text and latency - TTFT (the same ITL)
	Duration          float64 // benchmark_duration, in s
	RequestThroughput float64
	Latency, TTFT     Stats
	TTST              Stats
	// Under AISBench's rules: the output tokens from the usage, whether
	// every kept request had one, TPOT (inter_token_latency) from them and
	// the pooled intervals between responses, in ns.
	UsageTokens  int64
	UsageKnown   bool
	TPOT, Pooled Stats
}

// Key is one key of the saved result: its value (float64), or why it is
// not computed.
type Key struct {
	Name        string
	Value       any
	NotComputed string
}

const (
	whyTokenizer = "needs GenAI-Perf's tokenizer (--tokenizer): it counts output tokens with it, never from the stream's usage"
	whyInput     = "needs GenAI-Perf's tokenizer and the dataset's prompts (_get_input_token_count)"
)

// nsToMs is scale_data's factor, 1 / 1e6.
const nsToMs = 1 / 1e6

var statNames = [...]string{"avg", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "min", "max", "std"}

// Keys are profile_export_genai_perf.json's metrics as "<metric>.<stat>"
// (LLMMetrics' order; each metric's stats as Statistics adds them, its
// "unit" left out), the time metrics in ms (scale_data), unrounded. A
// system metric (request_throughput, request_count,
// output_token_throughput) has avg only. None when Err.
func (r *Result) Keys() []Key {
	if r.Err != "" {
		return nil // GenAI-Perf saves nothing
	}
	var ks []Key
	stats := func(tag string, s *Stats, scale float64) {
		if s.N == 0 {
			return
		}
		vals := [len(statNames)]float64{s.Avg}
		copy(vals[1:10], s.P[:])
		vals[10], vals[11], vals[12] = s.Min, s.Max, s.Std
		for i, name := range statNames {
			ks = append(ks, Key{Name: tag + "." + name, Value: vals[i] * scale})
		}
	}
	// A metric of token counts: not computed, but for a std that is 0.0
	// whatever the counts.
	unknown := func(tag string, n int, std0 bool, why string) {
		if n == 0 {
			return
		}
		for _, name := range statNames {
			if name == "std" && std0 {
				ks = append(ks, Key{Name: tag + ".std", Value: 0.0})
				continue
			}
			ks = append(ks, Key{Name: tag + "." + name, NotComputed: why})
		}
	}
	ks = append(ks, Key{Name: "request_throughput.avg", Value: r.RequestThroughput})
	stats("request_latency", &r.Latency, nsToMs)
	ks = append(ks, Key{Name: "request_count.avg", Value: float64(r.Kept)})
	stats("time_to_first_token", &r.TTFT, nsToMs)
	stats("time_to_second_token", &r.TTST, nsToMs)
	unknown("inter_token_latency", r.Multi, r.SameITL, whyTokenizer)
	if r.Kept == 0 {
		// sum([]) / benchmark_duration: 0 over -inf.
		ks = append(ks, Key{Name: "output_token_throughput.avg", Value: 0 / r.Duration})
	} else {
		ks = append(ks, Key{Name: "output_token_throughput.avg", NotComputed: whyTokenizer})
	}
	unknown("output_token_throughput_per_user", r.Multi, r.SameITL, whyTokenizer)
	unknown("output_sequence_length", r.Kept, r.SameText, whyTokenizer)
	unknown("input_sequence_length", r.Kept, r.Kept == 1, whyInput)
	return ks
}
