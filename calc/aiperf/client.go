// Package aiperf is AIPerf's calculator: what `aiperf profile` would have
// reported from a trace's bytes.
//
// It reproduces ai-dynamo/aiperf at commit
// db4f6397d11ee2d4cfbb41f70b2327315163dcf0:
//
//   - the client's framing, replay's aiperf framer: AioHttpSSEStreamReader
//     (aiperf/clients/http/aiohttp_client.py) over aiohttp 3.12's
//     StreamReader, each message timed at its first byte, and
//     parse_sse_message's data content;
//   - the record the client fills in (AioHttpClientMixin._request) and what
//     InferenceResultParser.parse_request_record
//     (aiperf/parsers/inference_result_parser.py) makes of it with
//     OpenAIResponseExtractor (aiperf/parsers/openai_parsers.py): Client
//     here, one Output a request;
//   - the metrics MetricRecordProcessor computes for every record and
//     MetricResultsProcessor gathers (aiperf/metrics/types/*.py,
//     aiperf/metrics/metric_dicts.py MetricArray.to_result): calc.go;
//   - the keys of profile_export_aiperf.json (JsonExporter,
//     aiperf/exporters/json_exporter.py, in display units): result.go.
//
// Output token counts are always its tokenizer's count of the text
// (process_valid_record), never the stream's usage: every key that needs
// them is not computed.
//
// Rules switches the rules in which AIPerf differs from AISBench to
// AISBench's, one at a time, so that a difference between the two tools'
// figures is attributed to the rule that makes it (audit tools).
package aiperf

import (
	"strconv"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/sseaudit/sseaudit/replay"
)

// Source is the pinned commit.
const Source = "db4f6397d11ee2d4cfbb41f70b2327315163dcf0"

// Rules are the rules of AIPerf's response extractor and metrics in which
// AISBench differs. The zero value is AIPerf's own; each field set is
// AISBench's rule instead.
type Rules struct {
	// EveryMessage: every message parsed is a response, timed (TTFT from
	// the first, an interval from each later one), as AISBench gives every
	// event it parses a time point. AIPerf's own: only a message holding
	// text (content or reasoning) is a response.
	EveryMessage bool
	// StopAtDone: nothing after [DONE] is read. AIPerf's own: every
	// message is.
	StopAtDone bool
	// JSONLoads: a message is parsed as json.loads parses it, and one it
	// refuses fails the request, as AISBench's. AIPerf's own: orjson, and a
	// message it refuses is skipped.
	JSONLoads bool
	// KeepGoing: a message the response extractor raises on (a usage-only
	// chunk's empty choices: IndexError) is read on, as AISBench reads a
	// usage-only event. AIPerf's own: the exception fails the request.
	KeepGoing bool
	// ZeroIntervals: a request's inter-chunk latencies are kept when one is
	// 0 (two messages in one read), as AISBench keeps zero intervals.
	// AIPerf's own: InterChunkLatencyMetric raises and the request has none.
	ZeroIntervals bool
	// AnyUsage: output tokens are the last truthy usage's int
	// completion_tokens (a 0 unknown), as AISBench's. AIPerf's own: its
	// tokenizer's count of the text.
	AnyUsage bool
	// TPOTOfOne: a request of one output token has TPOT (AIPerf's
	// inter_token_latency) 0, as AISBench's. AIPerf's own: it has none.
	TPOTOfOne bool
}

// Message is what the response extractor reads in one message, whatever
// the rules: Read finds it once, Run applies the rules to it.
type Message struct {
	TNs  int64
	Done bool // [DONE]
	// Parsed: the data content is JSON that json.loads accepts (not "");
	// Orjson: orjson accepts it too.
	Parsed, Orjson bool
	NotJSON        bool  // a data content json.loads refuses
	AnyUsage       int64 // a truthy usage's int completion_tokens, 0 for none (AISBench's rule)
	// Err is the exception the extractor raises on it ("" none): it fails
	// the request.
	Err string
	// Response: it parses to a response (text, reasoning, embeddings or
	// rankings), which the metrics time; Output and Reasoning: it adds an
	// output text, a reasoning text to the request's (counted by the
	// tokenizer).
	Response, Output, Reasoning bool
}

// Client runs AIPerf's client and response extractor on replayed requests.
type Client struct {
	Rules Rules
	p     replay.JSONParser
}

