// Package genaiperf is GenAI-Perf's calculator: what `genai-perf profile`
// would have reported from a trace's bytes.
//
// It reproduces triton-inference-server/perf_analyzer at commit
// 263c5f6e0c7a6c15472a54409174981f67930cfe:
//
//   - perf_analyzer's OpenAI client, in C++ (src/client_backend/openai/
//     openai_client.cc, src/infer_context.cc): replay's genai-perf framer, a
//     response a read; its profile export read back with errors="ignore";
//   - GenAI-Perf's LLMProfileDataParser
//     (genai-perf/genai_perf/profile_data_parser/llm_profile_data_parser.py):
//     _preprocess_response and the text extraction here, _parse_requests in
//     calc.go;
//   - Statistics and scale_data (genai-perf/genai_perf/metrics/
//     statistics.py), the keys of profile_export_genai_perf.json: result.go.
//
// Output and input token counts are its tokenizer's: every key that needs
// them is not computed.
package genaiperf

import (
	"strings"

	"github.com/valyala/fastjson"

	"github.com/sseaudit/sseaudit/replay"
)

// Source is the pinned commit.
const Source = "263c5f6e0c7a6c15472a54409174981f67930cfe"

// API is the endpoint: its response format.
type API string

const (
	Chat        API = "chat"        // v1/chat/completions: OPENAI_CHAT_COMPLETIONS
	Completions API = "completions" // v1/completions: OPENAI_COMPLETIONS
)

// Output is a request as GenAI-Perf's metrics see it, after
// _preprocess_response.
type Output struct {
	StartNs int64 // the request's timestamp: t0
	// Responses are the times of the responses _preprocess_response keeps.
	Responses []int64
	// Text is the joined text of those responses (the tokenizer counts
	// it; identical texts get identical counts, lru_cache).
	Text string
	// Stop is why perf_analyzer stops the run at this request (a status
	// other than 200, a transport error), "" when it does not.
	Stop string
	// Err is the exception GenAI-Perf raises on this request, which stops
	// it ("" none).
	Err string
	// Usage is the last truthy usage's completion_tokens (0 for none), the
	// output tokens under the AnyUsage rule.
	Usage int64
}

// Rules are the rules of GenAI-Perf's client and metrics in which AISBench
// differs. The zero value is GenAI-Perf's own; each field set is AISBench's
// rule instead.
type Rules struct {
	// Events: the messages are the aisbench framer's payloads, one event
	// each (the framing rule, switched by audit tools with the framer).
	Events bool
	// EveryMessage: every event that parses is a response, timed, as
	// AISBench gives every event it parses a time point. GenAI-Perf's own:
	// a response without content (the role-only chunk, the finish, the
	// usage-only tail) is removed.
	EveryMessage bool
	// JSONLoads: an event json.loads refuses fails the request, as
	// AISBench's. GenAI-Perf's own: orjson, and a response it refuses is
	// blanked.
	JSONLoads bool
	// Failures: a failed request (a status other than 200, a transport
	// error) fails alone, as in AISBench. GenAI-Perf's own: perf_analyzer
	// stops.
	Failures bool
	// AnyUsage: output tokens are the last truthy usage's int
	// completion_tokens (a 0 unknown), as AISBench's. GenAI-Perf's own: its
	// tokenizer's.
	AnyUsage bool
	// TPOTOfOne: a request of one output token (or one response) has TPOT
	// 0, as AISBench's. GenAI-Perf's own: no inter_token_latency.
	TPOTOfOne bool
	// NoRound: inter_token_latency is not rounded to the ns, as AISBench's
	// TPOT. GenAI-Perf's own: round().
	NoRound bool
	// Pooled: ITL is the intervals between responses, pooled, as
	// AISBench's. GenAI-Perf's own: none.
	Pooled bool
}

// Client runs GenAI-Perf's response preprocessing on replayed requests.
type Client struct {
	API   API
	Rules Rules
	p0    replay.JSONParser // responses[0] of a merged response
	p     replay.JSONParser // everything else
	a     fastjson.Arena
}

// Request is the output of one request, from what the genai-perf framer
// handed on (a response a read), its t0 and the body's end (the final
// empty response without [DONE]).
func (c *Client) Request(t0 int64, res *replay.Result) Output {
	o := Output{StartNs: t0}
	if res.Transport != "" {
		if !c.Rules.Failures {
			o.Stop = res.Transport
		}
		return o
	}
	ts := make([]int64, 0, len(res.Messages)+1)
	outs := make([]string, 0, len(res.Messages)+1)
	done := false
	for _, m := range res.Messages {
		text := string(replay.PyDecodeIgnore(nil, m.Text))
		if c.Rules.Events {
			text = "data: " + text
		}
		if c.Rules.JSONLoads || c.Rules.AnyUsage {
			for _, part := range strings.Split(text, "\n\n") {
				p := removeSSEPrefix(part)
				if notDataField(part) || p == "" || p == "[DONE]" {
					continue
				}
				v, ok := c.p.Parse([]byte(p))
				if !ok && c.Rules.JSONLoads {
					return o // json.loads raises: the request fails
				}
				if ok && v.Type() == fastjson.TypeObject {
					if u := replay.Member(v, "usage"); replay.Truthy(u) && u.Type() == fastjson.TypeObject {
						if n, ok := replay.PyInt(replay.Member(u, "completion_tokens")); ok && n != 0 {
							o.Usage = n
						}
					}
				}
			}
		}
		ts = append(ts, m.TNs)
		outs = append(outs, text)
		done = done || strings.Contains(text, "data: [DONE]")
	}
	if !done { // the completion callback's final response, empty
		ts, outs = append(ts, res.EndNs), append(outs, "")
	}
	return c.preprocess(o, ts, outs)
}

