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
		if m.Iter != Token {
			continue
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
	}
	// post_validation: text, a tool call, or output tokens > 0.
	if !text && !tool && !(usage != nil && usage.Output > 0) {
		return fail("ValueError: [UNUSABLE_BACKEND_RESPONSE] backend resolved with empty response payload")
	}
	out.Success = true
	return out
}