// Read is what the response extractor reads in each message res's framer
// handed on.
func (c *Client) Read(res *replay.Result) []Message {
	ms := make([]Message, 0, len(res.Messages))
	for _, m := range res.Messages {
		ms = append(ms, c.read(m))
	}
	return ms
}

// read is OpenAIResponseExtractor._parse_response of one message's data
// content.
func (c *Client) read(m replay.Message) Message {
	msg := Message{TNs: m.TNs}
	text := m.Text
	if string(text) == "[DONE]" {
		msg.Done = true
		return msg
	}
	if len(text) == 0 {
		return msg
	}
	// load_json_str: orjson.loads; JSONDecodeError skips the message.
	v, ok := c.p.Parse(text)
	if !ok {
		msg.NotJSON = true
		return msg
	}
	msg.Parsed, msg.Orjson = true, !replay.ORJSONRejects(text)
	if v.Type() == fastjson.TypeObject {
		if u := replay.Member(v, "usage"); replay.Truthy(u) && u.Type() == fastjson.TypeObject {
			if n, ok := replay.PyInt(replay.Member(u, "completion_tokens")); ok && n != 0 {
				msg.AnyUsage = n
			}
		}
	}
	kind, err := objectType(v)
	if err != "" {
		msg.Err = err
		return msg
	}
	msg.Response, msg.Output, msg.Reasoning, msg.Err = parseObject(kind, v)
	if msg.Err != "" {
		msg.Response, msg.Output, msg.Reasoning = false, false, false
	}
	return msg
}

// The object types OpenAIObjectParserFactory knows (OpenAIObjectType,
// aiperf/common/enums/openai_enums.py); "embedding" has no parser.
var objectTypes = []string{"chat.completion", "chat.completion.chunk", "completion", "embedding", "list",
	"rankings", "response", "text_completion"}

// objectType is _parse_raw_text's choice of a parser for v: the object
// type ("" for none: the message is skipped), or the exception raised.
func objectType(v *fastjson.Value) (string, string) {
	switch v.Type() {
	case fastjson.TypeObject:
		if obj := replay.Member(v, "object"); obj != nil {
			// OpenAIObjectType(json_str["object"]): a case-insensitive match
			// of a string, else ValueError, which skips it.
			if obj.Type() != fastjson.TypeString {
				return "", ""
			}
			s := pyLower(obj.GetStringBytes())
			for _, t := range objectTypes {
				if s == t && t != "embedding" {
					return t, ""
				}
			}
			return "", ""
		}
		if replay.Member(v, "rankings") != nil {
			return "rankings", ""
		}
		return "", ""
	case fastjson.TypeArray:
		// `"object" in json_str` on a list: a member equal to "object".
		for _, x := range v.GetArray() {
			if x.Type() == fastjson.TypeString && string(x.GetStringBytes()) == "object" {
				return "", "TypeError: list indices must be integers or slices, not str"
			}
		}
		for _, x := range v.GetArray() {
			if x.Type() == fastjson.TypeString && string(x.GetStringBytes()) == "rankings" {
				return "", "AttributeError: 'list' object has no attribute 'get'"
			}
		}
		return "", ""
	case fastjson.TypeString:
		s := string(v.GetStringBytes())
		switch {
		case strings.Contains(s, "object"):
			return "", "TypeError: string indices must be integers"
		case strings.Contains(s, "rankings"):
			return "", "AttributeError: 'str' object has no attribute 'get'"
		}
		return "", ""
	}
	return "", "TypeError: argument of type '" + replay.PyTypeName(v) + "' is not iterable"
}

// parseObject is the object type's parser on v (a dict): whether it makes
// a response, whether that adds an output or a reasoning text, or the
// exception it raises.
func parseObject(kind string, v *fastjson.Value) (resp, out, reasoning bool, err string) {
	switch kind {
	case "chat.completion", "chat.completion.chunk":
		key := "delta"
		if kind == "chat.completion" {
			key = "message"
		}
		sub, e := firstChoiceGet(v, key, true)
		if e != "" || sub == nil {
			return false, false, false, e
		}
		return parseChat(sub)
	case "completion", "text_completion":
		text, e := firstChoiceGet(v, "text", false)
		if e != "" {
			return false, false, false, e
		}
		return textResponse(text)
	case "response":
		return textResponse(replay.Member(v, "output_text"))
	case "rankings":
		r := replay.Member(v, "rankings")
		if !replay.Truthy(r) {
			return false, false, false, ""
		}
		// RankingsResponseData(rankings=...): list[dict[str, Any]].
		if r.Type() != fastjson.TypeArray {
			return false, false, false, "ValidationError: rankings"
		}
		for _, x := range r.GetArray() {
			if x.Type() != fastjson.TypeObject {
				return false, false, false, "ValidationError: rankings"
			}
		}
		return true, true, false, "" // get_text(): "", still an output text
	case "list":
		return parseList(v)
	}
	return false, false, false, ""
}