// text is what _extract_text_output gives: a string, a truthy value that
// is not one (nonStr: "".join raises on it), or the exception raised.
type text struct {
	s      string
	nonStr bool
	err    string
}

func (t text) empty() bool { return t.err == "" && !t.nonStr && t.s == "" }

// preprocess is _preprocess_response (llm_profile_data_parser.py, l. 295)
// on a request's responses, then the removal of the empty ones.
func (c *Client) preprocess(o Output, ts []int64, outs []string) Output {
	// Splintered responses: each not starting with "data: " is joined to
	// the previous one, from the last to the second.
	for i := len(outs) - 1; i >= 1; i-- {
		r := outs[i]
		if notDataField(r) || strings.HasPrefix(r, "data: ") {
			continue
		}
		if !strings.Contains(outs[i-1], "data:") {
			o.Err = "GenAIPerfException: Detected a splintered SSE response but the previous response does not contain proper SSE prefix to continue the fix."
			return o
		}
		if k := strings.Index(r, "data: "); k < 0 {
			outs[i-1] += r
			outs[i] = ""
		} else {
			outs[i-1] += r[:k]
			outs[i] = r[k:]
		}
	}
	// Several events in one response: merged into the first's JSON.
	merged := make([]*text, len(outs))
	for i := range outs {
		parts := strings.Split(string(replay.PyStrip([]byte(outs[i]))), "\n\n")
		for _, r := range parts {
			if strings.HasPrefix(r, "event:") && strings.Contains(strings.ToLower(r), "error") {
				outs[i] = "" // an error event
			}
		}
		if len(parts) > 1 {
			// The merged JSON replaces the response, an error event's blank
			// too; anything raising blanks it.
			if m, ok := c.merge(parts); ok {
				merged[i], outs[i] = &m, "merged"
			} else {
				outs[i] = ""
			}
		} else if t := c.extract(parts[0]); (t.err != "" || t.empty()) && !(c.Rules.EveryMessage && c.parses(parts[0])) {
			outs[i] = "" // empty, or raising: blanked (failed += 1)
		}
	}
	// Responses without content removed; what raises now stops GenAI-Perf.
	var texts []string
	for i := range outs {
		if outs[i] == "" {
			continue
		}
		t := merged[i]
		if t == nil {
			x := c.extract(outs[i])
			t = &x
		}
		if c.Rules.EveryMessage && c.parses(outs[i]) {
			// Every event that parses is timed, whatever its content.
			o.Responses = append(o.Responses, ts[i])
			if t.err == "" && !t.nonStr {
				texts = append(texts, t.s)
			}
			continue
		}
		if t.err != "" {
			o.Err = t.err
			return o
		}
		if t.empty() {
			continue
		}
		if t.nonStr {
			o.Err = "TypeError: sequence item: expected str instance" // "".join(output_texts)
			return o
		}
		o.Responses = append(o.Responses, ts[i])
		texts = append(texts, t.s)
	}
	o.Text = strings.Join(texts, "")
	return o
}

// merge is the merging of a response holding several events (l. 347): the
// first event's JSON with its text set to all the events' texts joined,
// then that JSON's text as _extract_text_output reads it back; ok false
// when anything raises (the response is blanked).
func (c *Client) merge(parts []string) (text, bool) {
	data, ok := c.p0.Parse([]byte(removeSSEPrefix(parts[0])))
	if !ok || replay.ORJSONRejects([]byte(removeSSEPrefix(parts[0]))) {
		return text{}, false
	}
	var all strings.Builder
	for _, r := range parts {
		t := c.extract(r)
		if t.err != "" || t.nonStr {
			return text{}, false
		}
		all.WriteString(t.s)
	}
	if data.Type() != fastjson.TypeObject {
		return text{}, false
	}
	choices := replay.Member(data, "choices")
	if choices == nil || choices.Type() != fastjson.TypeArray || len(choices.GetArray()) == 0 {
		return text{}, false
	}
	first := choices.GetArray()[0]
	if first.Type() != fastjson.TypeObject {
		return text{}, false
	}
	c.a.Reset()
	s := c.a.NewString(all.String())
	if c.API == Completions {
		first.Set("text", s) // data["choices"][0]["text"] = merged_text
	} else {
		delta := replay.Member(first, "delta")
		if delta == nil || delta.Type() != fastjson.TypeObject {
			return text{}, false
		}
		delta.Set("content", s) // data["choices"][0]["delta"]["content"] = merged_text
	}
	return c.extractValue(data), true
}

