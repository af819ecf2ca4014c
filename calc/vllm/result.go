package vllm

import (
	"strconv"
)

// Result is calculate_metrics' BenchmarkMetrics and the run's duration,
// unrounded, with what could not be computed from the bytes.
type Result struct {
	Duration              float64 // seconds
	Completed, Failed     int
	TotalInput            int64
	InputKnown            bool // every successful request's prompt_len came from its usage
	TotalOutput           int64
	OutputKnown           bool   // every successful request's output tokens came from its usage
	OutputWhy             string // why not: "tokenizer", or the value the stream gave
	TPOTKnown             bool   // TPOT's statistics follow from the bytes
	RequestThroughput     float64
	OutputThroughput      float64
	TotalTokenThroughput  float64
	MaxOutputTokensPerS   float64
	MaxConcurrentRequests int
	RTFX                  float64
	TTFT, TPOT, ITL, E2EL Stats // seconds
	Percentiles           []float64
}

// Key is one key of the saved result: its value (int64, float64, or nil
// for Python's None), or why it is not computed.
type Key struct {
	Name        string
	Value       any
	NotComputed string // "" when computed
}

// Arguments are the keys main_async saves from the command line, before
// the results: not in the bytes.
var Arguments = []string{"date", "endpoint_type", "backend", "label", "model_id", "tokenizer_id",
	"num_prompts", "request_rate", "burstiness", "max_concurrency"}

const (
	whyArgument  = "an argument of the run (or the clock of the day), not in the bytes"
	whyTokenizer = "needs vLLM's tokenizer: a successful request's stream carries no usage completion_tokens (calculate_metrics counts generated_text with the tokenizer then)"
	whyDataset   = "needs the dataset's prompt lengths: a successful request's stream carries no usage prompt_tokens"
)

// Keys are the result keys as `vllm bench serve --save-result` writes them,
// in its order (main_async's, then benchmark()'s result dict, then
// process_one_metric's for ttft, tpot, itl and e2el), without
// --save-detailed's per-request lists.
func (r *Result) Keys() []Key {
	var ks []Key
	for _, a := range Arguments {
		ks = append(ks, Key{Name: a, NotComputed: whyArgument})
	}
	outWhy := whyTokenizer
	if r.OutputWhy != "" && r.OutputWhy != "tokenizer" {
		outWhy = "a successful request's usage has a " + r.OutputWhy + ", which calculate_metrics would use as it is"
	}
	known := func(name string, v any, ok bool, why string) Key {
		if !ok {
			return Key{Name: name, NotComputed: why}
		}
		return Key{Name: name, Value: v}
	}
	bothWhy := whyDataset
	if !r.OutputKnown {
		bothWhy = outWhy
	}
	ks = append(ks,
		Key{Name: "duration", Value: r.Duration},
		Key{Name: "completed", Value: int64(r.Completed)},
		Key{Name: "failed", Value: int64(r.Failed)},
		known("total_input_tokens", r.TotalInput, r.InputKnown, whyDataset),
		known("total_output_tokens", r.TotalOutput, r.OutputKnown, outWhy),
		Key{Name: "request_throughput", Value: r.RequestThroughput},
		Key{Name: "request_goodput", Value: nil},
		known("output_throughput", r.OutputThroughput, r.OutputKnown, outWhy),
		known("total_token_throughput", r.TotalTokenThroughput, r.OutputKnown && r.InputKnown, bothWhy),
		Key{Name: "max_output_tokens_per_s", Value: r.MaxOutputTokensPerS},
		Key{Name: "max_concurrent_requests", Value: int64(r.MaxConcurrentRequests)},
		Key{Name: "rtfx", Value: r.RTFX},
	)
	for _, m := range []struct {
		name string
		s    Stats
		ok   bool
	}{{"ttft", r.TTFT, true}, {"tpot", r.TPOT, r.TPOTKnown}, {"itl", r.ITL, true}, {"e2el", r.E2EL, true}} {
		// The std of at most one value is 0, whatever the value.
		stdOK := m.ok || r.Completed <= 1
		ks = append(ks,
			known("mean_"+m.name+"_ms", m.s.Mean*1000, m.ok, outWhy),
			known("median_"+m.name+"_ms", m.s.Median*1000, m.ok, outWhy),
			known("std_"+m.name+"_ms", m.s.Std*1000, stdOK, outWhy))
		for i, p := range r.Percentiles {
			ks = append(ks, known("p"+percentWord(p)+"_"+m.name+"_ms", m.s.Percentiles[i]*1000, m.ok, outWhy))
		}
	}
	return ks
}

// percentWord is process_one_metric's p_word: str(int(p)) when p is
// whole, else str(p).
func percentWord(p float64) string {
	if p == float64(int64(p)) {
		return strconv.FormatInt(int64(p), 10)
	}
	return strconv.FormatFloat(p, 'g', -1, 64)
}