// firstChoiceGet is obj.get("choices", [{}])[0].get(key, {}) (dict is true)
// or .get(key) (dict false): the value (nil for none), or the exception
// raised on the way.
func firstChoiceGet(v *fastjson.Value, key string, dict bool) (*fastjson.Value, string) {
	choices := replay.Member(v, "choices")
	if choices == nil {
		return nil, "" // [{}][0].get(key): nothing
	}
	var first *fastjson.Value
	switch choices.Type() {
	case fastjson.TypeArray:
		a := choices.GetArray()
		if len(a) == 0 {
			return nil, "IndexError: list index out of range"
		}
		first = a[0]
	case fastjson.TypeObject:
		return nil, "KeyError: 0"
	case fastjson.TypeString:
		if len(choices.GetStringBytes()) == 0 {
			return nil, "IndexError: string index out of range"
		}
		return nil, "AttributeError: 'str' object has no attribute 'get'"
	default:
		return nil, "TypeError: '" + replay.PyTypeName(choices) + "' object is not subscriptable"
	}
	if first.Type() != fastjson.TypeObject {
		return nil, "AttributeError: '" + replay.PyTypeName(first) + "' object has no attribute 'get'"
	}
	sub := replay.Member(first, key)
	if dict && sub != nil && sub.Type() != fastjson.TypeObject {
		return nil, "AttributeError: '" + replay.PyTypeName(sub) + "' object has no attribute 'get'"
	}
	return sub, ""
}

// parseChat is _parse_chat_common of a delta (or message) dict.
func parseChat(sub *fastjson.Value) (resp, out, reasoning bool, err string) {
	content := replay.Member(sub, "content")
	r := replay.Member(sub, "reasoning_content")
	if !replay.Truthy(r) {
		r = replay.Member(sub, "reasoning")
	}
	if !replay.Truthy(content) && !replay.Truthy(r) {
		return false, false, false, ""
	}
	if !replay.Truthy(r) {
		return textResponse(content)
	}
	// ReasoningResponseData(content=content, reasoning=reasoning): str | None.
	if r.Type() != fastjson.TypeString || content != nil && content.Type() != fastjson.TypeString && content.Type() != fastjson.TypeNull {
		return false, false, false, "ValidationError: ReasoningResponseData"
	}
	return true, replay.Truthy(content), true, ""
}

// textResponse is _make_text_response_data(text): TextResponseData(text=)
// when text is truthy (a str, else pydantic raises), else nothing.
func textResponse(text *fastjson.Value) (resp, out, reasoning bool, err string) {
	if !replay.Truthy(text) {
		return false, false, false, ""
	}
	if text.Type() != fastjson.TypeString {
		return false, false, false, "ValidationError: TextResponseData"
	}
	return true, true, false, ""
}

// parseList is ListParser.parse: every member of "data" a dict whose
// "object" is "embedding" (else ValueError), then EmbeddingResponseData of
// the truthy embeddings (list[list[float]]).
func parseList(v *fastjson.Value) (resp, out, reasoning bool, err string) {
	data := replay.Member(v, "data")
	var items []*fastjson.Value
	if data != nil {
		switch data.Type() {
		case fastjson.TypeArray:
			items = data.GetArray()
		case fastjson.TypeObject, fastjson.TypeString:
			if replay.Truthy(data) {
				return false, false, false, "ValueError: Received invalid list in response"
			}
		default:
			return false, false, false, "TypeError: '" + replay.PyTypeName(data) + "' object is not iterable"
		}
	}
	var embeddings int
	for _, it := range items {
		obj := replay.Member(it, "object")
		if it.Type() != fastjson.TypeObject || obj == nil || obj.Type() != fastjson.TypeString ||
			pyLower(obj.GetStringBytes()) != "embedding" {
			return false, false, false, "ValueError: Received invalid list in response"
		}
	}
	for _, it := range items {
		e := replay.Member(it, "embedding")
		if !replay.Truthy(e) {
			continue
		}
		if e.Type() != fastjson.TypeArray {
			return false, false, false, "ValidationError: EmbeddingResponseData"
		}
		for _, x := range e.GetArray() {
			if !pyFloat(x) {
				return false, false, false, "ValidationError: EmbeddingResponseData"
			}
		}
		embeddings++
	}
	if embeddings == 0 {
		return false, false, false, ""
	}
	return true, true, false, "" // get_text(): "", still an output text
}

