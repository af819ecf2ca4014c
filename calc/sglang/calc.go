package sglang

import (
	"math"

	"github.com/sseaudit/sseaudit/pynum"
)

// Calc gathers a run's request outputs in trace order and computes
// calculate_metrics.
type Calc struct {
	// Lean keeps no request's ITL intervals, only their running sum and
	// count (in order, as numpy sums them): the Result's ITL mean and
	// samples are exact, its other ITL statistics NaN and its peak buckets
	// 0. For a tool recomputed under a switched rule, whose quantities are
	// compared and whose keys are not printed.
	Lean               bool
	itlSum             pynum.Sum
	Rules              Rules
	outputs            []Output
	spanStart, spanEnd int64
	spanSet            bool
}

// Add takes one request's output, with its t0 and the end of its body.
func (c *Calc) Add(o Output, t0, end int64) {
	if !c.spanSet || t0 < c.spanStart {
		c.spanStart = t0
	}
	if !c.spanSet || end > c.spanEnd {
		c.spanEnd = end
	}
	c.spanSet = true
	if c.Lean && o.Success {
		c.itlSum.Add(o.ITL)
		o.ITL = nil
	}
	c.outputs = append(c.outputs, o)
}

// Outputs are the requests' outputs as added.
func (c *Calc) Outputs() []Output { return c.outputs }

// Errors calculate_metrics raises.
const (
	errNoneLen  = "TypeError: '>' not supported between instances of 'NoneType' and 'int' (a successful request's usage has completion_tokens null)"
	errNoneDone = "IndexError: cannot do a non-empty take from an empty axes. (no request succeeded: np.percentile of no E2E latency)"
)

// Result computes calculate_metrics and the keys benchmark() writes.
func (c *Calc) Result() *Result {
	r := &Result{}
	if c.spanSet {
		r.Duration = seconds(c.spanEnd) - seconds(c.spanStart)
	}
	if c.Rules.AISBenchDuration {
		r.Duration = c.aisbenchDuration()
	}
	var ttfts, itls, tpots, e2es []float64
	var totalOutput int64
	outputKnown, noDecode := true, true
	for i := range c.outputs {
		o := &c.outputs[i]
		if !o.Success {
			continue
		}
		r.Completed++
		n := o.OutputLen
		if n.None {
			r.Err = errNoneLen
			return r
		}
		if !n.Known {
			outputKnown = false
			if r.OutputWhy == "" {
				r.OutputWhy = n.Unknown
			}
		}
		totalOutput += n.N
		if tpot, ok := TPOT(o.Latency, o.TTFT, n.N); ok {
			tpots = append(tpots, tpot)
		} else if c.Rules.TPOTOfOne {
			tpots = append(tpots, 0)
		}
		noDecode = noDecode && o.Latency-o.TTFT == 0
		itls = append(itls, o.ITL...)
		ttfts = append(ttfts, o.TTFT)
		e2es = append(e2es, o.Latency)
	}
	r.TotalOutput, r.OutputKnown = totalOutput, outputKnown
	r.TPOTKnown = outputKnown || noDecode
	d := r.Duration
	r.RequestThroughput = float64(r.Completed) / d
	r.OutputThroughput = float64(totalOutput) / d
	if !c.Lean {
		r.MaxOutputTokensPerS, r.MaxConcurrentRequests = Peak(c.outputs)
	}
	r.TTFT, _ = StatsOf(ttfts, true)
	r.TPOT, _ = StatsOf(tpots, true)
	r.ITL, _ = StatsOf(itls, true)
	if c.Lean {
		// The mean of `itls or 0` and the count; the others NaN.
		nan := math.NaN()
		r.ITL = Stats{Median: nan, Std: nan, P90: nan, P95: nan, P99: nan, Samples: c.itlSum.Len()}
		if c.itlSum.Len() > 0 {
			r.ITL.Mean = c.itlSum.Mean()
		}
	}
	var ok bool
	if r.E2E, ok = StatsOf(e2es, false); !ok {
		r.Err = errNoneDone
		return r
	}
	r.Concurrency = pynum.NumpySum(e2es) / d
	return r
}

// aisbenchDuration is AISBench's stage duration over the successful
// requests: the last end minus the first start.
func (c *Calc) aisbenchDuration() float64 {
	var starts, ends []float64
	for i := range c.outputs {
		if o := &c.outputs[i]; o.Success {
			starts = append(starts, o.StartTime)
			ends = append(ends, o.StartTime+o.Latency)
		}
	}
	if len(starts) == 0 {
		return 0
	}
	return pynum.NumpyMax(ends) - pynum.NumpyMin(starts)
}
