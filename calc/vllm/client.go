// Package vllm is `vllm bench serve`'s calculator: what vLLM's benchmark
// client would have reported from a trace's bytes, to the last bit.
//
// It reproduces vLLM at commit 2f41c894e320a07a46a360ee72149dd84d6f4bec
// (vllm-project/vllm; neuralmagic/vllm carries it):
//
//   - the client's framing, replay's vllm framer: each read stripped, then
//     StreamedResponseHandler (vllm/benchmarks/lib/endpoint_request_func.py);
//   - its request functions, Request here: async_request_openai_chat_completions
//     (backend openai-chat) and async_request_openai_completions (openai,
//     vllm), the RequestFuncOutput of each request;
//   - calculate_metrics (vllm/benchmarks/serve.py), formula.go and calc.go,
//     with numpy 1.24's statistics (package pynum);
//   - the keys benchmark() saves (--save-result, without --save-detailed),
//     with --percentile-metrics ttft,tpot,itl,e2el and the default
//     --metric-percentiles 99: result.go.
//
// Rules switches the rules in which vLLM differs from AISBench to AISBench's,
// one at a time, so that a difference between the two tools' figures is
// attributed to the rule that makes it (audit tools).
package vllm

import (
	"bytes"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/sseaudit/sseaudit/replay"
)

// API is the endpoint a run streams from, which picks the request function.
type API string

const (
	Chat        API = "chat"        // async_request_openai_chat_completions
	Completions API = "completions" // async_request_openai_completions
)

// Rules are the rules of vLLM's client and metrics in which AISBench differs.
// The zero value is vLLM's own; each field set is AISBench's rule instead.
type Rules struct {
	// EveryMessage: every message parsed is a token, timed (TTFT from the
	// first, an ITL interval from each later one), as AISBench gives every
	// event it parses a time point. vLLM's own: only a message with
	// truthy choices is (the chat client still moves most_recent_timestamp
	// on the others; the completions client does not).
	EveryMessage bool
	// StopAtDone: nothing after [DONE] is read, as AISBench's client breaks
	// there. vLLM's own: the loop goes on.
	StopAtDone bool
	// NeedsEvent: a request with no timed message fails, as AISBench's
	// request with fewer than two time points does. vLLM's own chat client
	// succeeds without any.
	NeedsEvent bool
	// AnyUsage: output tokens are the last truthy usage's completion_tokens
	// (a 0 unknown), as AISBench's. vLLM's own: the usage of a message
	// without choices only.
	AnyUsage bool
	// TPOTOfOne: a request with at most one output token has TPOT 0 and
	// counts in TPOT's statistics, as in AISBench. vLLM's own: it is left out.
	TPOTOfOne bool
	// AISBenchDuration: the run's duration is the last time point of a
	// successful request minus the first successful t0, AISBench's stage
	// duration. vLLM's own: its wall clock, the trace's span.
	AISBenchDuration bool
}

// Count is an integer the tool reads from the stream, or why it has none.
type Count struct {
	N     int64
	Known bool
	// Why is what the tool would have used instead: "tokenizer" (vLLM
	// counts generated_text with its tokenizer), "dataset" (the dataset's
	// prompt length), or the value it got and cannot use as an int.
	Why string
}

// Output is a request's RequestFuncOutput: its fields calculate_metrics reads.
type Output struct {
	Success   bool
	Error     string
	StartTime float64 // st: t0 as time.perf_counter() would have read it
	TTFT      float64
	ITL       []float64
	Latency   float64
	// OutputTokens is output.output_tokens from the usage; PromptLen is
	// output.prompt_len: the dataset's, unless the usage's prompt_tokens
	// replaced it.
	OutputTokens, PromptLen Count
}

// Client runs vLLM's request function on replayed requests.
type Client struct {
	API   API
	Rules Rules
	p     replay.JSONParser
}

func seconds(ns int64) float64 { return float64(ns) / 1e9 }

