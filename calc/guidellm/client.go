// Package guidellm is guidellm's calculator: what `guidellm benchmark`
// would have reported from a trace's bytes.
//
// It reproduces vllm-project/guidellm at commit
// ee7a77457ba668b4b5ccb40f110518829893b36a:
//
//   - the client's framing, replay's guidellm framer: httpx's text lines,
//     blank ones skipped (OpenAIHTTPBackend._aiter_lines,
//     src/guidellm/backends/openai/http.py);
//   - its streaming client, Client here: OpenAIHTTPBackend._resolve_streaming
//     (http.py) and the request handlers' add_streaming_line,
//     compile_streaming, extract_metrics and post_validation
//     (ChatCompletionsRequestHandler, TextCompletionsRequestHandler,
//     src/guidellm/backends/openai/request_handlers.py); a request is
//     errored by any exception, as the worker's _handle_node_error makes it
//     (src/guidellm/scheduler/worker.py);
//   - GenerationResponse.compile_stats (src/guidellm/schemas/response.py)
//     and GenerativeRequestStats' properties
//     (src/guidellm/schemas/request_stats.py): stats.go;
//   - DistributionSummary.from_values and Percentiles.from_pdf
//     (src/guidellm/schemas/statistics.py): distribution.go;
//   - GenerativeMetrics.compile's request_totals and its per-request
//     distributions (src/guidellm/benchmark/schemas/metrics.py): calc.go,
//     keys result.go.
//
// Rules switches the rules in which guidellm differs from AISBench to
// AISBench's, one at a time, so that a difference between the two tools'
// figures is attributed to the rule that makes it (audit tools).
package guidellm

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/sseaudit/sseaudit/replay"
)

// Source is the pinned commit.
const Source = "ee7a77457ba668b4b5ccb40f110518829893b36a"

// API is the request format: /v1/chat/completions or /v1/completions.
type API string

const (
	Chat        API = "chat"
	Completions API = "completions"
)

// Iterations is what add_streaming_line returns for a line.
type Iterations int8

const (
	End     Iterations = -1 // None: "data: [DONE]", or JSON null
	Ignored Iterations = 0  // 0: not a data line, a falsy JSON value, or nothing added
	Token   Iterations = 1  // 1: text, reasoning or a tool call added
)

// Usage is a truthy usage as extract_metrics reads it: the input and output
// UsageMetrics' total_tokens (text tokens `... or 0`, plus the image, video
// and audio tokens of the details), or the exception reading it raises.
type Usage struct {
	Prompt, Output int64
	Err            string
	// Completion is usage.completion_tokens as AISBench's client reads it
	// (an int, else 0): its output tokens, a 0 unknown (the usage rule).
	Completion int64
}

// Message is what the request handler makes of one line, whatever the
// request's other lines.
type Message struct {
	TNs        int64
	Iter       Iterations
	Err        string // the exception add_streaming_line raises ("" none)
	HadContent bool   // content or a tool call (not reasoning only): TTFOT
	// Text: the line added non-blank text (content, or a completion's
	// text); JoinErr: it added a truthy value that is not a str, on which
	// compile_streaming's "".join raises.
	Text    bool
	JoinErr string
	Tool    bool   // a tool call delta
	IDErr   string // its "id" is the first non-null one and not a str: GenerationResponse raises
	HasID   bool   // it has a non-null "id"
	Usage   *Usage // a truthy usage, which replaces any before it
	// Event: a data line whose payload parsed, one AISBench's client gives
	// a time point (the every_message rule).
	Event bool
}

// Client runs guidellm's streaming client on replayed requests.
type Client struct {
	API API
	// Payloads: the messages are the aisbench framer's (Options.Messages):
	// a payload its client parsed (after "data:", stripped) or "[DONE]",
	// each a data line here (the framing rule switched to AISBench's).
	Payloads bool
	p        replay.JSONParser
}

// Read is what the request handler makes of every line res's framer handed
// on.
func (c *Client) Read(res *replay.Result) []Message {
	ms := make([]Message, 0, len(res.Messages))
	for _, m := range res.Messages {
		ms = append(ms, c.read(m))
	}
	return ms
}

var dataDone = []byte("data: [DONE]")

