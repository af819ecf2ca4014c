package guidellm

import (
	"math"

	"github.com/sseaudit/sseaudit/pynum"
)

// Metric is one of GenerativeMetrics' per-request distributions kept here.
type Metric int

const (
	RequestsPerSecond Metric = iota
	RequestConcurrency
	RequestLatency
	StreamingIterations
	PromptTokenCount
	OutputTokenCount
	TotalTokenCount
	TTFT
	TTFOT
	TPOT
	ITL
	PromptPerSecond
	OutputPerSecond
	TokensPerSecond
	OutputPerIteration
	IterPerIteration
	numMetrics
)

// MetricNames are the metrics' fields in GenerativeMetrics, in its order.
var MetricNames = [numMetrics]string{"requests_per_second", "request_concurrency", "request_latency",
	"request_streaming_iterations_count", "prompt_token_count", "output_token_count", "total_token_count",
	"time_to_first_token_ms", "time_to_first_output_token_ms", "time_per_output_token_ms", "inter_token_latency_ms",
	"prompt_tokens_per_second", "output_tokens_per_second", "tokens_per_second", "output_tokens_per_iteration",
	"iter_tokens_per_iteration"}

// Timeline are the metrics over the run's timeline (rates and requests in
// flight): a trace without send times cannot give them.
var Timeline = []Metric{RequestsPerSecond, RequestConcurrency, PromptPerSecond, OutputPerSecond, TokensPerSecond}

// Calc gathers a run's requests and computes GenerativeMetrics.compile's
// request totals and the successful requests' distributions.
type Calc struct {
	Rules   Rules
	outputs []Output
}

// Add takes one request's output.
func (c *Calc) Add(o Output) { c.outputs = append(c.outputs, o) }

// Outputs are the requests' outputs as added.
func (c *Calc) Outputs() []Output { return c.outputs }

// Dataset is what a request's GenerationRequest says of its lengths:
// compile_stats takes the prompt and output token counts from it when the
// response has none (prefer_response, the default). Zero values: a dataset
// that gives none, when output_tokens falls back to token_iterations.
type Dataset struct{ Prompt, Output int64 }

// Totals are request_totals.
type Totals struct{ Successful, Errored int }

// Window is the measured window: the scheduler's start of requests to its
// end of processing (no warmup, no cooldown), here the trace's span: the
// first request's start to the last body's end.
func (c *Calc) Window() (start, end float64) {
	if len(c.outputs) == 0 {
		return 0, 0
	}
	t0, t1 := c.outputs[0].Start, c.outputs[0].EndNs
	for _, o := range c.outputs[1:] {
		t0, t1 = min(t0, o.Start), max(t1, o.EndNs)
	}
	return t0, seconds(t1)
}

// Compute is the result with the counts the stream lacks taken from ds.
func (c *Calc) Compute(ds Dataset) (Totals, [numMetrics]Dist) {
	var tot Totals
	var vals [numMetrics][]Weighted
	add := func(m Metric, v, w float64) { vals[m] = append(vals[m], Weighted{v, w}) }
	var scratch []float64
	var intervals [][2]float64
	start, end := c.Window()
	for _, o := range c.outputs {
		if !o.Success {
			tot.Errored++
			continue
		}
		tot.Successful++
		if !o.PromptTokens.Known {
			o.PromptTokens.N = ds.Prompt
		}
		if !o.OutputTokens.Known {
			o.OutputTokens.N = ds.Output
			if ds.Output == 0 {
				// `self.info.timings.token_iterations or None`
				o.OutputTokens.N = o.TokenIterations
			}
		}
		add(RequestLatency, o.Latency(), 1)
		add(StreamingIterations, float64(o.RequestIterations), 1)
		add(PromptTokenCount, float64(o.PromptTokens.N), 1)
		add(OutputTokenCount, float64(o.OutputTokens.N), 1)
		add(TotalTokenCount, o.TotalTokens(), 1)
		add(TTFT, o.TTFTms(), 1)
		add(TTFOT, o.TTFOTms(), 1)
		v, w := o.TPOTms()
		add(TPOT, v, w)
		v, w = o.ITLms()
		add(ITL, v, w)
		scratch = o.OutputPerIteration(scratch[:0])
		for _, x := range scratch {
			add(OutputPerIteration, x, 1)
		}
		scratch = o.IterPerIteration(scratch[:0])
		for _, x := range scratch {
			add(IterPerIteration, x, 1)
		}
		add(RequestsPerSecond, o.End, 1)
		intervals = append(intervals, [2]float64{o.Start, o.End})
		pt := o.PromptTiming()
		add(PromptPerSecond, pt.V, pt.W)
		add(TokensPerSecond, pt.V, pt.W)
		for _, x := range o.OutputTimings() {
			add(OutputPerSecond, x.V, x.W)
			add(TokensPerSecond, x.V, x.W)
		}
	}
	var out [numMetrics]Dist
	for m := range out {
		switch Metric(m) {
		case RequestsPerSecond:
			out[m] = RateDist(vals[m], true, start, end)
		case PromptPerSecond, OutputPerSecond, TokensPerSecond:
			out[m] = RateDist(vals[m], false, 0, 0)
		case RequestConcurrency:
			out[m] = ConcurrencyDist(intervals, start, end)
		default:
			out[m] = FromValues(vals[m])
		}
	}
	return tot, out
}

