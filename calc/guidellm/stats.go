package guidellm

// GenerativeRequestStats' properties (src/guidellm/schemas/request_stats.py
// at ee7a77457ba668b4b5ccb40f110518829893b36a), for a successful request,
// each as GenerativeMetrics.compile reads it: None made 0.0 (`or 0.0`).
// They need the counts known (Output.PromptTokens, OutputTokens) where they
// read them.

// Latency is request_latency: request_end - request_start.
func (o *Output) Latency() float64 { return o.End - o.Start }

// TTFTms is time_to_first_token_ms: 1000 * (first_token_iteration -
// request_start), 0.0 without a token.
func (o *Output) TTFTms() float64 {
	if !o.HasFirst {
		return 0
	}
	return 1000 * (o.FirstToken - o.Start)
}

// TTFOTms is time_to_first_output_token_ms: the first content's (not
// reasoning's).
func (o *Output) TTFOTms() float64 {
	if !o.HasFirstOutput {
		return 0
	}
	return 1000 * (o.FirstOutput - o.Start)
}

// TPOTms is time_per_output_token_ms, weighted by the output tokens:
// 1000 * ((last_token_iteration or request_end) - request_start) /
// output_tokens, first token included; None (0.0) for no output token.
func (o *Output) TPOTms() (v, weight float64) {
	n := o.OutputTokens.N
	if n == 0 {
		return 0, 0
	}
	last := o.End
	if o.HasLast && o.LastToken != 0 {
		last = o.LastToken
	}
	return 1000 * (last - o.Start) / float64(n), float64(n)
}

// ITLms is inter_token_latency_ms, weighted by (output_tokens or 1) - 1:
// 1000 * (last_token_iteration - first_token_iteration) / (output_tokens -
// 1), the first token left out; None (0.0) with one output token or none.
func (o *Output) ITLms() (v, weight float64) {
	n := o.OutputTokens.N
	w := float64(n) - 1
	if n == 0 {
		w = 0 // (0 or 1.0) - 1.0
	}
	if !o.HasFirst || !o.HasLast || n <= 1 {
		return 0, w
	}
	return 1000 * (o.LastToken - o.FirstToken) / float64(n-1), w
}

// TotalTokens is total_tokens: prompt + output.
func (o *Output) TotalTokens() float64 {
	return float64(o.PromptTokens.N + o.OutputTokens.N)
}

// iterTokensPerIteration is iter_tokens_per_iteration: (output_tokens - 1)
// / (token_iterations - 1), or None.
func (o *Output) iterTokensPerIteration() (float64, bool) {
	n, it := o.OutputTokens.N, o.TokenIterations
	if n <= 1 || it <= 1 {
		return 0, false
	}
	return (float64(n) - 1.0) / (float64(it) - 1.0), true
}

// OutputPerIteration is output_tokens_timings' token counts: one value of
// all the tokens without two token iterations, else 1.0 (0.0 for no token)
// for the first and iter_tokens_timings' for each later one.
func (o *Output) OutputPerIteration(out []float64) []float64 {
	n := o.OutputTokens.N
	if !o.HasFirst || !o.HasLast || o.TokenIterations <= 1 {
		return append(out, float64(n))
	}
	first := 0.0
	if n != 0 {
		first = 1
	}
	out = append(out, first)
	return o.IterPerIteration(out)
}

// IterPerIteration is iter_tokens_timings' token counts: for each token
// iteration after the first, iter_tokens_per_iteration, or none.
func (o *Output) IterPerIteration(out []float64) []float64 {
	tpi, ok := o.iterTokensPerIteration()
	if !o.HasFirst || !o.HasLast || !ok {
		return out
	}
	for range o.TokenIterations - 1 {
		out = append(out, tpi)
	}
	return out
}

// PromptTiming is prompt_tokens_timing: (first_token_iteration, else
// request_end; the prompt tokens).
func (o *Output) PromptTiming() Weighted {
	t := o.End
	if o.HasFirst {
		t = o.FirstToken
	}
	return Weighted{t, float64(o.PromptTokens.N)}
}

// OutputTimings is output_tokens_timings: (last_token_iteration, else
// request_end; all the tokens) without two token iterations; else the
// first token's (1.0, 0.0 for no token) and iter_tokens_timings': the
// token iterations after the first evenly spaced up to the last
// (np.linspace), each iter_tokens_per_iteration.
func (o *Output) OutputTimings() []Weighted {
	n := o.OutputTokens.N
	if !o.HasFirst || !o.HasLast || o.TokenIterations <= 1 {
		t := o.End
		if o.HasLast {
			t = o.LastToken
		}
		return []Weighted{{t, float64(n)}}
	}
	first := 0.0
	if n != 0 {
		first = 1
	}
	out := []Weighted{{o.FirstToken, first}}
	tpi, ok := o.iterTokensPerIteration()
	if !ok {
		return out
	}
	for _, t := range linspace(o.FirstToken, o.LastToken, o.TokenIterations)[1:] {
		out = append(out, Weighted{t, tpi})
	}
	return out
}