// Message is what the request function reads in one message, whatever
// the rules: Read finds it once, Run applies the rules to it (so that a
// request is parsed once for every rule switched).
type Message struct {
	TNs     int64
	Skip    bool   // a comment: `if message.startswith(":"): continue`
	Done    bool   // [DONE]
	Err     string // the exception parsing or reading it raises ("" none)
	Choices bool   // truthy choices (read without error)
	// UsageErr is the exception of the `elif usage` branch (a truthy usage
	// that is not a dict); Usage says the branch sets the counts.
	UsageErr      string
	Usage         bool
	Output        Count
	Prompt        Count
	PromptPresent bool  // prompt_tokens present and not None
	AnyUsage      int64 // a truthy usage's int completion_tokens, 0 for none (AISBench's rule)
}

// Read is what the request function reads in each message res's framer
// handed on.
func (c *Client) Read(res *replay.Result) []Message {
	ms := make([]Message, 0, len(res.Messages))
	for _, m := range res.Messages {
		ms = append(ms, c.read(m))
	}
	return ms
}

func (c *Client) read(m replay.Message) Message {
	msg := Message{TNs: m.TNs}
	if m.Text[0] == ':' {
		msg.Skip = true
		return msg
	}
	chunk := bytes.TrimPrefix(m.Text, []byte("data: "))
	if string(chunk) == "[DONE]" {
		msg.Done = true
		return msg
	}
	data, ok := c.p.Parse(chunk)
	if !ok {
		msg.Err = "json.decoder.JSONDecodeError"
		return msg
	}
	if data.Type() != fastjson.TypeObject {
		msg.Err = "AttributeError: '" + replay.PyTypeName(data) + "' object has no attribute 'get'"
		return msg
	}
	choices := replay.Member(data, "choices")
	usage := replay.Member(data, "usage")
	if replay.Truthy(usage) && usage.Type() == fastjson.TypeObject {
		if n, ok := replay.PyInt(replay.Member(usage, "completion_tokens")); ok && n != 0 {
			msg.AnyUsage = n
		}
	}
	switch {
	case replay.Truthy(choices):
		msg.Choices = true
		msg.Err = c.firstChoice(choices)
	case replay.Truthy(usage):
		if usage.Type() != fastjson.TypeObject {
			msg.UsageErr = "AttributeError: '" + replay.PyTypeName(usage) + "' object has no attribute 'get'"
			break
		}
		msg.Usage = true
		msg.Output = count(usage, "completion_tokens", "tokenizer")
		if pt := replay.Member(usage, "prompt_tokens"); pt != nil && pt.Type() != fastjson.TypeNull {
			msg.PromptPresent = true
			msg.Prompt = count(usage, "prompt_tokens", "dataset")
		}
	}
	return msg
}

// Request is the request function's output for one request, from what the
// framer handed it (res.Messages, res.Transport) and its t0.
func (c *Client) Request(t0 int64, res *replay.Result) Output {
	if res.Transport != "" {
		return c.Run(t0, res.Transport, nil)
	}
	return c.Run(t0, "", c.Read(res))
}

