package evalscope

// Result is MetricsAccumulator.to_result's BenchmarkMetrics and
// get_percentile_results' columns, unrounded, with what could not be
// computed from the bytes. Times are in seconds.
type Result struct {
	// Err is the exception EvalScope's metric code raises on these bytes
	// ("" none): then it saves nothing.
	Err                      string
	Duration                 float64 // total_time: wall_time
	Total, Success           int
	PromptKnown, OutputKnown bool   // every success's counts came from the stream
	PromptWhy, OutputWhy     string // why not: "tokenizer", or the value the stream gave
	TPOTKnown                bool   // TPOT follows from the bytes
	QPS                      float64
	AvgLatency, AvgTTFT      float64 // -1 without a success
	AvgTPOT, AvgITL          float64
	AvgPrompt, AvgOutput     float64
	OutputThroughput         float64
	TotalThroughput          float64
	TotalOutput              int64
	ITLSamples               int
	AvgDecoded               float64 // avg_decoded_tokens_per_iter, -1 for none
	Percentiles              [numColumns][]float64
	PercentilesOK            [numColumns]bool
}

// Key is one key of the saved result: its value (int64, float64), or why
// it is not computed.
type Key struct {
	Name        string
	Value       any
	NotComputed string // "" when computed
}

const (
	whyArgument  = "an argument of the run (--parallel, --rate), not in the bytes"
	whyTokenizer = "needs the tokenizer of --tokenizer-path: a successful request's stream carries no usage with both counts (OpenaiPlugin.parse_responses counts the generated text then, and raises ValueError without a tokenizer)"
	whySort      = "Python's timsort of 64 values or more holding a NaN (a request of latency or TPOT 0) is not reproduced here: where the NaNs land depends on its merges"
)

// Keys are benchmark_summary.json's keys (BenchmarkSummary.to_dict: its
// fields by alias, None left out, in field order), then
// benchmark_percentile.json's as "<column> <row>" ("TTFT (ms) 99%"), row by
// row as the file holds them, every value unrounded (EvalScope rounds
// them as it saves them: create_message to 4 decimals, the ms values to 2;
// calculate_percentiles to 2).
func (r *Result) Keys() []Key {
	outWhy := r.why(r.OutputWhy)
	promptWhy := r.why(r.PromptWhy)
	bothWhy := promptWhy
	if !r.OutputKnown {
		bothWhy = outWhy
	}
	k := func(name string, v any, ok bool, why string) Key {
		if !ok {
			return Key{Name: name, NotComputed: why}
		}
		return Key{Name: name, Value: v}
	}
	ks := []Key{
		{Name: "Test Duration (s)", Value: r.Duration},
		{Name: "Concurrency", NotComputed: whyArgument},
		{Name: "Request Rate (req/s)", NotComputed: whyArgument},
		{Name: "Total Requests", Value: int64(r.Total)},
		{Name: "Success Requests", Value: int64(r.Success)},
		{Name: "Failed Requests", Value: int64(r.Total - r.Success)},
		{Name: "Stream Requests", Value: int64(r.Total)},
		{Name: "Non-Stream Requests", Value: int64(0)},
		{Name: "Req Throughput (req/s)", Value: r.QPS},
		{Name: "Avg Latency (s)", Value: r.AvgLatency},
		k("Avg Input Tokens", r.AvgPrompt, r.PromptKnown, promptWhy),
		k("Output Throughput (tok/s)", r.OutputThroughput, r.OutputKnown, outWhy),
		k("Total Throughput (tok/s)", r.TotalThroughput, r.OutputKnown && r.PromptKnown, bothWhy),
		{Name: "Avg TTFT (ms)", Value: r.AvgTTFT * 1000},
		k("Avg TPOT (ms)", r.AvgTPOT*1000, r.TPOTKnown, outWhy),
		{Name: "Avg ITL (ms)", Value: r.AvgITL * 1000},
		k("Avg Output Tokens", r.AvgOutput, r.OutputKnown, outWhy),
		{Name: "Input Throughput (tok/s)", Value: 0.0},
	}
	switch {
	case !r.OutputKnown && r.ITLSamples > 0:
		ks = append(ks, Key{Name: "Avg Decoded Tok/Iter", NotComputed: outWhy}, Key{Name: "Spec. Accept Rate", NotComputed: outWhy})
	case r.AvgDecoded > 0:
		ks = append(ks, Key{Name: "Avg Decoded Tok/Iter", Value: r.AvgDecoded}, Key{Name: "Spec. Accept Rate", Value: AcceptRate(r.AvgDecoded)})
	}
	colOK := [numColumns]bool{true, true, true, r.TPOTKnown, r.PromptKnown, r.OutputKnown, r.OutputKnown,
		r.OutputKnown && r.PromptKnown, r.TPOTKnown}
	colWhy := [numColumns]string{"", "", "", outWhy, promptWhy, outWhy, outWhy, bothWhy, outWhy}
	for i, p := range Percentiles {
		for c := range numColumns {
			name := ColumnNames[c] + " " + PercentileLabel(p)
			switch {
			case !colOK[c]:
				ks = append(ks, Key{Name: name, NotComputed: colWhy[c]})
			case !r.PercentilesOK[c]:
				ks = append(ks, Key{Name: name, NotComputed: whySort})
			default:
				ks = append(ks, Key{Name: name, Value: r.Percentiles[c][i]})
			}
		}
	}
	return ks
}

func (r *Result) why(w string) string {
	if w == "" || w == "tokenizer" {
		return whyTokenizer
	}
	return "a successful request's usage has " + w + ", which EvalScope would add as it is"
}
