package genaiperf

import (
	"math"

	"github.com/sseaudit/sseaudit/pynum"
)

// Calc gathers a run's requests and computes LLMProfileDataParser's
// metrics.
type Calc struct {
	Rules   Rules
	outputs []Output
}

// Add takes one request's output, in trace order (the profile export's).
func (c *Calc) Add(o Output) { c.outputs = append(c.outputs, o) }

// Outputs are the requests' outputs as added.
func (c *Calc) Outputs() []Output { return c.outputs }

// Percentiles are Statistics._calculate_percentiles'.
var Percentiles = [...]float64{1, 5, 10, 25, 50, 75, 90, 95, 99}

// Stats are Statistics' of one metric's values, in ns for times: np.mean,
// the percentiles, np.min, np.max, np.std (N 0: the metric is skipped).
type Stats struct {
	N                  int
	Avg, Min, Max, Std float64
	P                  [len(Percentiles)]float64
}

func statsOf(xs []float64) Stats {
	s := Stats{N: len(xs)}
	if s.N > 0 {
		var p []float64
		s.Avg, p, s.Min, s.Max, s.Std = pynum.Describe(xs, Percentiles[:])
		copy(s.P[:], p)
	}
	return s
}

// Result computes _parse_requests (llm_profile_data_parser.py, l. 112):
// over the requests left with a response, the request latency (the last
// response minus the request's timestamp), TTFT, TTST; the benchmark
// duration from the first timestamp to the last response; the request
// throughput over every request of the run.
func (c *Calc) Result() *Result {
	r := &Result{Requests: len(c.outputs)}
	var lat, ttft, ttst, tpot, pooled []float64
	r.UsageKnown = c.Rules.AnyUsage
	var minReq, maxRes, itlSpan int64
	var itlText string
	for i := range c.outputs {
		o := &c.outputs[i]
		if o.Stop != "" {
			r.Err = "perf_analyzer stops: " + o.Stop
			return r
		}
		if o.Err != "" {
			r.Err = o.Err
			return r
		}
		if len(o.Responses) == 0 {
			continue // "Skip requests with empty response"
		}
		first, last := o.Responses[0], o.Responses[len(o.Responses)-1]
		if r.Kept == 0 || o.StartNs < minReq {
			minReq = o.StartNs
		}
		if r.Kept == 0 || last > maxRes {
			maxRes = last
		}
		lat = append(lat, float64(last-o.StartNs))
		ttft = append(ttft, float64(first-o.StartNs))
		if len(o.Responses) > 1 {
			ttst = append(ttst, float64(o.Responses[1]-first))
			// ITL: round((latency - ttft) / (osl - 1)), the same for requests
			// of the same text and the same latency - ttft.
			if r.Multi == 0 {
				r.SameITL, itlText, itlSpan = true, o.Text, last-first
			} else if o.Text != itlText || last-first != itlSpan {
				r.SameITL = false
			}
			r.Multi++
		}
		if c.Rules.AnyUsage {
			tpot = c.usageTPOT(r, o, tpot)
		}
		if c.Rules.Pooled {
			for k := 1; k < len(o.Responses); k++ {
				pooled = append(pooled, float64(o.Responses[k]-o.Responses[k-1]))
			}
		}
		if r.Kept == 0 {
			r.SameText = true
		} else if o.Text != c.firstText() {
			r.SameText = false
		}
		r.Kept++
	}
	// benchmark_duration = (max_res_timestamp - min_req_timestamp) / 1e9,
	// from inf and 0 when no request is left.
	r.Duration = math.Inf(-1)
	if r.Kept > 0 {
		r.Duration = float64(maxRes-minReq) / 1e9
	}
	if r.Duration == 0 {
		r.Err = "ZeroDivisionError: float division by zero"
		return r
	}
	r.RequestThroughput = float64(r.Requests) / r.Duration
	r.Latency, r.TTFT, r.TTST = statsOf(lat), statsOf(ttft), statsOf(ttst)
	r.TPOT, r.Pooled = statsOf(tpot), statsOf(pooled)
	return r
}

// firstText is the text of the first request left with a response.
func (c *Calc) firstText() string {
	for i := range c.outputs {
		if len(c.outputs[i].Responses) > 0 {
			return c.outputs[i].Text
		}
	}
	return ""
}

// usageTPOT counts a kept request's output tokens as AISBench does (the
// AnyUsage rule) and adds its inter_token_latency from them:
// round((latency - ttft) / (osl - 1)) with two responses or more and osl
// > 1 (unrounded under NoRound), else 0 under TPOTOfOne.
func (c *Calc) usageTPOT(r *Result, o *Output, tpot []float64) []float64 {
	r.UsageKnown = r.UsageKnown && o.Usage != 0
	r.UsageTokens += o.Usage
	n := len(o.Responses)
	switch {
	case n > 1 && o.Usage > 1:
		x := float64(o.Responses[n-1]-o.Responses[0]) / float64(o.Usage-1)
		if !c.Rules.NoRound {
			x = math.RoundToEven(x) // Python's round()
		}
		return append(tpot, x)
	case c.Rules.TPOTOfOne:
		return append(tpot, 0)
	}
	return tpot
}
