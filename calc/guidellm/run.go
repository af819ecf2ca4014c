package guidellm

import "github.com/sseaudit/sseaudit/replay"

// Count is a token count a request's stats end up with: known from the
// stream's usage, or the dataset's (GenerationRequest's metrics, which the
// bytes do not hold).
type Count struct {
	N     int64
	Known bool
}

// Output is a request's RequestInfo timings and the counts its
// GenerativeRequestStats read, in seconds as time.time() gives them.
type Output struct {
	Success bool
	Error   string
	Start   float64 // timings.request_start
	// FirstToken, FirstOutput, LastToken: first_token_iteration,
	// first_output_token_iteration, last_token_iteration, when set.
	FirstToken, FirstOutput, LastToken float64
	HasFirst, HasFirstOutput, HasLast  bool
	End                                float64 // request_end (a success's)
	RequestIterations, TokenIterations int64
	PromptTokens, OutputTokens         Count
	EndNs                              int64 // when the body ended
	// Times are the token iterations' times, kept for Rules.PooledITL.
	Times []float64
}

// Rules are the rules of guidellm's client and metrics in which AISBench
// differs. The zero value is guidellm's own; each field set is AISBench's
// rule instead (audit tools' "why they differ"). The framing rule is the
// framer's (replay.AISBench with Client.Payloads), not a field.
type Rules struct {
	// EveryMessage: every data line whose payload parses is a token
	// iteration (the first TTFT's, the last E2E's), as AISBench gives every
	// event it parses a time point. guidellm's own: only a line adding
	// text, reasoning or a tool call is.
	EveryMessage bool
	// LastEventEnd: request_end is the last token iteration, as AISBench's
	// E2E ends at its last time point. guidellm's own: the [DONE] line's
	// read, else the body's end.
	LastEventEnd bool
	// NeedsEvent: a request fails without a token iteration (AISBench's
	// fewer than two time points) and post_validation is not run.
	// guidellm's own: a response without text, a tool call or output
	// tokens fails, one with them succeeds.
	NeedsEvent bool
	// Usage: output tokens are the last truthy usage's completion_tokens
	// (an int; a 0 unknown), as AISBench's client reads them. guidellm's
	// own: completion_tokens_details' or the usage's, plus the details'
	// image, video and audio tokens; else the dataset's.
	Usage bool
	// RequestTPOT: TPOT is (E2E - TTFT) / (output tokens - 1), 0 for one
	// token, a request's mean, as AISBench's. guidellm's own: (last token
	// iteration - start) / output tokens, the first token included,
	// weighted by the output tokens.
	RequestTPOT bool
	// PooledITL: ITL is every interval between token iterations, pooled,
	// as AISBench's. guidellm's own: a request's (last - first token
	// iteration) / (output tokens - 1), weighted by output tokens - 1.
	PooledITL bool
	// Percentile: P99 is np.percentile's (linear). guidellm's own: the
	// first value whose cumulative probability reaches 0.99.
	Percentile bool
	// Throughput: output throughput is the output tokens over the
	// duration, as AISBench's. guidellm's own: the mean of
	// output_tokens_per_second, a rate distribution over the timeline.
	Throughput bool
	// AISBenchDuration: the duration is the successes' last request_end
	// minus their first request_start, AISBench's stage duration.
	// guidellm's own: the measured window, here the trace's span.
	AISBenchDuration bool
}

func seconds(ns int64) float64 { return float64(ns) / 1e9 }

// Request is the client's output for one request, from what the framer
// handed it.
func (c *Client) Request(t0 int64, res *replay.Result) Output {
	return Run(t0, res.EndNs, res.Transport, c.Read(res))
}

// Run is _resolve_streaming and the worker for a request started at t0
// whose body ended at end, whose lines read as msgs, or whose transport
// failed (no response or a status other than 200 before any line; a
// transport error at the body's end, after them), then compile_stats.
func Run(t0, end int64, transport string, msgs []Message) Output {
	return RunWith(Rules{}, t0, end, transport, msgs)
}

// RunWith is Run under rules.
func RunWith(rules Rules, t0, end int64, transport string, msgs []Message) Output {
	out := Output{Start: seconds(t0), EndNs: end}
	fail := func(e string) Output {
		out.Success, out.Error = false, e
		out.HasFirst, out.HasFirstOutput, out.HasLast = false, false, false
		return out
	}
	if transport != "" && len(msgs) == 0 {
		return fail(transport)
	}
	var usage *Usage
	var idErr, joinErr string
	var text, tool, seenID bool
	requestEnd, broke := seconds(end), false
	for i := range msgs {
		m := &msgs[i]
		t := seconds(m.TNs)
		out.RequestIterations++
		if m.Err != "" {
			// The handler raised: the timings so far stay, the request errors.
			return fail(m.Err)
		}
		if m.HasID && !seenID {
			seenID, idErr = true, m.IDErr
		}
		if joinErr == "" {
			joinErr = m.JoinErr
		}
		text, tool = text || m.Text, tool || m.Tool
		if m.Usage != nil {
			usage = m.Usage
		}
		if m.Iter == End {
			requestEnd, broke = t, true
			break
		}
		if m.Iter != Token && !(rules.EveryMessage && m.Event) {
			continue
		}
		if rules.PooledITL {
			out.Times = append(out.Times, t)
		}
		if !out.HasFirst {
			out.FirstToken, out.HasFirst, out.TokenIterations = t, true, 0
		}
		if !out.HasFirstOutput && m.HadContent {
			out.FirstOutput, out.HasFirstOutput = t, true
		}
		out.LastToken, out.HasLast = t, true
		out.TokenIterations++
	}
	if transport != "" && !broke {
		return fail(transport)
	}
	out.End = requestEnd
	if rules.LastEventEnd && out.HasLast {
		out.End = out.LastToken
	}
	// compile_streaming: the texts joined, then extract_metrics.
	if joinErr != "" {
		return fail(joinErr)
	}
	if usage != nil && usage.Err != "" {
		return fail(usage.Err)
	}
	if idErr != "" {
		return fail(idErr)
	}
	if usage != nil {
		out.PromptTokens, out.OutputTokens = Count{N: usage.Prompt, Known: true}, Count{N: usage.Output, Known: true}
		if rules.Usage {
			out.OutputTokens = Count{N: usage.Completion, Known: usage.Completion != 0}
		}
	}
	switch {
	case rules.NeedsEvent:
		if !out.HasFirst {
			return fail("chunk size is less than 2")
		}
	case !text && !tool && !(usage != nil && usage.Output > 0):
		// post_validation: text, a tool call, or output tokens > 0.
		return fail("ValueError: [UNUSABLE_BACKEND_RESPONSE] backend resolved with empty response payload")
	}
	out.Success = true
	return out
}