// Output is a request as the metrics see it: its RequestRecord after
// parse_request_record, a ParsedResponseRecord.
type Output struct {
	StartNs int64 // start_perf_ns: t0
	// EndNs is the record's end_perf_ns: the body's end (the clock when
	// the stream or its error ended). The requests reach the results
	// processor in this order.
	EndNs int64
	// Error is the record's error ("" none): a status other than 200, a
	// transport error, a message too big, the response extractor's
	// exception, a body without a message.
	Error string
	// Responses are the parsed responses' times (perf_ns, their first
	// bytes').
	Responses []int64
	// Output, Reasoning: the request has an output text, a reasoning text
	// (its token counts are the tokenizer's).
	Output, Reasoning bool
	// Usage is the last truthy usage's completion_tokens (0 for none), the
	// output tokens under the AnyUsage rule.
	Usage int64
}

// Valid is ParsedResponseRecord.valid: no error, a response, 0 <= start <
// end, every response after 0. An invalid record gets the error metrics
// only.
func (o *Output) Valid() bool {
	if o.Error != "" || len(o.Responses) == 0 || o.StartNs < 0 || o.StartNs >= o.EndNs {
		return false
	}
	for _, t := range o.Responses {
		if t <= 0 {
			return false
		}
	}
	return true
}

// Request is the output for one request, from what the framer handed on
// and its t0.
func (c *Client) Request(t0 int64, res *replay.Result) Output {
	if res.Transport != "" {
		return c.Run(t0, res.EndNs, res.Transport, nil)
	}
	return c.Run(t0, res.EndNs, "", c.Read(res))
}

// Run is the output of a request sent at t0 whose body ended at end,
// whose messages read as msgs, or whose transport failed.
func (c *Client) Run(t0, end int64, transport string, msgs []Message) Output {
	o := Output{StartNs: t0, EndNs: end}
	if transport != "" {
		o.Error = transport
		return o
	}
	// RequestRecord.valid: a message, each after 0 (else "Invalid inference
	// results").
	valid := len(msgs) > 0 && t0 >= 0
	for i := range msgs {
		valid = valid && msgs[i].TNs > 0
	}
	if !valid {
		o.Error = "InvalidInferenceResults: Invalid inference results"
		return o
	}
	for i := range msgs {
		m := &msgs[i]
		if m.Done {
			if c.Rules.StopAtDone {
				break
			}
			continue
		}
		switch {
		case m.NotJSON && c.Rules.JSONLoads:
			return Output{StartNs: t0, EndNs: end, Error: "json.decoder.JSONDecodeError"}
		case !m.Parsed, !m.Orjson && !c.Rules.JSONLoads:
			continue // not JSON: skipped
		case m.Err != "" && !c.Rules.KeepGoing:
			// process_valid_record raises: the record becomes an error.
			return Output{StartNs: t0, EndNs: end, Error: m.Err}
		}
		if m.Response || c.Rules.EveryMessage {
			o.Responses = append(o.Responses, m.TNs)
		}
		o.Output = o.Output || m.Output
		o.Reasoning = o.Reasoning || m.Reasoning
		if m.AnyUsage != 0 {
			o.Usage = m.AnyUsage
		}
	}
	return o
}

// pyFloat reports whether pydantic's lax float takes x: a number, a bool,
// a string holding a number (as strconv reads one, spaces trimmed: an
// approximation of its parser).
func pyFloat(x *fastjson.Value) bool {
	switch x.Type() {
	case fastjson.TypeNumber, fastjson.TypeTrue, fastjson.TypeFalse:
		return true
	case fastjson.TypeString:
		_, err := strconv.ParseFloat(strings.TrimSpace(string(x.GetStringBytes())), 64)
		return err == nil
	}
	return false
}