func (c *Client) read(m replay.Message) Message {
	msg := Message{TNs: m.TNs}
	// extract_line_data
	text := m.Text
	if c.Payloads {
		if string(text) == "[DONE]" {
			text = dataDone
		} else {
			text = append([]byte("data: "), text...)
		}
	}
	if bytes.Equal(text, dataDone) {
		msg.Iter = End
		return msg
	}
	rest, ok := bytes.CutPrefix(replay.PyStrip(text), []byte("data:"))
	if !ok {
		return msg
	}
	data, ok := c.p.Parse(replay.PyStrip(rest))
	if !ok {
		msg.Err = "JSONDecodeError"
		return msg
	}
	msg.Event = true
	if data.Type() == fastjson.TypeNull {
		msg.Iter = End
		return msg
	}
	if !replay.Truthy(data) {
		return msg
	}
	switch data.Type() {
	case fastjson.TypeObject:
	case fastjson.TypeArray, fastjson.TypeString:
		msg.Err = "AttributeError: '" + replay.PyTypeName(data) + "' object has no attribute 'get'"
		return msg
	default:
		msg.Err = "TypeError: argument of type '" + replay.PyTypeName(data) + "' is not iterable"
		return msg
	}
	if e := replay.Member(data, "error"); replay.Truthy(e) {
		msg.Err = "ValueError: Streaming response returned an error"
		return msg
	}
	if id := replay.Member(data, "id"); id != nil && id.Type() != fastjson.TypeNull {
		msg.HasID = true
		if id.Type() != fastjson.TypeString {
			msg.IDErr = "ValidationError: response_id"
		}
	}
	choices := replay.Member(data, "choices")
	if replay.Truthy(choices) {
		choice, err := first(choices)
		if err != "" {
			msg.Err = err
			return msg
		}
		if choice.Type() != fastjson.TypeObject {
			msg.Err = "AttributeError: '" + replay.PyTypeName(choice) + "' object has no attribute 'get'"
			return msg
		}
		if c.API == Completions {
			msg.added(replay.Member(choice, "text"), true)
		} else if msg.Err = msg.delta(choice); msg.Err != "" {
			return msg
		}
	}
	if u := replay.Member(data, "usage"); replay.Truthy(u) {
		msg.Usage = readUsage(u)
	}
	return msg
}

// first is choices[0] of truthy choices, or the exception it raises.
func first(choices *fastjson.Value) (*fastjson.Value, string) {
	switch choices.Type() {
	case fastjson.TypeArray:
		return choices.GetArray()[0], ""
	case fastjson.TypeObject:
		return nil, "KeyError: 0"
	case fastjson.TypeString:
		// A str's first character: choice.get raises next.
		return choices, ""
	}
	return nil, "TypeError: '" + replay.PyTypeName(choices) + "' object is not subscriptable"
}

// added is a value appended to the texts when truthy; content says whether
// it is content (not reasoning).
func (m *Message) added(v *fastjson.Value, content bool) {
	if !replay.Truthy(v) {
		return
	}
	m.Iter = Token
	if content {
		m.HadContent = true
	}
	if v.Type() != fastjson.TypeString {
		if m.JoinErr == "" {
			m.JoinErr = "TypeError: sequence item 0: expected str instance, " + replay.PyTypeName(v) + " found"
		}
		return
	}
	if content && len(replay.PyStrip(v.GetStringBytes())) > 0 {
		m.Text = true
	}
}

// delta is ChatCompletionsRequestHandler.add_streaming_line's reading of
// choices[0]'s delta; the exception it raises, "" none.
func (m *Message) delta(choice *fastjson.Value) string {
	delta := replay.Member(choice, "delta")
	if delta == nil {
		return "" // choice.get("delta", {})
	}
	if delta.Type() != fastjson.TypeObject {
		return "AttributeError: '" + replay.PyTypeName(delta) + "' object has no attribute 'get'"
	}
	reasoning := replay.Member(delta, "reasoning")
	if !replay.Truthy(reasoning) {
		reasoning = replay.Member(delta, "reasoning_content")
	}
	m.added(reasoning, false)
	m.added(replay.Member(delta, "content"), true)
	tcs := replay.Member(delta, "tool_calls")
	if !replay.Truthy(tcs) {
		return ""
	}
	switch tcs.Type() {
	case fastjson.TypeArray:
	case fastjson.TypeObject, fastjson.TypeString:
		return "TypeError: string indices must be integers"
	default:
		return "TypeError: '" + replay.PyTypeName(tcs) + "' object is not iterable"
	}
	for _, tc := range tcs.GetArray() {
		if e := toolCall(tc); e != "" {
			return e
		}
		m.Iter, m.HadContent, m.Tool = Token, true, true
	}
	return ""
}

