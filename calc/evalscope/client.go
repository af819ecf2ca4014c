// Package evalscope is EvalScope perf's calculator: what `evalscope perf`
// would have reported from a trace's bytes.
//
// It reproduces modelscope/evalscope at commit
// fde259d2a32ab8a4cdb3af44dc8b18f504f1e277:
//
//   - the client's framing, replay's evalscope framer: each read decoded,
//     CRLF made LF, StreamedResponseHandler with _extract_sse_payload
//     (evalscope/perf/plugin/api/default_api.py);
//   - its request function, Client here: DefaultApiPlugin.process_request
//     (the openai API plugin, OpenaiPlugin, inherits it), one BenchmarkData
//     a request; OpenaiPlugin.parse_responses
//     (evalscope/perf/plugin/api/openai_api.py) when the stream's usage
//     lacks a count;
//   - BenchmarkData.finalize and MetricsAccumulator
//     (evalscope/perf/utils/benchmark_util.py), formula.go and calc.go;
//   - get_percentile_results and calculate_percentiles
//     (evalscope/perf/utils/db_util.py): formula.go;
//   - the keys of benchmark_summary.json (BenchmarkMetrics.create_message
//     through BenchmarkSummary, evalscope/perf/utils/perf_models.py) and of
//     benchmark_percentile.json: result.go, unrounded.
//
// Rules switches the rules in which EvalScope differs from AISBench to
// AISBench's, one at a time, so that a difference between the two tools'
// figures is attributed to the rule that makes it (audit tools).
package evalscope

import (
	"bytes"

	"github.com/valyala/fastjson"

	"github.com/sseaudit/sseaudit/replay"
)

// Source is the pinned commit.
const Source = "fde259d2a32ab8a4cdb3af44dc8b18f504f1e277"

// Rules are the rules of EvalScope's client and metrics in which AISBench
// differs. The zero value is EvalScope's own; each field set is AISBench's
// rule instead.
type Rules struct {
	// EveryMessage: every message parsed is a token, timed (TTFT from the
	// first, an ITL interval from each later one), as AISBench gives every
	// event it parses a time point. EvalScope's own: only a message with
	// truthy choices is (most_recent_timestamp still moves on the others).
	EveryMessage bool
	// StopAtDone: nothing after [DONE] is read. EvalScope's own: the loop
	// goes on.
	StopAtDone bool
	// NeedsEvent: a request with no timed message fails, as AISBench's
	// request with fewer than two time points does. EvalScope's own: a
	// stream read to its end succeeds.
	NeedsEvent bool
	// AnyUsage: output tokens are the last truthy usage's int
	// completion_tokens (a 0 unknown), as AISBench's. EvalScope's own: the
	// last truthy usage's completion_tokens as it is, else
	// parse_responses.
	AnyUsage bool
	// NumpyP99: percentiles are np.percentile's (linear), as AISBench's.
	// EvalScope's own: calculate_percentiles' sorted[int(n * p / 100)].
	NumpyP99 bool
	// AISBenchDuration: the run's duration is the successes' last end minus
	// their first start. EvalScope's own: every request's first start_time
	// (failed ones too) to the last completed_time.
	AISBenchDuration bool
}

// Count is a token count the request ends up with, or why it has none.
type Count struct {
	N     int64
	Known bool
	// Why: "tokenizer" (OpenaiPlugin counts the generated text with the
	// tokenizer of --tokenizer-path, and raises without one), or the value
	// the stream gave that is not an int.
	Why string
}

// Output is a request's BenchmarkData after finalize: the fields the
// accumulator and the database read.
type Output struct {
	Success       bool
	Error         string
	StartTime     float64 // st: t0 as time.perf_counter() would have read it
	CompletedTime float64 // 0 unless the stream was read to its end
	TTFT          float64 // first_chunk_latency
	ITL           []float64
	Latency       float64 // query_latency
	// PromptTokens and CompletionTokens after finalize.
	PromptTokens, CompletionTokens Count
	// EndNs is when the request ended (its body's end): the order in which
	// EvalScope's queue receives the requests.
	EndNs int64
	// ParseErr is the exception finalize's parse_responses raises on this
	// request (its counts need the tokenizer and a message's choices are
	// not as it expects): it stops the run.
	ParseErr string
}