// parses reports whether a response is a data field whose payload parses
// (not [DONE]): an event AISBench times (the EveryMessage rule).
func (c *Client) parses(r string) bool {
	if r == "" || notDataField(r) {
		return false
	}
	p := removeSSEPrefix(r)
	if p == "[DONE]" || p == "" {
		return false
	}
	_, ok := c.p.Parse([]byte(p))
	return ok
}

// notDataField is not_data_sse_field (genai_perf/utils.py).
func notDataField(s string) bool {
	for _, p := range []string{":", "event:", "id:", "retry:"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// removeSSEPrefix is remove_sse_prefix (genai_perf/utils.py).
func removeSSEPrefix(s string) string {
	s = strings.TrimPrefix(s, "data:")
	return string(replay.PyStrip([]byte(s)))
}

// extract is _extract_text_output (l. 494) of one response's text.
func (c *Client) extract(r string) text {
	if r == "" || notDataField(r) {
		return text{}
	}
	r = removeSSEPrefix(r)
	if r == "[DONE]" {
		return text{}
	}
	v, ok := c.p.Parse([]byte(r))
	if !ok || replay.ORJSONRejects([]byte(r)) {
		return text{err: "JSONDecodeError"} // load_json_str: orjson
	}
	return c.extractValue(v)
}

// extractValue is _extract_openai_chat_text_output (l. 542) or
// _extract_openai_completion_text_output (l. 559) of the parsed data, then
// `or ""`.
func (c *Client) extractValue(data *fastjson.Value) text {
	var comp *fastjson.Value // choices[0]; nil for get("choices", [{}])'s {}
	emptyDict := false
	if c.API == Chat && data.Type() != fastjson.TypeObject {
		return text{err: "AttributeError: '" + replay.PyTypeName(data) + "' object has no attribute 'get'"}
	}
	choices := replay.Member(data, "choices")
	switch {
	case data.Type() != fastjson.TypeObject:
		return text{err: "TypeError: data[\"choices\"]"} // completions: data["choices"] on a list, a str, ...
	case choices == nil && c.API == Completions:
		return text{err: "KeyError: 'choices'"}
	case choices == nil:
		emptyDict = true
	default:
		switch choices.Type() {
		case fastjson.TypeArray:
			a := choices.GetArray()
			if len(a) == 0 {
				return text{err: "IndexError: list index out of range"}
			}
			comp = a[0]
		case fastjson.TypeObject:
			return text{err: "KeyError: 0"}
		case fastjson.TypeString:
			if len(choices.GetStringBytes()) == 0 {
				return text{err: "IndexError: string index out of range"}
			}
			return text{err: "AttributeError: 'str' object has no attribute 'get'"} // or str indices: raises either way
		default:
			return text{err: "TypeError: '" + replay.PyTypeName(choices) + "' object is not subscriptable"}
		}
	}
	get := func(obj *fastjson.Value, key string) (*fastjson.Value, string) { // obj.get(key, "")
		if emptyDict && obj == comp {
			return nil, ""
		}
		if obj.Type() != fastjson.TypeObject {
			return nil, "AttributeError: '" + replay.PyTypeName(obj) + "' object has no attribute 'get'"
		}
		return replay.Member(obj, key), ""
	}
	index := func(key string) (*fastjson.Value, string) { // completions[key]
		if emptyDict {
			return nil, "KeyError: '" + key + "'"
		}
		if comp.Type() != fastjson.TypeObject {
			return nil, "TypeError: indices must be integers"
		}
		v := replay.Member(comp, key)
		if v == nil {
			return nil, "KeyError: '" + key + "'"
		}
		return v, ""
	}
	obj := replay.Member(data, "object")
	objStr := ""
	if obj != nil && obj.Type() == fastjson.TypeString {
		objStr = string(obj.GetStringBytes())
	}
	var v *fastjson.Value
	var err string
	switch {
	case !replay.Truthy(obj), c.API == Completions && objStr == "text_completion":
		v, err = get(comp, "text")
	case c.API == Chat && (objStr == "chat.completion" || objStr == "chat.completion.chunk"):
		key := "delta"
		if objStr == "chat.completion" {
			key = "message"
		}
		var sub *fastjson.Value
		if sub, err = index(key); err == "" {
			v, err = get(sub, "content")
		}
	default:
		return text{err: "ValueError: Unknown OpenAI response object type"}
	}
	switch {
	case err != "":
		return text{err: err}
	case !replay.Truthy(v):
		return text{}
	case v.Type() != fastjson.TypeString:
		return text{nonStr: true}
	}
	return text{s: string(v.GetStringBytes())}
}
