package aiperf

// Result is what MetricResultsProcessor.summarize gathers, before the
// exporter converts it to display units, with what the bytes cannot give.
type Result struct {
	Valid, Errors            int // request_count; error_request_count
	DurationNs               int64
	HasDuration              bool // benchmark_duration is derived
	MaxResponse              bool // max_response_timestamp has a value
	Latency, TTFT, TTST, ICL Stats
	ICLRequests              int // requests with inter-chunk latencies
	// The records with a value of each tokenizer-dependent metric, as far
	// as the bytes tell: OSL (an output or a reasoning text), ITL and
	// PerUser (also a truthy TTFT and latency; a latency other than the
	// TTFT), OutputCount, ReasoningCount.
	OSL, ITL, PerUser, OutputCount, ReasoningCount int
	// Under the AnyUsage rule (AISBench's): the output tokens from the
	// usage, whether every valid request had one, and TPOT
	// (inter_token_latency) from them, in ns.
	UsageTokens int64
	UsageKnown  bool
	TPOT        Stats
}

// Key is one key of the saved result: its value (float64), or why it is
// not computed.
type Key struct {
	Name        string
	Value       any
	NotComputed string
}

const (
	whyTokenizer = "needs AIPerf's tokenizer: it counts output tokens with it (InferenceResultParser.process_valid_record), never from the stream's usage"
	whyInput     = "needs AIPerf's tokenizer and the dataset's prompt (compute_input_token_count)"
	whyClock     = "the wall clock (time.time_ns) at the request's start, not in the bytes"
)

// Unit conversions as MetricTimeUnit.convert_to makes them: value *
// (other.per_second / self.per_second).
const (
	nsToMs  = 1000.0 / 1e9
	nsToSec = 1.0 / 1e9
)

// statNames are JsonMetricResult's stats, in its field order.
var statNames = [...]string{"avg", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "min", "max", "std"}

// Keys are profile_export_aiperf.json's metrics as "<tag>.<stat>"
// (JsonExportData's fields in order, each JsonMetricResult's stats in
// order, its unit left out), in display units (ms, sec), unrounded: the
// metrics AIPerf has a value of, the experimental and internal ones left
// out as the exporter leaves them.
func (r *Result) Keys() []Key {
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
	// A metric that needs what the bytes lack: all its stats not computed,
	// but the std of a single value, 0.0 whatever it is (when single is
	// true: the number of values follows from the bytes).
	unknown := func(tag string, n int, single bool, why string) {
		if n == 0 {
			return
		}
		for _, name := range statNames {
			if name == "std" && single && n == 1 {
				ks = append(ks, Key{Name: tag + ".std", Value: 0.0})
				continue
			}
			ks = append(ks, Key{Name: tag + "." + name, NotComputed: why})
		}
	}
	one := func(tag string, ok bool, v float64, why string) {
		switch {
		case !ok:
		case why != "":
			ks = append(ks, Key{Name: tag + ".avg", NotComputed: why})
		default:
			ks = append(ks, Key{Name: tag + ".avg", Value: v})
		}
	}
	dur := float64(r.DurationNs) * nsToSec
	one("request_throughput", r.HasDuration, float64(r.Valid)/dur, "")
	stats("request_latency", &r.Latency, nsToMs)
	one("request_count", r.Valid > 0, float64(r.Valid), "")
	stats("time_to_first_token", &r.TTFT, nsToMs)
	stats("time_to_second_token", &r.TTST, nsToMs)
	unknown("inter_token_latency", r.ITL, false, whyTokenizer)
	one("output_token_throughput", r.OSL > 0 && r.HasDuration, 0, whyTokenizer)
	unknown("output_token_throughput_per_user", r.PerUser, false, whyTokenizer)
	unknown("output_sequence_length", r.OSL, true, whyTokenizer)
	unknown("input_sequence_length", r.Valid, true, whyInput)
	unknown("output_token_count", r.OutputCount, true, whyTokenizer)
	unknown("reasoning_token_count", r.ReasoningCount, true, whyTokenizer)
	one("min_request_timestamp", r.Valid > 0, 0, whyClock)
	one("max_response_timestamp", r.MaxResponse, 0, whyClock)
	stats("inter_chunk_latency", &r.ICL, nsToMs)
	one("total_output_tokens", r.OutputCount > 0, 0, whyTokenizer)
	one("total_reasoning_tokens", r.ReasoningCount > 0, 0, whyTokenizer)
	one("benchmark_duration", r.HasDuration, dur, "")
	one("total_isl", r.Valid > 0, 0, whyInput)
	one("total_osl", r.OSL > 0, 0, whyTokenizer)
	one("error_request_count", r.Errors > 0, float64(r.Errors), "")
	unknown("error_isl", r.Errors, true, whyInput)
	one("total_error_isl", r.Errors > 0, 0, whyInput)
	return ks
}