// Message is what the request function reads in one message, whatever the
// rules: Read finds it once, Run applies the rules to it.
type Message struct {
	TNs     int64
	Done    bool   // [DONE]
	Err     string // the exception handling it raises ("" none)
	Choices bool   // truthy choices, read without error
	// Usage: a truthy usage (a dict), which sets both counts as they are
	// (usage.get: None when missing or null).
	Usage              bool
	Prompt, Completion count
	// ChoiceUsage: (a message with choices) its usage is a dict holding
	// prompt_tokens or completion_tokens, parse_responses' counts when this
	// is the last message with choices: `usage.get(...) or 0`.
	ChoiceUsage                    bool
	ChoicePrompt, ChoiceCompletion count
	// ParseErr is what parse_responses raises reading this message's
	// choices when it counts with the tokenizer ("" none).
	ParseErr string
	AnyUsage int64 // a truthy usage's int completion_tokens, 0 for none (AISBench's rule)
}

// count is a usage value read as the accumulator adds it: an int, or why
// not ("none" for None).
type count struct {
	n   int64
	why string // "" for an int
}

// Client runs EvalScope's request function on replayed requests.
type Client struct {
	Rules Rules
	p     replay.JSONParser
}

func seconds(ns int64) float64 { return float64(ns) / 1e9 }

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
	// chunk = message.removeprefix('data:').strip()
	chunk := bytes.TrimPrefix(m.Text, []byte("data:"))
	chunk = bytes.TrimSpace(chunk)
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
	if replay.Truthy(choices) {
		if msg.Err = firstChoice(data, choices); msg.Err != "" {
			return msg
		}
		msg.Choices = true
		msg.ParseErr = parseErr(data, choices)
		if u := replay.Member(data, "usage"); u != nil && u.Type() == fastjson.TypeObject {
			pt, ct := replay.Member(u, "prompt_tokens"), replay.Member(u, "completion_tokens")
			if pt != nil || ct != nil {
				msg.ChoiceUsage = true
				msg.ChoicePrompt, msg.ChoiceCompletion = orZero(pt), orZero(ct)
			}
		}
	}
	usage := replay.Member(data, "usage")
	if replay.Truthy(usage) {
		if usage.Type() != fastjson.TypeObject {
			msg.Err = "AttributeError: '" + replay.PyTypeName(usage) + "' object has no attribute 'get'"
			return msg
		}
		msg.Usage = true
		ct := replay.Member(usage, "completion_tokens")
		msg.Prompt, msg.Completion = asCount(replay.Member(usage, "prompt_tokens"), "prompt_tokens"), asCount(ct, "completion_tokens")
		if n, ok := replay.PyInt(ct); ok && n != 0 {
			msg.AnyUsage = n
		}
	}
	return msg
}

// firstChoice is what the request function does with truthy choices: the
// content of choices[0] (its "text" when data["object"] is
// "text_completion", else its delta's content + reasoning_content), added
// to generated_text. It returns the exception that raises, "" for none.
func firstChoice(data, choices *fastjson.Value) string {
	var first *fastjson.Value
	switch choices.Type() {
	case fastjson.TypeArray:
		first = choices.GetArray()[0]
	case fastjson.TypeObject:
		return "KeyError: 0"
	case fastjson.TypeString:
		return "AttributeError: 'str' object has no attribute 'get'"
	default:
		return "TypeError: '" + replay.PyTypeName(choices) + "' object is not subscriptable"
	}
	if first.Type() != fastjson.TypeObject {
		return "AttributeError: '" + replay.PyTypeName(first) + "' object has no attribute 'get'"
	}
	obj := replay.Member(data, "object")
	if obj != nil && obj.Type() == fastjson.TypeString && string(obj.GetStringBytes()) == "text_completion" {
		return textOf(replay.Member(first, "text"))
	}
	delta := replay.Member(first, "delta")
	if delta == nil {
		return "" // choices[0].get('delta', {}): no content
	}
	if delta.Type() != fastjson.TypeObject {
		return "AttributeError: '" + replay.PyTypeName(delta) + "' object has no attribute 'get'"
	}
	// (content or '') + (reasoning_content or ''), then generated_text +=:
	// anything but two strings raises.
	if e := textOf(replay.Member(delta, "content")); e != "" {
		return e
	}
	return textOf(replay.Member(delta, "reasoning_content"))
}