// Result computes the keys: with a dataset that gives no lengths, and with
// one that gives 1000 prompt and 100 output tokens; a key that differs
// between the two depends on the dataset (the oracle's rule).
func (c *Calc) Result() *Result {
	r := &Result{OutputKnown: true}
	start, end := c.Window()
	r.Duration = end - start
	r.Totals, r.Dists = c.Compute(Dataset{})
	_, other := c.Compute(Dataset{Prompt: 1000, Output: 100})
	for m := range r.Dists {
		r.Depends[m] = fieldsDiffer(r.Dists[m], other[m])
	}
	for _, o := range c.outputs {
		if o.Success && o.OutputTokens.Known {
			r.TotalOutput += o.OutputTokens.N
		}
		r.OutputKnown = r.OutputKnown && (!o.Success || o.OutputTokens.Known)
	}
	c.aisbench(r)
	return r
}

// aisbench fills what the rules switched to AISBench's compute instead:
// its duration, TTFT P99, pooled ITL and request TPOT, in seconds.
func (c *Calc) aisbench(r *Result) {
	var ttft, itl, tpot []float64
	first, last, seen := 0.0, 0.0, false
	for _, o := range c.outputs {
		if !o.Success {
			continue
		}
		if !seen || o.Start < first {
			first = o.Start
		}
		if !seen || o.End > last {
			last = o.End
		}
		seen = true
		ttft = append(ttft, o.TTFTms()/1000)
		for i := 1; i < len(o.Times); i++ {
			itl = append(itl, o.Times[i]-o.Times[i-1])
		}
		if n := o.OutputTokens.N; n > 1 {
			e2e, ft := o.Latency(), 0.0
			if o.HasFirst {
				ft = o.FirstToken - o.Start
			}
			tpot = append(tpot, (e2e-ft)/float64(n-1))
		} else {
			tpot = append(tpot, 0)
		}
	}
	if c.Rules.AISBenchDuration {
		r.Duration = 0
		if seen {
			r.Duration = last - first
		}
	}
	if c.Rules.Percentile && len(ttft) > 0 {
		r.TTFTP99 = pynum.NumpyPercentile(ttft, 99)
	}
	if c.Rules.PooledITL {
		r.PooledITL.N = len(itl)
		if len(itl) > 0 {
			r.PooledITL.Mean = pynum.NumpyMean(itl)
		}
	}
	if c.Rules.RequestTPOT && len(tpot) > 0 {
		r.RequestTPOT = pynum.NumpyMean(tpot)
	}
}

// fieldsDiffer marks each of a Dist's fields (fieldNames' order) that
// differs between a and b.
func fieldsDiffer(a, b Dist) []bool {
	fa, fb := a.fields(), b.fields()
	out := make([]bool, len(fa))
	for i := range fa {
		out[i] = fa[i] != fb[i] && !(math.IsNaN(fa[i]) && math.IsNaN(fb[i]))
	}
	return out
}
