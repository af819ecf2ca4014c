package replay

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// A stream's content chunks mostly differ in the text of delta.content
// only: the id, model, index and the null finish_reason repeat. A
// contentTemplate remembers the last such payload the classifier parsed,
// cut around that text, and classifies a payload that matches it outside
// the text without parsing: the same bytes around a string value are the
// same JSON but for that value, so the same verdict but for the content
// bytes.
//
// Why that is exact (learn checks each condition on the parsed payload):
//
//   - The bytes around the text hold no backslash, so every key there is
//     written as it reads and every '"' there delimits a string. The token
//     "content" found opens a string (after a closing quote a 'c' is not
//     JSON) and, followed by ':', is a key. Found once in the payload, it is
//     the only key of that name: no duplicate shadows it.
//   - The judge read exactly one string delta.content: that key's value,
//     the text, whose length is part of the content bytes.
//   - Both texts are non-empty: the choice has text either way, so class
//     and facts stay, and AISBench concatenates a str either way; only the
//     content bytes change, by the difference of the texts' lengths.
//
// match takes only a text that is the body of a JSON string json.loads
// accepts (no control character, no unescaped quote, valid UTF-8) with no
// \u escape: the payload then parses as the template did, with the same
// structure, and the text's decoded length is its bytes less one for each
// two-byte escape.
//
// Streams with continuous usage also change the numbers of a usage object
// from event to event. When the template's usage is the top-level "usage"
// object and its members prompt_tokens, completion_tokens, total_tokens
// and prompt_tokens_details.cached_tokens are integers after the text, each
// of those keys (and "usage", "prompt_tokens_details") written once in the
// payload, those integers are holes (usageHoles): match takes any integer
// there that json.loads reads as the same kind of token (digits, no leading
// zero, at most 18 so that it is an int64) and sets the verdict's usage
// from it, as usageOf reads it; total_tokens is not read. Every other byte
// is the template's, so the structure, the keys and every other value are.
type contentTemplate struct {
	raw            []byte // the template payload
	prefix, suffix int    // lengths of the bytes before and after the text
	v              verdict
	otherContent   int // content bytes outside the text (choices' text members)
	// holes are the usage integers in the suffix, in order (offsets in raw);
	// none for a template whose suffix must match byte for byte.
	holes []numberHole
}

// numberHole is an integer of the template's usage that payloads may change.
type numberHole struct {
	at, end int // its digits are raw[at:end]
	field   usageField
}

type usageField uint8

const (
	usagePrompt usageField = iota
	usageCompletion
	usageTotal
	usageCached
)

var contentKey = []byte(`"content"`)

// learn makes payload, which the judge gave v after reading
// deltaContentStrings string delta.content values, the last one
// deltaContentLen bytes long, the template if it qualifies.
func (t *contentTemplate) learn(payload []byte, v verdict, deltaContentStrings, deltaContentLen int) {
	if deltaContentStrings != 1 || deltaContentLen == 0 {
		return
	}
	k := bytes.Index(payload, contentKey)
	if k < 0 || bytes.Contains(payload[k+1:], contentKey) || !bytes.HasPrefix(payload[k+len(contentKey):], []byte(`:"`)) {
		return
	}
	start := k + len(`"content":"`)
	end := stringEnd(payload, start)
	if end < 0 || bytes.IndexByte(payload[:start], '\\') >= 0 || bytes.IndexByte(payload[end:], '\\') >= 0 {
		return
	}
	t.raw = append(t.raw[:0], payload...)
	t.prefix, t.suffix = start, len(payload)-end
	if v.usage != nil { // the template keeps its own
		u := *v.usage
		v.usage = &u
	}
	t.v = v
	t.otherContent = v.contentBytes - deltaContentLen
	t.holes = t.holes[:0]
	if v.usage != nil {
		t.holes = usageHoles(t.holes, payload, start, end, v.usage)
	}
}

// usageHoles are the integers of payload's top-level usage object after
// the text (which starts at start and ends with the quote at end) that
// usageOf read into u, when the keys are written once each; else none.
// The bytes outside the text hold no backslash: every '"' there delimits a
// string.
func usageHoles(holes []numberHole, payload []byte, start, end int, u *Usage) []numberHole {
	for _, key := range []string{`"usage"`, `"prompt_tokens"`, `"completion_tokens"`, `"total_tokens"`, `"prompt_tokens_details"`, `"cached_tokens"`} {
		if bytes.Count(payload, []byte(key)) > 1 {
			return holes
		}
	}
	type frame struct {
		object    bool
		expectKey bool
		key       string
	}
	var stack []frame
	for i := 0; i < len(payload); i++ {
		switch ch := payload[i]; {
		case ch == '{' || ch == '[':
			stack = append(stack, frame{object: ch == '{', expectKey: ch == '{'})
		case ch == '}' || ch == ']':
			if len(stack) == 0 {
				return holes[:0]
			}
			stack = stack[:len(stack)-1]
		case ch == ',':
			if n := len(stack); n > 0 && stack[n-1].object {
				stack[n-1].expectKey = true
			}
		case ch == ':':
			if n := len(stack); n > 0 {
				stack[n-1].expectKey = false
			}
		case ch == '"':
			j := end // the text: escapes and all
			if i != start-1 {
				j = bytes.IndexByte(payload[i+1:], '"')
				if j < 0 {
					return holes[:0]
				}
				j += i + 1
			}
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].expectKey {
				stack[n-1].key = string(payload[i+1 : j])
			}
			i = j
		case ch == '-' || ch >= '0' && ch <= '9':
			// A number token whole: a hole only when it is all digits.
			j := i
			for j < len(payload) && bytes.IndexByte([]byte("+-.eE0123456789"), payload[j]) >= 0 {
				j++
			}
			path := make([]string, 0, len(stack))
			for _, f := range stack {
				if !f.object {
					path = nil
					break
				}
				path = append(path, f.key)
			}
			field, ok := usageFieldAt(path)
			if !ok || i < end || bytes.ContainsAny(payload[i:j], "+-.eE") {
				i = j - 1
				continue
			}
			n, err := strconv.ParseInt(string(payload[i:j]), 10, 64)
			var want int64 // what usageOf read there
			switch field {
			case usagePrompt:
				want = u.PromptTokens
			case usageCompletion:
				want = u.CompletionTokens
			case usageTotal:
				want = n // not read
			case usageCached:
				want = -1
				if u.CachedTokens != nil {
					want = *u.CachedTokens
				}
			}
			if err != nil || j-i > maxHoleDigits || n != want {
				return holes[:0] // not the integer usageOf read: no holes
			}
			holes = append(holes, numberHole{at: i, end: j, field: field})
			i = j - 1
		}
	}
	return holes
}