// textOf is the exception `generated_text += (v or ”)` raises, "" none.
func textOf(v *fastjson.Value) string {
	if replay.Truthy(v) && v.Type() != fastjson.TypeString {
		return `TypeError: can only concatenate str (not "` + replay.PyTypeName(v) + `") to str`
	}
	return ""
}

// asCount is usage.get(key) as the accumulator adds it.
func asCount(v *fastjson.Value, key string) count {
	if n, ok := replay.PyInt(v); ok {
		return count{n: n}
	}
	if v == nil || v.Type() == fastjson.TypeNull {
		return count{why: "none"}
	}
	return count{why: "a " + replay.PyTypeName(v) + " " + key}
}

// orZero is `usage.get(key) or 0`.
func orZero(v *fastjson.Value) count {
	if !replay.Truthy(v) {
		return count{}
	}
	if n, ok := replay.PyInt(v); ok {
		return count{n: n}
	}
	return count{why: "a " + replay.PyTypeName(v) + " token count"}
}

// Request is the request function's output for one request, from what the
// framer handed it and its t0.
func (c *Client) Request(t0 int64, res *replay.Result) Output {
	if res.Transport != "" {
		return c.Run(t0, res.EndNs, res.Transport, nil)
	}
	return c.Run(t0, res.EndNs, "", c.Read(res))
}

// Run is the request function's output for a request sent at t0 whose body
// ended at end, whose messages read as msgs, or whose transport failed (a
// status other than 200, no response, a transport error: the exception
// handler's success = False), with finalize's token counts.
func (c *Client) Run(t0, end int64, transport string, msgs []Message) Output {
	st := seconds(t0)
	out := Output{StartTime: st, EndNs: end}
	if transport != "" {
		out.Error = transport
		return out
	}
	ttft, mostRecent, timed, lastChoice, parseErr := 0.0, st, 0, -1, ""
	var usage *Message
	var lastUsage int64
	for i := range msgs {
		m := &msgs[i]
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
		ts := seconds(m.TNs)
		if m.Choices || c.Rules.EveryMessage {
			// `if ttft == 0.0`: a first token at st itself leaves it 0.
			isFirst := ttft == 0.0
			if c.Rules.EveryMessage {
				isFirst = timed == 0
			}
			if isFirst {
				ttft = ts - st
				out.TTFT = ttft
			} else {
				out.ITL = append(out.ITL, ts-mostRecent)
			}
			timed++
		}
		if m.Choices {
			lastChoice = i
			if parseErr == "" {
				parseErr = m.ParseErr
			}
		}
		if m.Usage {
			usage = m
		}
		if m.AnyUsage != 0 {
			lastUsage = m.AnyUsage
		}
		mostRecent = ts
	}
	if c.Rules.NeedsEvent && timed == 0 {
		out.Error = "chunk size is less than 2"
		return out
	}
	out.Success = true
	out.CompletedTime = mostRecent
	out.Latency = mostRecent - st
	out.PromptTokens, out.CompletionTokens = finalizeTokens(msgs, usage, lastChoice)
	if out.CompletionTokens.Why == "tokenizer" {
		out.ParseErr = parseErr
	}
	if c.Rules.AnyUsage {
		out.CompletionTokens = Count{N: lastUsage, Known: lastUsage != 0, Why: "tokenizer"}
	}
	return out
}

