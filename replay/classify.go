package replay

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/valyala/fastjson"
)

// The classifier decides an event's class from its data (the payload left
// after framing) and, on the same parse, what AISBench's
// VLLMCustomAPIChat.parse_stream_response would do with it.
//
// JSON is accepted as Python's json.loads accepts it: valid UTF-8 first (the
// client decodes before parsing), then JSON with NaN, Infinity and -Infinity
// allowed, the last of duplicate keys winning. Nesting deeper than fastjson's
// 300 levels is malformed here (Python allows about 1000).
//
// For a JSON object, the class is the first that applies:
//
//	error          an "error" member that is an object or a non-empty string
//	content        a choice with non-empty string delta.content or text
//	reasoning      a choice with non-empty string delta.reasoning_content or delta.reasoning
//	tool_call      a choice with a non-empty delta.tool_calls array
//	finish         a choice with a non-empty string finish_reason
//	role           a choice with a non-empty string delta.role
//	usage_only     choices absent, null or [] and usage truthy (Python's truth)
//	metadata_only  anything else
//
// So text beats role and finish (a role with text, TGI's final text with
// finish_reason "length" are content), and text in any choice counts.
type classifier struct {
	p       fastjson.Parser
	fixed   []byte // payload with Python's NaN/Infinity literals replaced
	numText []byte
	// maxBytes bounds the payloads classified (0: no bound); the first
	// payload over it is recorded in over and classified malformed, and
	// Replay turns it into an error.
	maxBytes int64
	over     int64
	memo     *VerdictMemo // Options.Memo, nil for none
	template contentTemplate
	// The string delta.content values the judge read in the payload last
	// judged, and the length of the last: what the template needs to know.
	deltaContentStrings, deltaContentLen int
}

// verdict is what the classifier says about one payload.
type verdict struct {
	class          Class
	facts          Facts
	usage          *Usage // truthy usage object
	logprobs       int
	contentBytes   int
	reasoningBytes int
	// json is true when Python's json.loads accepts the payload.
	json bool
	// aisErr is the exception parse_stream_response would raise ("" if none);
	// aisUsage is true when it would then read the usage.
	aisErr   string
	aisUsage bool
}

var doneMarker = []byte("[DONE]")

// isDone reports whether an SSE data payload is the [DONE] marker.
func isDone(payload []byte) bool {
	return bytes.Equal(trimJSONSpace(payload), doneMarker)
}

func (c *classifier) classify(payload []byte) verdict {
	if c.maxBytes > 0 && int64(len(payload)) > c.maxBytes {
		return c.classifyBytes(payload) // a payload over the limit is recorded in over
	}
	if v, ok := c.template.match(payload); ok {
		return v
	}
	if c.memo == nil {
		return c.classifyBytes(payload)
	}
	if v, ok := c.memo.get(payload); ok {
		return v
	}
	v := c.classifyBytes(payload)
	c.memo.put(payload, v)
	return v
}

func (c *classifier) classifyBytes(payload []byte) verdict {
	if isDone(payload) {
		return verdict{class: ClassDone}
	}
	if c.maxBytes > 0 && int64(len(payload)) > c.maxBytes {
		if c.over == 0 {
			c.over = int64(len(payload))
		}
		return verdict{class: ClassMalformed}
	}
	v, ok := c.parse(payload)
	if !ok {
		return verdict{class: ClassMalformed}
	}
	if v.Type() != fastjson.TypeObject {
		return verdict{class: ClassMalformed, json: true,
			aisErr: "AttributeError: '" + pyTypeName(v) + "' object has no attribute 'get'"}
	}
	c.deltaContentStrings, c.deltaContentLen = 0, 0
	out := c.judge(v)
	c.template.learn(payload, out, c.deltaContentStrings, c.deltaContentLen)
	return out
}

// parse parses payload as Python's json.loads would accept it.
func (c *classifier) parse(payload []byte) (*fastjson.Value, bool) {
	if !utf8.Valid(payload) {
		return nil, false
	}
	// fastjson's validator recurses once a nesting level without a bound:
	// a payload of millions of '[' overflows the goroutine stack, a crash
	// no recover catches. Its parser refuses more than MaxDepth levels
	// anyway, so such payloads are malformed before any recursion. It also
	// takes raw control characters in strings, which Python refuses.
	if pythonRejects(payload, fastjson.MaxDepth) {
		return nil, false
	}
	src := payload
	if fastjson.ValidateBytes(src) != nil {
		var ok bool
		if c.fixed, ok = fixPythonLiterals(c.fixed[:0], payload); !ok {
			return nil, false
		}
		src = c.fixed
		if fastjson.ValidateBytes(src) != nil {
			return nil, false
		}
	}
	v, err := c.p.ParseBytes(src)
	if err != nil {
		return nil, false
	}
	return v, true
}

