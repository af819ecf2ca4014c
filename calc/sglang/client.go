// Package sglang is SGLang's bench_serving calculator: what SGLang's
// benchmark client would have reported from a trace's bytes, to the last
// bit.
//
// It reproduces sgl-project/sglang at commit
// db570fe619ae15d8bd4ee04f146bc8234c52a20d (bytedance-iaas/sglang carries
// it), python/sglang/benchmark/serving.py:
//
//   - the client's framing, replay's sglang framer: aiohttp's lines, each
//     stripped;
//   - its request functions, Request here: async_request_openai_chat_completions
//     (backends vllm-chat, sglang-oai-chat, lmdeploy-chat) and
//     async_request_openai_completions (vllm, sglang-oai, lmdeploy), the
//     RequestFuncOutput of each request;
//   - calculate_metrics, formula.go and calc.go, with numpy 1.24's
//     statistics (package pynum), for a backend whose server reports no
//     speculative accept length (so ITL is not retokenized);
//   - the keys benchmark() appends to its output file: result.go.
//
// Rules switches the rules in which SGLang differs from AISBench to
// AISBench's, one at a time (audit tools).
package sglang

import (
	"bytes"

	"github.com/valyala/fastjson"

	"github.com/sseaudit/sseaudit/replay"
)

// API is the endpoint a run streams from, which picks the request function.
type API string

const (
	Chat        API = "chat"        // async_request_openai_chat_completions
	Completions API = "completions" // async_request_openai_completions
)

// Rules are the rules of SGLang's client and metrics in which AISBench
// differs. The zero value is SGLang's own; each field set is AISBench's
// rule instead.
type Rules struct {
	// EveryMessage: every JSON message is a token, timed (TTFT from the
	// first, an ITL interval from each later one), as AISBench gives every
	// event it parses a time point. SGLang's own: only a message whose
	// first choice carries text (content or reasoning; completions: text).
	EveryMessage bool
	// LastEventLatency: E2EL ends at the last JSON message, as AISBench's
	// ends at its last time point. SGLang's own: at the last non-blank line
	// read, [DONE] included.
	LastEventLatency bool
	// StopAtDone: nothing after [DONE] is read, as AISBench's client breaks
	// there. SGLang's own: `pass`, and the loop goes on.
	StopAtDone bool
	// NeedsEvent: a request with no timed message fails, as AISBench's
	// request with fewer than two time points does.
	NeedsEvent bool
	// AnyUsage: output tokens are the last truthy usage's completion_tokens
	// (a 0 unknown), as AISBench's. SGLang's own: any usage holding the key
	// (completions: of a message with text only).
	AnyUsage bool
	// TPOTOfOne: a request with at most one output token has TPOT 0 and
	// counts in TPOT's statistics, as in AISBench. SGLang's own: it is left
	// out.
	TPOTOfOne bool
	// AISBenchDuration: the run's duration is the last time point of a
	// successful request minus the first successful t0. SGLang's own: its
	// wall clock, the trace's span.
	AISBenchDuration bool
}

// OutputLen is output.output_len: the stream's completion_tokens, or the
// dataset's output_len when no message carried one.
type OutputLen struct {
	N       int64
	Known   bool // from the stream
	None    bool // the stream's value is null: calculate_metrics raises on it
	Unknown string
}

// Output is a request's RequestFuncOutput: its fields calculate_metrics reads.
type Output struct {
	Success   bool
	Error     string
	StartTime float64
	TTFT      float64
	ITL       []float64
	Latency   float64
	OutputLen OutputLen
}

// Client runs SGLang's request function on replayed requests.
type Client struct {
	API   API
	Rules Rules
	p     replay.JSONParser
}

func seconds(ns int64) float64 { return float64(ns) / 1e9 }

// Message is what the request function reads in one message, whatever the
// rules: Read finds it once, Run applies the rules to it.
type Message struct {
	TNs  int64
	Done bool   // [DONE]
	Err  string // the exception parsing or reading it raises ("" none)
	Text bool   // it carries text: a token
	// SetsLen says the message sets output_len, to OutputLen.
	SetsLen   bool
	OutputLen OutputLen
	AnyUsage  int64 // a truthy usage's int completion_tokens, 0 for none (AISBench's rule)
}

