package aiperf

import (
	"cmp"
	"slices"

	"github.com/sseaudit/sseaudit/pynum"
)

// Calc gathers a run's requests and computes the metrics
// MetricRecordProcessor and MetricResultsProcessor give them.
type Calc struct {
	Rules   Rules
	outputs []Output
}

// Add takes one request's output.
func (c *Calc) Add(o Output) { c.outputs = append(c.outputs, o) }

// Outputs are the requests' outputs as added.
func (c *Calc) Outputs() []Output { return c.outputs }

// Percentiles are MetricArray.to_result's.
var Percentiles = [...]float64{1, 5, 10, 25, 50, 75, 90, 95, 99}

// Stats are MetricArray.to_result of one record metric's values (in its
// unit: ns for times, unconverted): np.mean, the percentiles, np.min,
// np.max, np.std.
type Stats struct {
	N                  int
	Avg, Min, Max, Std float64
	P                  [len(Percentiles)]float64
	values             []float64
}

func (s *Stats) add(x float64) { s.values = append(s.values, x) }

func (s *Stats) finish() {
	s.N = len(s.values)
	if s.N == 0 {
		return
	}
	var p []float64
	s.Avg, p, s.Min, s.Max, s.Std = pynum.Describe(s.values, Percentiles[:])
	copy(s.P[:], p)
}

// Result computes what AIPerf exports. The requests are taken in the order
// they ended (their bodies' end, ties in trace order): the order in which
// the records reach the results processor, which the pooled arrays (and
// so np.mean's and np.std's sums) follow.
func (c *Calc) Result() *Result {
	outs := slices.Clone(c.outputs)
	slices.SortStableFunc(outs, func(a, b Output) int { return cmp.Compare(a.EndNs, b.EndNs) })
	r := &Result{UsageKnown: c.Rules.AnyUsage}
	var minReq, maxResp int64
	nMax := 0
	for i := range outs {
		o := &outs[i]
		if !o.Valid() {
			r.Errors++ // error_request_count, error_isl
			continue
		}
		// MinRequestTimestampMetric: time.time_ns() at the request's start.
		if r.Valid == 0 || o.StartNs < minReq {
			minReq = o.StartNs
		}
		r.Valid++ // request_count, input_sequence_length
		first, last := o.Responses[0], o.Responses[len(o.Responses)-1]
		lat, latOK := last-o.StartNs, last >= o.StartNs
		if latOK {
			r.Latency.add(float64(lat))
			if lat != 0 { // get_or_raise: a latency of 0 is no value
				if nMax == 0 || o.StartNs+lat > maxResp {
					maxResp = o.StartNs + lat
				}
				nMax++
			}
		}
		ttft, ttftOK := first-o.StartNs, first >= o.StartNs
		if ttftOK {
			r.TTFT.add(float64(ttft))
		}
		if len(o.Responses) >= 2 && o.Responses[1] >= first {
			r.TTST.add(float64(o.Responses[1] - first))
		}
		r.addICL(o.Responses, c.Rules.ZeroIntervals)
		if c.Rules.AnyUsage {
			r.usageTokens(o, lat, ttft, latOK && ttftOK, c.Rules.TPOTOfOne)
		}
		if o.Output || o.Reasoning {
			r.OSL++
			// InterTokenLatencyMetric needs osl >= 2 (the tokenizer's) and a
			// truthy TTFT and latency; the per-user throughput a truthy ITL.
			if ttftOK && latOK && ttft != 0 && lat != 0 {
				r.ITL++
				if lat != ttft {
					r.PerUser++
				}
			}
		}
		if o.Output {
			r.OutputCount++
		}
		if o.Reasoning {
			r.ReasoningCount++
		}
	}
	r.MaxResponse = nMax > 0
	// BenchmarkDurationMetric: the last response (time_ns at the start plus
	// the latency) minus the first request's start.
	if r.Valid > 0 && nMax > 0 && minReq < maxResp {
		r.DurationNs, r.HasDuration = maxResp-minReq, true
	}
	for _, s := range []*Stats{&r.Latency, &r.TTFT, &r.TTST, &r.ICL, &r.TPOT} {
		s.finish()
	}
	return r
}

// addICL is InterChunkLatencyMetric: every interval between successive
// responses, none for a request with fewer than two or with an interval
// not positive (ValueError; zero allowed under the ZeroIntervals rule).
func (r *Result) addICL(ts []int64, zeros bool) {
	if len(ts) < 2 {
		return
	}
	for i := 1; i < len(ts); i++ {
		if d := ts[i] - ts[i-1]; d < 0 || d == 0 && !zeros {
			return
		}
	}
	for i := 1; i < len(ts); i++ {
		r.ICL.add(float64(ts[i] - ts[i-1]))
	}
	r.ICLRequests++
}

// usageTokens counts a valid request's output tokens as AISBench does
// (the AnyUsage rule: its last truthy usage, 0 unknown) and its
// InterTokenLatencyMetric from them: (latency - ttft) / (osl - 1) for osl
// >= 2; 0 for fewer under the TPOTOfOne rule.
func (r *Result) usageTokens(o *Output, lat, ttft int64, ok, tpotOfOne bool) {
	r.UsageKnown = r.UsageKnown && o.Usage != 0
	r.UsageTokens += o.Usage
	switch {
	case ok && o.Usage >= 2:
		r.TPOT.add(float64(lat-ttft) / float64(o.Usage-1))
	case tpotOfOne:
		r.TPOT.add(0)
	}
}