// pythonRejects reports what Python's json.loads refuses and fastjson does
// not see: more than limit brackets ('[' or '{' outside strings) open at
// once, and a control character (below 0x20) inside a string, which
// json.loads refuses in its default strict mode while fastjson's validator
// lets it through. For valid JSON the bracket count is its nesting depth;
// fastjson's parser refuses a value nested deeper than fastjson.MaxDepth,
// and its validator recurses once a level without a bound, so such a
// payload is malformed before any recursion.
func pythonRejects(b []byte, limit int) bool {
	depth, inString := 0, false
	for i := 0; i < len(b); i++ {
		switch ch := b[i]; {
		case inString:
			switch {
			case ch < 0x20:
				return true
			case ch == '\\':
				i++
			case ch == '"':
				inString = false
			}
		case ch == '"':
			inString = true
		case ch == '[' || ch == '{':
			depth++
			if depth > limit {
				return true
			}
		case ch == ']' || ch == '}':
			depth--
		}
	}
	return false
}

// fixPythonLiterals replaces NaN, Infinity and -Infinity outside strings by
// 1.5 and -1.5 (truthy, not integers, like Python's values). It reports
// whether it replaced anything.
func fixPythonLiterals(dst, src []byte) ([]byte, bool) {
	inString, replaced := false, false
	for i := 0; i < len(src); i++ {
		ch := src[i]
		if inString {
			dst = append(dst, ch)
			switch ch {
			case '\\':
				if i+1 < len(src) {
					i++
					dst = append(dst, src[i])
				}
			case '"':
				inString = false
			}
			continue
		}
		switch {
		case ch == '"':
			inString = true
		case ch == 'N' && bytes.HasPrefix(src[i:], []byte("NaN")) && literalAlone(src, i, i+len("NaN")):
			dst = append(dst, "1.5"...)
			i += len("NaN") - 1
			replaced = true
			continue
		case ch == 'I' && bytes.HasPrefix(src[i:], []byte("Infinity")) &&
			(literalAlone(src, i, i+len("Infinity")) || i > 0 && src[i-1] == '-' && literalAlone(src, i-1, i+len("Infinity"))):
			dst = append(dst, "1.5"...)
			i += len("Infinity") - 1
			replaced = true
			continue
		}
		dst = append(dst, ch)
	}
	return dst, replaced
}

// literalAlone reports whether src[i:j] stands alone as a JSON value, as
// json.loads reads NaN, Infinity and -Infinity: after the start, a bracket,
// a comma, a colon or whitespace, and before the end, a bracket, a comma or
// whitespace. Glued to anything else ("1NaN", "Infinity0", "NaNe5") it is
// a JSONDecodeError, which a number in its place would hide.
func literalAlone(src []byte, i, j int) bool {
	if i > 0 && bytes.IndexByte([]byte("[{,: \t\r\n"), src[i-1]) < 0 {
		return false
	}
	return j == len(src) || bytes.IndexByte([]byte("]}, \t\r\n"), src[j]) >= 0
}

