package guidellm

import "math"

// Metric is one of GenerativeMetrics' per-request distributions kept here.
type Metric int

const (
	RequestLatency Metric = iota
	StreamingIterations
	PromptTokenCount
	OutputTokenCount
	TotalTokenCount
	TTFT
	TTFOT
	TPOT
	ITL
	OutputPerIteration
	IterPerIteration
	numMetrics
)

// MetricNames are the metrics' fields in GenerativeMetrics, in its order.
var MetricNames = [numMetrics]string{"request_latency", "request_streaming_iterations_count", "prompt_token_count",
	"output_token_count", "total_token_count", "time_to_first_token_ms", "time_to_first_output_token_ms",
	"time_per_output_token_ms", "inter_token_latency_ms", "output_tokens_per_iteration", "iter_tokens_per_iteration"}

// Calc gathers a run's requests and computes GenerativeMetrics.compile's
// request totals and the successful requests' distributions.
type Calc struct {
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

// Compute is the result with the counts the stream lacks taken from ds.
func (c *Calc) Compute(ds Dataset) (Totals, [numMetrics]Dist) {
	var tot Totals
	var vals [numMetrics][]Weighted
	add := func(m Metric, v, w float64) { vals[m] = append(vals[m], Weighted{v, w}) }
	var scratch []float64
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
	}
	var ds2 [numMetrics]Dist
	for m := range ds2 {
		ds2[m] = FromValues(vals[m])
	}
	return tot, ds2
}

// Result computes the keys: with a dataset that gives no lengths, and with
// one that gives 1000 prompt and 100 output tokens; a key that differs
// between the two depends on the dataset (the oracle's rule).
func (c *Calc) Result() *Result {
	r := &Result{OutputKnown: true}
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
	return r
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