// Read is what the request function reads in each message res's framer
// handed on.
func (c *Client) Read(res *replay.Result) []Message {
	ms := make([]Message, 0, len(res.Messages))
	for _, m := range res.Messages {
		msg := Message{TNs: m.TNs}
		chunk := bytes.TrimPrefix(m.Text, []byte("data: "))
		switch data, ok := c.p.Parse(chunk); {
		case string(chunk) == "[DONE]":
			msg.Done = true
		case !ok:
			msg.Err = "json.decoder.JSONDecodeError"
		default:
			outLen := OutputLen{Unknown: "unset"}
			msg.Text, msg.Err = c.message(data, &outLen)
			if outLen.Unknown != "unset" {
				msg.SetsLen, msg.OutputLen = true, outLen
			}
			if u := member(data, "usage"); replay.Truthy(u) && u.Type() == fastjson.TypeObject {
				if n, ok := replay.PyInt(replay.Member(u, "completion_tokens")); ok && n != 0 {
					msg.AnyUsage = n
				}
			}
		}
		ms = append(ms, msg)
	}
	return ms
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
// messages read as msgs, or whose transport failed.
func (c *Client) Run(t0 int64, transport string, msgs []Message) Output {
	st := seconds(t0)
	out := Output{StartTime: st, OutputLen: OutputLen{Unknown: "dataset"}}
	if transport != "" {
		out.Error = transport
		return out
	}
	ttft, mostRecent := 0.0, st
	latency, haveLatency, timed := 0.0, false, 0
	var lastUsage int64
	for i := range msgs {
		m := &msgs[i]
		ts := seconds(m.TNs)
		if !m.Done || !c.Rules.LastEventLatency {
			latency, haveLatency = ts-st, true
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
		} else if m.SetsLen {
			out.OutputLen = m.OutputLen
		}
		if !m.Text && !c.Rules.EveryMessage {
			continue
		}
		if ttft == 0.0 {
			ttft = ts - st
			out.TTFT = ttft
		} else {
			out.ITL = append(out.ITL, ts-mostRecent)
		}
		mostRecent = ts
		timed++
	}
	if c.Rules.AnyUsage {
		out.OutputLen = OutputLen{N: lastUsage, Known: lastUsage != 0, Unknown: "dataset"}
	}
	if !haveLatency {
		out.Error = "UnboundLocalError: cannot access local variable 'latency' where it is not associated with a value"
		return out
	}
	if c.Rules.NeedsEvent && timed == 0 {
		out.Error = "no event"
		return out
	}
	out.Success, out.Latency = true, latency
	return out
}

func member(v *fastjson.Value, key string) *fastjson.Value {
	if v.Type() != fastjson.TypeObject {
		return nil
	}
	return replay.Member(v, key)
}

// message is the request function's handling of a parsed message: whether
// it carries text (the request function's `if content:` / `if
// data["choices"][0]["text"]:`), the output_len it leaves, and the
// exception that raises ("" for none).
func (c *Client) message(data *fastjson.Value, outLen *OutputLen) (text bool, exception string) {
	if c.API == Completions {
		return c.completionsMessage(data, outLen)
	}
	if data.Type() != fastjson.TypeObject {
		return false, "AttributeError: '" + replay.PyTypeName(data) + "' object has no attribute 'get'"
	}
	// output_len = (data.get("usage") or {}).get("completion_tokens", output_len)
	if err := takeUsage(replay.Member(data, "usage"), outLen); err != "" {
		return false, err
	}
	choices := replay.Member(data, "choices")
	if !replay.Truthy(choices) {
		return false, "" // `if not choices: continue`
	}
	first, err := index0(choices)
	if err != "" {
		return false, err
	}
	if first.Type() != fastjson.TypeObject {
		return false, "AttributeError: '" + replay.PyTypeName(first) + "' object has no attribute 'get'"
	}
	delta := replay.Member(first, "delta")
	if !replay.Truthy(delta) {
		return false, "" // `or {}`: no text
	}
	if delta.Type() != fastjson.TypeObject {
		return false, "AttributeError: '" + replay.PyTypeName(delta) + "' object has no attribute 'get'"
	}
	// _combine_openai_chat_content: reasoning_content or reasoning or "",
	// plus content or "".
	reasoning := replay.Member(delta, "reasoning_content")
	if !replay.Truthy(reasoning) {
		reasoning = replay.Member(delta, "reasoning")
	}
	content := replay.Member(delta, "content")
	if replay.Truthy(reasoning) && reasoning.Type() != fastjson.TypeString {
		return false, "TypeError: unsupported operand type(s) for +"
	}
	if replay.Truthy(content) && content.Type() != fastjson.TypeString {
		return false, `TypeError: can only concatenate str (not "` + replay.PyTypeName(content) + `") to str`
	}
	return replay.Truthy(reasoning) || replay.Truthy(content), ""
}

// completionsMessage is async_request_openai_completions' handling:
// data["choices"][0]["text"], and the usage only when it is truthy.
func (c *Client) completionsMessage(data *fastjson.Value, outLen *OutputLen) (bool, string) {
	if data.Type() != fastjson.TypeObject {
		return false, subscriptError(data, "'choices'")
	}
	choices := replay.Member(data, "choices")
	if choices == nil {
		return false, "KeyError: 'choices'"
	}
	first, err := index0(choices)
	if err != "" {
		return false, err
	}
	if first.Type() != fastjson.TypeObject {
		return false, subscriptError(first, "'text'")
	}
	text := replay.Member(first, "text")
	if text == nil {
		return false, "KeyError: 'text'"
	}
	if !replay.Truthy(text) {
		return false, ""
	}
	if text.Type() != fastjson.TypeString {
		return false, `TypeError: can only concatenate str (not "` + replay.PyTypeName(text) + `") to str`
	}
	if err := takeUsage(replay.Member(data, "usage"), outLen); err != "" {
		return false, err
	}
	return true, ""
}

// takeUsage is `(data.get("usage") or {}).get("completion_tokens",
// output_len)`: a usage holding the key sets output_len to its value.
func takeUsage(usage *fastjson.Value, outLen *OutputLen) string {
	if !replay.Truthy(usage) {
		return ""
	}
	if usage.Type() != fastjson.TypeObject {
		return "AttributeError: '" + replay.PyTypeName(usage) + "' object has no attribute 'get'"
	}
	v := replay.Member(usage, "completion_tokens")
	switch n, ok := replay.PyInt(v); {
	case v == nil:
	case ok:
		*outLen = OutputLen{N: n, Known: true}
	case v.Type() == fastjson.TypeNull:
		*outLen = OutputLen{None: true}
	default:
		*outLen = OutputLen{Unknown: replay.PyTypeName(v) + " completion_tokens"}
	}
	return ""
}

// index0 is choices[0] for a truthy choices value.
func index0(choices *fastjson.Value) (*fastjson.Value, string) {
	switch choices.Type() {
	case fastjson.TypeArray:
		items := choices.GetArray()
		if len(items) == 0 {
			return nil, "IndexError: list index out of range"
		}
		return items[0], ""
	case fastjson.TypeObject:
		return nil, "KeyError: 0"
	case fastjson.TypeString:
		if len(choices.GetStringBytes()) == 0 {
			return nil, "IndexError: string index out of range"
		}
		// A one-character str: neither .get nor ["text"] works on it.
		return fastjson.MustParse(`"x"`), ""
	}
	return nil, "TypeError: '" + replay.PyTypeName(choices) + "' object is not subscriptable"
}

// subscriptError is the exception of v[key] for a v that is not a dict.
func subscriptError(v *fastjson.Value, key string) string {
	switch v.Type() {
	case fastjson.TypeString:
		return "TypeError: string indices must be integers, not 'str'"
	case fastjson.TypeArray:
		return "TypeError: list indices must be integers or slices, not str"
	}
	return "TypeError: '" + replay.PyTypeName(v) + "' object is not subscriptable"
}