// judge classifies a parsed JSON object and checks it against AISBench's
// parse_stream_response.
func (c *classifier) judge(root *fastjson.Value) verdict {
	var choices, usage, errv *fastjson.Value
	root.GetObject().Visit(func(k []byte, v *fastjson.Value) {
		switch string(k) {
		case "choices":
			choices = v
		case "usage":
			usage = v
		case "error":
			errv = v
		}
	})
	var out verdict
	out.json = true
	var hasContent, hasReasoning, hasToolCall, hasFinish, hasRole bool
	choicesEmpty := choices == nil || choices.Type() == fastjson.TypeNull

	if choices != nil {
		switch choices.Type() {
		case fastjson.TypeArray:
			items := choices.GetArray()
			choicesEmpty = len(items) == 0
			for _, el := range items {
				f := c.choice(el)
				hasContent = hasContent || f.content
				hasReasoning = hasReasoning || f.reasoning
				hasToolCall = hasToolCall || f.toolCall
				hasFinish = hasFinish || f.finish
				hasRole = hasRole || f.role
				out.contentBytes += f.contentBytes
				out.reasoningBytes += f.reasoningBytes
				out.logprobs += f.logprobs
				if out.aisErr == "" {
					out.aisErr = f.aisErr
				}
			}
		case fastjson.TypeString, fastjson.TypeObject:
			// Iterating gives str items (characters or keys).
			if c.truthy(choices) {
				out.aisErr = strIndexError
			}
		default:
			out.aisErr = "TypeError: '" + pyTypeName(choices) + "' object is not iterable"
		}
	}

	usageTruthy := usage != nil && c.truthy(usage)
	if usageTruthy {
		if usage.Type() == fastjson.TypeObject {
			out.usage = usageOf(usage)
			if out.aisErr == "" {
				out.aisUsage = true
			}
		} else if out.aisErr == "" {
			out.aisErr = "AttributeError: '" + pyTypeName(usage) + "' object has no attribute 'get'"
		}
	}

	hasError := errv != nil && (errv.Type() == fastjson.TypeObject || errv.Type() == fastjson.TypeString && len(errv.GetStringBytes()) > 0)
	for _, f := range [...]struct {
		has  bool
		fact Facts
	}{{hasContent, HasText}, {hasReasoning, HasReasoning}, {hasToolCall, HasToolCall}, {hasFinish, HasFinish},
		{hasRole, HasRole}, {usageTruthy, HasUsage}, {hasError, HasError}} {
		if f.has {
			out.facts |= f.fact
		}
	}
	switch {
	case hasError:
		out.class = ClassError
	case hasContent:
		out.class = ClassContent
	case hasReasoning:
		out.class = ClassReasoning
	case hasToolCall:
		out.class = ClassToolCall
	case hasFinish:
		out.class = ClassFinish
	case hasRole:
		out.class = ClassRole
	case choicesEmpty && usageTruthy:
		out.class = ClassUsageOnly
	default:
		out.class = ClassMetadataOnly
	}
	return out
}

// choiceFacts is what one element of choices holds.
type choiceFacts struct {
	content, reasoning, toolCall, finish, role bool
	contentBytes, reasoningBytes, logprobs     int
	aisErr                                     string
}

func (c *classifier) choice(el *fastjson.Value) choiceFacts {
	var f choiceFacts
	if el.Type() != fastjson.TypeObject {
		f.aisErr = subscriptError(el)
		return f
	}
	var delta, text, finish, logprobs *fastjson.Value
	el.GetObject().Visit(func(k []byte, v *fastjson.Value) {
		switch string(k) {
		case "delta":
			delta = v
		case "text":
			text = v
		case "finish_reason":
			finish = v
		case "logprobs":
			logprobs = v
		}
	})
	if n := nonEmptyString(text); n > 0 {
		f.content = true
		f.contentBytes += n
	}
	f.finish = nonEmptyString(finish) > 0
	if logprobs != nil && logprobs.Type() == fastjson.TypeObject {
		var lpContent, lpTokens *fastjson.Value
		logprobs.GetObject().Visit(func(k []byte, v *fastjson.Value) {
			switch string(k) {
			case "content":
				lpContent = v
			case "tokens":
				lpTokens = v
			}
		})
		if lpContent != nil && lpContent.Type() == fastjson.TypeArray {
			f.logprobs = len(lpContent.GetArray())
		} else if lpTokens != nil && lpTokens.Type() == fastjson.TypeArray {
			f.logprobs = len(lpTokens.GetArray())
		}
	}

	switch {
	case delta == nil:
		f.aisErr = "KeyError: 'delta'"
		return f
	case delta.Type() != fastjson.TypeObject:
		f.aisErr = "AttributeError: '" + pyTypeName(delta) + "' object has no attribute 'get'"
		return f
	}
	var content, reasoningContent, reasoning, toolCalls, role *fastjson.Value
	delta.GetObject().Visit(func(k []byte, v *fastjson.Value) {
		switch string(k) {
		case "content":
			content = v
		case "reasoning_content":
			reasoningContent = v
		case "reasoning":
			reasoning = v
		case "tool_calls":
			toolCalls = v
		case "role":
			role = v
		}
	})
	if content != nil && content.Type() == fastjson.TypeString {
		c.deltaContentStrings++
		c.deltaContentLen = len(content.GetStringBytes())
	}
	if n := nonEmptyString(content); n > 0 {
		f.content = true
		f.contentBytes += n
	}
	if n := nonEmptyString(reasoningContent); n > 0 {
		f.reasoning, f.reasoningBytes = true, n
	} else if n := nonEmptyString(reasoning); n > 0 {
		f.reasoning, f.reasoningBytes = true, n
	}
	f.toolCall = toolCalls != nil && toolCalls.Type() == fastjson.TypeArray && len(toolCalls.GetArray()) > 0
	f.role = nonEmptyString(role) > 0

	// AISBench: `output.content += delta["content"]` when truthy, the same
	// for `reasoning_content or reasoning`: a str is needed.
	if content != nil && c.truthy(content) && content.Type() != fastjson.TypeString {
		f.aisErr = `TypeError: can only concatenate str (not "` + pyTypeName(content) + `") to str`
		return f
	}
	r := reasoningContent
	if r == nil || !c.truthy(r) {
		r = reasoning
	}
	if r != nil && c.truthy(r) && r.Type() != fastjson.TypeString {
		f.aisErr = `TypeError: can only concatenate str (not "` + pyTypeName(r) + `") to str`
	}
	return f
}

