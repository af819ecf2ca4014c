package replay

import (
	"bytes"
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
type contentTemplate struct {
	raw            []byte // the template payload
	prefix, suffix int    // lengths of the bytes before and after the text
	v              verdict
	otherContent   int // content bytes outside the text (choices' text members)
}

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
// text.
func (t *contentTemplate) match(payload []byte) (verdict, bool) {
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
