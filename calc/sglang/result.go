package sglang

// Result is calculate_metrics' BenchmarkMetrics and the run's duration,
// unrounded, with what could not be computed from the bytes.
type Result struct {
	// Err is the exception calculate_metrics raises, "" for none: then
	// SGLang writes no result at all.
	Err                   string
	Duration              float64
	Completed             int
	TotalOutput           int64
	OutputKnown           bool   // every success's output_len came from its stream
	OutputWhy             string // why not: "dataset", or the value the stream gave
	TPOTKnown             bool
	RequestThroughput     float64
	OutputThroughput      float64
	TTFT, TPOT, ITL, E2E  Stats // seconds
	Concurrency           float64
	MaxOutputTokensPerS   float64
	MaxConcurrentRequests int
}

// Key is one key of the saved result: its value (int64, float64, or nil
// for Python's None), or why it is not computed.
type Key struct {
	Name        string
	Value       any
	NotComputed string
}

// Arguments are the result's keys that are bench_serving's arguments or
// the server's answers, not anything the bytes hold.
var Arguments = []string{"tag", "backend", "dataset_name", "request_rate", "max_concurrency", "sharegpt_output_len",
	"random_input_len", "random_output_len", "random_range_ratio", "server_info"}

const (
	whyArgument  = "an argument of the run or the server's /server_info, not in the bytes"
	whyDataset   = "needs the dataset: its prompt lengths (calculate_metrics sums input_requests[i].prompt_len)"
	whyTokenizer = "needs SGLang's tokenizer (it retokenizes generated_text)"
	whyOutput    = "needs the dataset's output_len: a successful request's stream carries no usage completion_tokens, and the request function keeps the dataset's then"
)

// Keys are the result keys as benchmark() writes them (its result dict, in
// its order), or, when calculate_metrics raised, every key not computed.
func (r *Result) Keys() []Key {
	outWhy := whyOutput
	if r.OutputWhy != "" && r.OutputWhy != "dataset" {
		outWhy = "a successful request's usage has a " + r.OutputWhy
	}
	var ks []Key
	for _, a := range Arguments {
		ks = append(ks, Key{Name: a, NotComputed: whyArgument})
	}
	known := func(name string, v any, ok bool, why string) Key {
		if !ok || r.Err != "" {
			if r.Err != "" {
				why = "SGLang stops in calculate_metrics: " + r.Err
			}
			return Key{Name: name, NotComputed: why}
		}
		return Key{Name: name, Value: v}
	}
	stats := func(name string, s Stats, ok bool, why string) {
		ks = append(ks,
			known("mean_"+name+"_ms", s.Mean*1000, ok, why),
			known("median_"+name+"_ms", s.Median*1000, ok, why),
			known("std_"+name+"_ms", s.Std*1000, ok || r.Completed <= 1, why), // the std of at most one value is 0
			known("p90_"+name+"_ms", s.P90*1000, ok, why),
			known("p95_"+name+"_ms", s.P95*1000, ok, why),
			known("p99_"+name+"_ms", s.P99*1000, ok, why))
	}
	ks = append(ks,
		known("duration", r.Duration, true, ""),
		known("completed", int64(r.Completed), true, ""),
		known("total_input_tokens", nil, false, whyDataset),
		known("total_input_text_tokens", nil, false, whyDataset),
		known("total_input_vision_tokens", nil, false, whyDataset),
		known("total_output_tokens", r.TotalOutput, r.OutputKnown, outWhy),
		known("total_output_tokens_retokenized", nil, false, whyTokenizer),
		known("request_throughput", r.RequestThroughput, true, ""),
		known("input_throughput", nil, false, whyDataset),
		known("output_throughput", r.OutputThroughput, r.OutputKnown, outWhy),
		known("total_throughput", nil, false, whyDataset),
	)
	stats("e2e_latency", r.E2E, true, "")
	stats("ttft", r.TTFT, true, "")
	stats("tpot", r.TPOT, r.TPOTKnown, outWhy)
	stats("itl", r.ITL, true, "")
	ks = append(ks,
		known("concurrency", r.Concurrency, true, ""),
		Key{Name: "accept_length", NotComputed: "the server's /server_info (avg_spec_accept_length), not in the bytes; with it, sglang-oai backends retokenize ITL"},
		known("max_output_tokens_per_s", r.MaxOutputTokensPerS, true, ""),
		known("max_concurrent_requests", int64(r.MaxConcurrentRequests), true, ""),
	)
	return ks
}