// maxHoleDigits bounds a hole's integer, so that it is an int64.
const maxHoleDigits = 18

// usageFieldAt is the usage member a value at path (the keys from the
// top-level object down, nil inside an array) is: the top-level "usage"
// member's prompt_tokens, completion_tokens or total_tokens, or its
// prompt_tokens_details' cached_tokens.
func usageFieldAt(path []string) (usageField, bool) {
	switch {
	case len(path) == 2 && path[0] == "usage":
		switch path[1] {
		case "prompt_tokens":
			return usagePrompt, true
		case "completion_tokens":
			return usageCompletion, true
		case "total_tokens":
			return usageTotal, true
		}
	case len(path) == 3 && path[0] == "usage" && path[1] == "prompt_tokens_details" && path[2] == "cached_tokens":
		return usageCached, true
	}
	return 0, false
}

// stringEnd is the offset of the quote closing the JSON string whose body
// starts at start, or -1.
func stringEnd(b []byte, start int) int {
	for i := start; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// match classifies payload when it is the template with another non-empty
// text (and, where the template has holes, other usage integers).
func (t *contentTemplate) match(payload []byte) (verdict, bool) {
	if len(t.holes) > 0 {
		return t.matchHoles(payload)
	}
	if t.raw == nil || len(payload) <= t.prefix+t.suffix ||
		!bytes.Equal(payload[:t.prefix], t.raw[:t.prefix]) ||
		!bytes.Equal(payload[len(payload)-t.suffix:], t.raw[len(t.raw)-t.suffix:]) {
		return verdict{}, false
	}
	n, ok := simpleStringLen(payload[t.prefix : len(payload)-t.suffix])
	if !ok {
		return verdict{}, false
	}
	v := t.v
	v.contentBytes = t.otherContent + n
	if v.usage != nil { // each event its own Usage, as classify gives
		u := *v.usage
		v.usage = &u
	}
	return v, true
}

// simpleStringLen is the decoded length of s when s is the body of a JSON
// string that Python's json.loads accepts, valid UTF-8 with no \u escape.
func simpleStringLen(s []byte) (int, bool) {
	n := len(s)
	ascii := true
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch >= 0x80:
			ascii = false
		case ch < 0x20 || ch == '"':
			return 0, false
		case ch == '\\':
			if i+1 == len(s) {
				return 0, false
			}
			switch s[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			default:
				return 0, false
			}
			i++
			n--
		}
	}
	return n, ascii || utf8.Valid(s) // most texts are ASCII, and short: the call would cost more than the check
}

// matchHoles is match for a template with holes: the text ends at its
// closing quote, then the suffix's bytes and integers follow in turn.
func (t *contentTemplate) matchHoles(payload []byte) (verdict, bool) {
	if len(payload) <= t.prefix+t.suffix-t.holeDigits() || !bytes.Equal(payload[:t.prefix], t.raw[:t.prefix]) {
		return verdict{}, false
	}
	end := stringEnd(payload, t.prefix)
	if end <= t.prefix {
		return verdict{}, false
	}
	n, ok := simpleStringLen(payload[t.prefix:end])
	if !ok {
		return verdict{}, false
	}
	u := *t.v.usage
	at, from := end, len(t.raw)-t.suffix // payload and template positions
	for _, h := range t.holes {
		lit := t.raw[from:h.at]
		if !bytes.HasPrefix(payload[at:], lit) {
			return verdict{}, false
		}
		at += len(lit)
		j := at
		for j < len(payload) && payload[j] >= '0' && payload[j] <= '9' {
			j++
		}
		digits := payload[at:j]
		if len(digits) == 0 || len(digits) > maxHoleDigits || len(digits) > 1 && digits[0] == '0' {
			return verdict{}, false
		}
		var v int64
		for _, d := range digits {
			v = 10*v + int64(d-'0')
		}
		switch h.field {
		case usagePrompt:
			u.PromptTokens = v
		case usageCompletion:
			u.CompletionTokens = v
		case usageCached:
			u.CachedTokens = &v
		}
		at, from = j, h.end
	}
	if !bytes.Equal(payload[at:], t.raw[from:]) {
		return verdict{}, false
	}
	out := t.v
	out.contentBytes = t.otherContent + n
	out.usage = &u
	return out, true
}

// holeDigits is the digits of the template's holes, all together.
func (t *contentTemplate) holeDigits() int {
	n := 0
	for _, h := range t.holes {
		n += h.end - h.at
	}
	return n
}
