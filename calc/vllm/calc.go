package vllm

import (
	"math"

	"github.com/sseaudit/sseaudit/pynum"
)

// Percentiles are `--metric-percentiles`' default: 99.
var Percentiles = []float64{99}

// Calc gathers a run's request outputs, in trace order (asyncio.gather
// keeps the order requests were sent in), and computes calculate_metrics.
type Calc struct {
	// Lean keeps no request's ITL intervals, only their running sum and
	// count (in order, as numpy sums them): the Result's ITL mean and
	// samples are exact, its other ITL statistics NaN and its peak buckets
	// 0. For a tool recomputed under a switched rule, whose quantities are
	// compared and whose keys are not printed.
	Lean    bool
	itlSum  pynum.Sum
	Rules   Rules
	outputs []Output
	// The trace's span: the first t0 and the last end (the run's wall
	// clock, duration = end - start).
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

// Result computes calculate_metrics and the keys benchmark() saves.
func (c *Calc) Result() *Result {
	r := &Result{Percentiles: Percentiles}
	if c.spanSet {
		r.Duration = seconds(c.spanEnd) - seconds(c.spanStart)
	}
	if c.Rules.AISBenchDuration {
		r.Duration = c.aisbenchDuration()
	}
	var ttfts, itls, tpots, e2els []float64
	var totalInput, totalOutput int64
	inputKnown, outputKnown, noDecode := true, true, true
	for i := range c.outputs {
		o := &c.outputs[i]
		if !o.Success {
			r.Failed++
			continue
		}
		r.Completed++
		// `if not output_len:` the tokenizer counts generated_text.
		outLen := o.OutputTokens
		if !outLen.Known || outLen.N == 0 {
			outputKnown = false
			if r.OutputWhy == "" {
				r.OutputWhy = outLen.Why
			}
		}
		totalOutput += outLen.N
		if o.PromptLen.Known {
			totalInput += o.PromptLen.N
		} else {
			inputKnown = false
		}
		if tpot, ok := TPOT(o.Latency, o.TTFT, outLen.N); ok {
			tpots = append(tpots, tpot)
		} else if c.Rules.TPOTOfOne {
			tpots = append(tpots, 0)
		}
		noDecode = noDecode && o.Latency-o.TTFT == 0
		itls = append(itls, o.ITL...)
		ttfts = append(ttfts, o.TTFT)
		e2els = append(e2els, o.Latency)
	}
	r.TotalInput, r.InputKnown = totalInput, inputKnown
	r.TotalOutput, r.OutputKnown = totalOutput, outputKnown
	// TPOT needs the counts, unless every request's latency equals its TTFT:
	// then every TPOT is 0, whatever the counts that leave some out.
	r.TPOTKnown = outputKnown || noDecode
	d := r.Duration
	r.RequestThroughput = float64(r.Completed) / d
	r.OutputThroughput = float64(totalOutput) / d
	r.TotalTokenThroughput = float64(totalInput+totalOutput) / d
	if !c.Lean {
		r.MaxOutputTokensPerS, r.MaxConcurrentRequests = Peak(c.outputs)
	}
	r.RTFX = 0.0 / d
	r.TTFT = StatsOf(ttfts, Percentiles)
	r.TPOT = StatsOf(tpots, Percentiles)
	r.ITL = StatsOf(itls, Percentiles)
	if c.Lean {
		r.ITL = leanStats(&c.itlSum, len(Percentiles))
	}
	r.E2EL = StatsOf(e2els, Percentiles)
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

// leanStats are a Lean calculator's ITL statistics: the mean of `itls or 0`
// and the count, the others NaN.
func leanStats(sum *pynum.Sum, percentiles int) Stats {
	nan := math.NaN()
	s := Stats{Mean: 0, Std: nan, Median: nan, Samples: sum.Len()}
	if sum.Len() > 0 {
		s.Mean = sum.Mean()
	}
	for range percentiles {
		s.Percentiles = append(s.Percentiles, nan)
	}
	return s
}