// nonEmptyString is the unescaped length of v when it is a string, else 0.
func nonEmptyString(v *fastjson.Value) int {
	if v == nil || v.Type() != fastjson.TypeString {
		return 0
	}
	return len(v.GetStringBytes())
}

// truthy is Python's truth value of a JSON value as json.loads builds it.
func (c *classifier) truthy(v *fastjson.Value) bool {
	switch v.Type() {
	case fastjson.TypeTrue:
		return true
	case fastjson.TypeString:
		return len(v.GetStringBytes()) > 0
	case fastjson.TypeArray:
		return len(v.GetArray()) > 0
	case fastjson.TypeObject:
		return v.GetObject().Len() > 0
	case fastjson.TypeNumber:
		c.numText = v.MarshalTo(c.numText[:0])
		return numberTruthy(c.numText)
	}
	return false
}

// numberTruthy is Python's truth of a JSON number: an int is true unless all
// its digits are 0; a float unless it parses (or underflows) to 0.
func numberTruthy(s []byte) bool {
	if bytes.ContainsAny(s, ".eE") {
		f, err := strconv.ParseFloat(string(s), 64)
		return err != nil || f != 0 // a range error is ±Inf: true
	}
	for _, ch := range s {
		if ch >= '1' && ch <= '9' {
			return true
		}
	}
	return false
}

// usageOf reads a usage object.
func usageOf(v *fastjson.Value) *Usage {
	u := new(Usage)
	v.GetObject().Visit(func(k []byte, x *fastjson.Value) {
		switch string(k) {
		case "prompt_tokens":
			u.PromptTokens = intOf(x)
		case "completion_tokens":
			u.CompletionTokens = intOf(x)
		case "prompt_tokens_details":
			u.CachedTokens = nil
			if x.Type() == fastjson.TypeObject {
				if ct := lastMember(x, "cached_tokens"); ct != nil && isInt(ct) {
					n := intOf(ct)
					u.CachedTokens = &n
				}
			}
		}
	})
	return u
}

func lastMember(v *fastjson.Value, key string) *fastjson.Value {
	var last *fastjson.Value
	v.GetObject().Visit(func(k []byte, x *fastjson.Value) {
		if string(k) == key {
			last = x
		}
	})
	return last
}

func isInt(v *fastjson.Value) bool {
	_, err := v.Int64()
	return err == nil
}

// intOf is v as an int64 when it is an integer, else 0.
func intOf(v *fastjson.Value) int64 {
	n, err := v.Int64()
	if err != nil {
		return 0
	}
	return n
}

// strIndexError is Python 3.11's error for str["delta"].
const strIndexError = "TypeError: string indices must be integers, not 'str'"

// subscriptError is the error Python raises for v["delta"] when v is not a
// dict.
func subscriptError(v *fastjson.Value) string {
	switch v.Type() {
	case fastjson.TypeString:
		return strIndexError
	case fastjson.TypeArray:
		return "TypeError: list indices must be integers or slices, not str"
	}
	return "TypeError: '" + pyTypeName(v) + "' object is not subscriptable"
}

// pyTypeName is the Python type name json.loads gives v.
func pyTypeName(v *fastjson.Value) string {
	switch v.Type() {
	case fastjson.TypeNull:
		return "NoneType"
	case fastjson.TypeTrue, fastjson.TypeFalse:
		return "bool"
	case fastjson.TypeString:
		return "str"
	case fastjson.TypeArray:
		return "list"
	case fastjson.TypeObject:
		return "dict"
	case fastjson.TypeNumber:
		var buf [32]byte
		if bytes.ContainsAny(v.MarshalTo(buf[:0]), ".eE") {
			return "float"
		}
		return "int"
	}
	return "object"
}

// trimJSONSpace trims JSON whitespace from both ends.
func trimJSONSpace(b []byte) []byte {
	return bytes.Trim(b, " \t\r\n")
}