// Run is the request function's output for a request sent at t0 whose
// messages read as msgs, or whose transport failed (a status other than
// 200 — output.error = response.reason —, no response, a transport error,
// UnicodeDecodeError: the exception handler's success = False).
func (c *Client) Run(t0 int64, transport string, msgs []Message) Output {
	st := seconds(t0)
	out := Output{StartTime: st, PromptLen: Count{Why: "dataset"}, OutputTokens: Count{Why: "tokenizer"}}
	if transport != "" {
		out.Error = transport
		return out
	}
	ttft, mostRecent, first, timed := 0.0, st, false, 0
	var lastUsage int64
	for i := range msgs {
		m := &msgs[i]
		if m.Skip {
			continue // an SSE comment: skipped
		}
		if m.Done {
			if c.Rules.StopAtDone {
				break
			}
			continue
		}
		if m.Err != "" {
			out.Error = m.Err
			return out
		}
		if c.Rules.AnyUsage {
			if m.AnyUsage != 0 {
				lastUsage = m.AnyUsage
			}
		} else if !m.Choices {
			if m.UsageErr != "" {
				out.Error = m.UsageErr
				return out
			}
			if m.Usage {
				out.OutputTokens = m.Output
				if m.PromptPresent {
					out.PromptLen = m.Prompt
				}
			}
		}
		ts := seconds(m.TNs)
		token := m.Choices || c.Rules.EveryMessage
		if token {
			// The first token: chat tests ttft == 0.0, completions a flag.
			isFirst := !first
			if c.API == Chat && !c.Rules.EveryMessage {
				isFirst = ttft == 0.0
			}
			if isFirst {
				first = true
				ttft = ts - st
				out.TTFT = ttft
			} else {
				out.ITL = append(out.ITL, ts-mostRecent)
			}
			timed++
		}
		// Chat moves most_recent_timestamp on every message it parses;
		// completions on a message with choices only.
		if c.API == Chat || token {
			mostRecent = ts
		}
	}
	if c.Rules.AnyUsage {
		out.OutputTokens = Count{N: lastUsage, Known: lastUsage != 0, Why: "tokenizer"}
		out.PromptLen = Count{Why: "dataset"}
	}
	out.Latency = mostRecent - st
	switch {
	case c.API == Completions && !first, c.Rules.NeedsEvent && timed == 0:
		out.Error = "Never received a valid chunk to calculate TTFT.This response will be marked as failed!"
		return out
	}
	out.Success = true
	return out
}

// firstChoice is what the request function does with truthy choices:
// chat reads choices[0]["delta"].get("content"), completions
// choices[0].get("text"), and appends the text to generated_text. It
// returns the exception that raises, "" for none.
func (c *Client) firstChoice(choices *fastjson.Value) string {
	var first *fastjson.Value
	switch choices.Type() {
	case fastjson.TypeArray:
		first = choices.GetArray()[0]
	case fastjson.TypeObject:
		return "KeyError: 0"
	case fastjson.TypeString:
		// choices[0] is a one-character str: str["delta"] and str.get fail.
		if c.API == Chat {
			return "TypeError: string indices must be integers, not 'str'"
		}
		return "AttributeError: 'str' object has no attribute 'get'"
	default:
		return "TypeError: '" + replay.PyTypeName(choices) + "' object is not subscriptable"
	}
	var text *fastjson.Value
	if c.API == Chat {
		switch first.Type() {
		case fastjson.TypeObject:
		case fastjson.TypeString:
			return "TypeError: string indices must be integers, not 'str'"
		case fastjson.TypeArray:
			return "TypeError: list indices must be integers or slices, not str"
		default:
			return "TypeError: '" + replay.PyTypeName(first) + "' object is not subscriptable"
		}
		delta := replay.Member(first, "delta")
		if delta == nil {
			return "KeyError: 'delta'"
		}
		if delta.Type() != fastjson.TypeObject {
			return "AttributeError: '" + replay.PyTypeName(delta) + "' object has no attribute 'get'"
		}
		text = replay.Member(delta, "content")
	} else {
		if first.Type() != fastjson.TypeObject {
			return "AttributeError: '" + replay.PyTypeName(first) + "' object has no attribute 'get'"
		}
		text = replay.Member(first, "text")
	}
	if replay.Truthy(text) && text.Type() != fastjson.TypeString {
		return `TypeError: can only concatenate str (not "` + replay.PyTypeName(text) + `") to str`
	}
	return ""
}

// count reads usage[key] as the request function stores it: an int is
// known; null, a missing key or 0 leave the tool to its fallback (why);
// anything else is a value it cannot count with.
func count(usage *fastjson.Value, key, why string) Count {
	v := replay.Member(usage, key)
	if n, ok := replay.PyInt(v); ok {
		return Count{N: n, Known: true, Why: why}
	}
	if v == nil || v.Type() == fastjson.TypeNull || !replay.Truthy(v) {
		return Count{Why: why}
	}
	return Count{Why: strings.ToLower(replay.PyTypeName(v)) + " " + key}
}