// toolCall is _accumulate_tool_call_delta's exception on one delta, ""
// none. The ToolCall a first delta of an index builds validates id and
// type as str; name and arguments are added to str.
func toolCall(tc *fastjson.Value) string {
	if tc.Type() != fastjson.TypeObject {
		return "TypeError: '" + replay.PyTypeName(tc) + "' object is not subscriptable"
	}
	idx := replay.Member(tc, "index")
	switch {
	case idx == nil:
		return "KeyError: 'index'"
	case idx.Type() == fastjson.TypeArray || idx.Type() == fastjson.TypeObject:
		return "TypeError: unhashable type: '" + replay.PyTypeName(idx) + "'"
	}
	for _, k := range []string{"id", "type"} {
		if v := replay.Member(tc, k); v != nil && v.Type() != fastjson.TypeString {
			return "ValidationError: ToolCall." + k
		}
	}
	fn := replay.Member(tc, "function")
	if fn == nil {
		return ""
	}
	if fn.Type() != fastjson.TypeObject {
		return "AttributeError: '" + replay.PyTypeName(fn) + "' object has no attribute 'get'"
	}
	for _, k := range []string{"name", "arguments"} {
		if v := replay.Member(fn, k); replay.Truthy(v) && v.Type() != fastjson.TypeString {
			return `TypeError: can only concatenate str (not "` + replay.PyTypeName(v) + `") to str`
		}
	}
	return ""
}

// readUsage is extract_metrics on a truthy usage u: UsageMetrics' fields
// validated as pydantic does (lax int), their total_tokens.
func readUsage(u *fastjson.Value) *Usage {
	if u.Type() != fastjson.TypeObject {
		return &Usage{Err: "AttributeError: '" + replay.PyTypeName(u) + "' object has no attribute 'get'"}
	}
	out := &Usage{}
	side := func(detailsKey, countKey string, extra []string) (int64, string) {
		details := replay.Member(u, detailsKey)
		if !replay.Truthy(details) {
			details = nil // `usage.get(...) or {}`
		} else if details.Type() != fastjson.TypeObject {
			return 0, "AttributeError: '" + replay.PyTypeName(details) + "' object has no attribute 'get'"
		}
		// text_tokens = details.get(k) or usage.get(k) or 0
		v := replay.Member(details, countKey)
		if !replay.Truthy(v) {
			v = replay.Member(u, countKey)
		}
		var total int64
		if replay.Truthy(v) {
			n, ok := laxInt(v)
			if !ok {
				return 0, "ValidationError: text_tokens"
			}
			total = n
		}
		for _, k := range extra {
			v := replay.Member(details, k)
			if v == nil || v.Type() == fastjson.TypeNull {
				continue
			}
			n, ok := laxInt(v)
			if !ok {
				return 0, "ValidationError: " + k
			}
			if k != "cached_tokens" {
				total += n
			}
		}
		if v := replay.Member(details, "seconds"); v != nil && v.Type() != fastjson.TypeNull && !laxFloat(v) {
			return 0, "ValidationError: audio_seconds"
		}
		return total, ""
	}
	if v := replay.Member(u, "completion_tokens"); v != nil {
		out.Completion, _ = replay.PyInt(v)
	}
	var err string
	if out.Prompt, err = side("prompt_tokens_details", "prompt_tokens",
		[]string{"cached_tokens", "image_tokens", "video_tokens", "audio_tokens"}); err != "" {
		return &Usage{Err: err}
	}
	if out.Output, err = side("completion_tokens_details", "completion_tokens",
		[]string{"image_tokens", "video_tokens", "audio_tokens"}); err != "" {
		return &Usage{Err: err}
	}
	return out
}

// laxInt is pydantic 2's lax validation of v as an int: an int, a bool, an
// integral float within int64, or a str holding an int.
func laxInt(v *fastjson.Value) (int64, bool) {
	if n, ok := replay.PyInt(v); ok {
		return n, true
	}
	switch v.Type() {
	case fastjson.TypeTrue:
		return 1, true
	case fastjson.TypeFalse:
		return 0, true
	case fastjson.TypeNumber:
		f := v.GetFloat64()
		if f == float64(int64(f)) && f > -9.2e18 && f < 9.2e18 {
			return int64(f), true
		}
	case fastjson.TypeString:
		n, err := strconv.ParseInt(strings.TrimSpace(string(v.GetStringBytes())), 10, 64)
		return n, err == nil
	}
	return 0, false
}

// laxFloat is pydantic 2's lax validation of v as a float.
func laxFloat(v *fastjson.Value) bool {
	switch v.Type() {
	case fastjson.TypeNumber, fastjson.TypeTrue, fastjson.TypeFalse:
		return true
	case fastjson.TypeString:
		_, err := strconv.ParseFloat(strings.TrimSpace(string(v.GetStringBytes())), 64)
		return err == nil
	}
	return false
}