// finalizeTokens are BenchmarkData.finalize's counts: the stream's last
// truthy usage's when both are not None, else parse_responses': (0, 0)
// with no message with choices, the last such message's usage (`or 0`)
// when it holds either key, else the tokenizer's.
func finalizeTokens(msgs []Message, usage *Message, lastChoice int) (prompt, completion Count) {
	if usage != nil && usage.Prompt.why != "none" && usage.Completion.why != "none" {
		return known(usage.Prompt), known(usage.Completion)
	}
	switch {
	case lastChoice < 0:
		return Count{Known: true}, Count{Known: true}
	case msgs[lastChoice].ChoiceUsage:
		return known(msgs[lastChoice].ChoicePrompt), known(msgs[lastChoice].ChoiceCompletion)
	}
	return Count{Why: "tokenizer"}, Count{Why: "tokenizer"}
}

func known(c count) Count {
	if c.why != "" {
		return Count{Why: c.why}
	}
	return Count{N: c.n, Known: true}
}

// parseErr is the exception OpenaiPlugin.parse_responses raises on one
// response (a message with choices, an array whose first member is a dict)
// when it gathers the text to count (openai_api.py, l. 207-246):
// __process_response_object when the message has "object",
// __process_no_object when not; "" for none.
func parseErr(data, choices *fastjson.Value) string {
	obj := replay.Member(data, "object")
	kind := ""
	if obj != nil && obj.Type() == fastjson.TypeString {
		kind = string(obj.GetStringBytes())
	}
	for _, ch := range choices.GetArray() {
		if ch.Type() != fastjson.TypeObject {
			if obj == nil || kind == "chat.completion" {
				return "TypeError: " + replay.PyTypeName(ch) + " indices must be integers"
			}
			continue // `'text' in choice` and the like: approximated as false
		}
		index := replay.Member(ch, "index")
		delta := replay.Member(ch, "delta")
		switch {
		case obj != nil && kind == "chat.completion", obj == nil && delta == nil:
			// delta_contents[choice['index']] = [choice['message'].get('content') or '']
			msg := replay.Member(ch, "message")
			if msg == nil {
				return "KeyError: 'message'"
			}
			if msg.Type() != fastjson.TypeObject {
				return "AttributeError: '" + replay.PyTypeName(msg) + "' object has no attribute 'get'"
			}
			if index == nil {
				return "KeyError: 'index'"
			}
			if e := unhashable(index); e != "" {
				return e
			}
		case obj != nil && kind == "text_completion":
			if replay.Member(ch, "text") != nil && index != nil {
				if e := unhashable(index); e != "" {
					return e
				}
			}
		case obj != nil && kind == "chat.completion.chunk", obj == nil:
			if obj != nil && (index == nil || delta == nil) {
				continue // `if 'delta' in choice and 'index' in choice`
			}
			if index == nil {
				return "KeyError: 'index'"
			}
			in, e := contains(delta, "content")
			if e != "" {
				return e
			}
			if in {
				if e := unhashable(index); e != "" {
					return e
				}
			}
		}
	}
	return ""
}

// unhashable is the TypeError of a dict key json.loads made a list or a
// dict of.
func unhashable(v *fastjson.Value) string {
	switch v.Type() {
	case fastjson.TypeArray, fastjson.TypeObject:
		return "TypeError: unhashable type: '" + replay.PyTypeName(v) + "'"
	}
	return ""
}

// contains is Python's `key in v` for a value json.loads made.
func contains(v *fastjson.Value, key string) (bool, string) {
	switch v.Type() {
	case fastjson.TypeObject:
		return replay.Member(v, key) != nil, ""
	case fastjson.TypeArray:
		for _, x := range v.GetArray() {
			if x.Type() == fastjson.TypeString && string(x.GetStringBytes()) == key {
				return true, ""
			}
		}
		return false, ""
	case fastjson.TypeString:
		return bytes.Contains(v.GetStringBytes(), []byte(key)), ""
	}
	return false, "TypeError: argument of type '" + replay.PyTypeName(v) + "' is not iterable"
}
