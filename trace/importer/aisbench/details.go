package aisbench

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/valyala/fastjson"
)

// detailsRecord is the part of a details line the summarizer uses, each
// member as its JSON text (nil when absent).
type detailsRecord struct {
	DataAbbr, ID, UUID, Success, ErrorInfo, TimePoints, InputTokens, OutputTokens, DBName json.RawMessage
}

// member is where a top-level key of a details line goes.
func (d *detailsRecord) member(key []byte) *json.RawMessage {
	switch string(key) {
	case "data_abbr":
		return &d.DataAbbr
	case "id":
		return &d.ID
	case "uuid":
		return &d.UUID
	case "success":
		return &d.Success
	case "error_info":
		return &d.ErrorInfo
	case "time_points":
		return &d.TimePoints
	case "input_tokens":
		return &d.InputTokens
	case "output_tokens":
		return &d.OutputTokens
	case "db_name":
		return &d.DBName
	}
	return nil
}

// maxFastBrackets bounds the brackets of a line read by the fast path:
// fastjson's validator recurses once a level, so a line of a million '['
// would exhaust the stack; encoding/json, which stops at 10,000 levels,
// reads such a line.
const maxFastBrackets = 4096

// decodeDetails reads one details line as Python's json.loads does for the
// summarizer: keys match exactly and a repeated key's last value wins. A line
// that fastjson validates is cut into its top-level members in place, so the
// prompt, most of the line, is scanned once and never decoded (this was half
// of `audit check`'s time with encoding/json); any other line goes through
// encoding/json, for its error.
func decodeDetails(b []byte) (detailsRecord, error) {
	var d detailsRecord
	if bytes.Count(b, []byte("{"))+bytes.Count(b, []byte("[")) <= maxFastBrackets && !controlBeforeEscape(b) && fastjson.ValidateBytes(b) == nil {
		if eachMember(b, func(key, val []byte) {
			if p := d.member(memberName(key)); p != nil {
				*p = val
			}
		}) {
			return d, nil
		}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return d, err
	}
	if m == nil { // null: AISBench's perf_data.get(...) fails on None
		return d, errors.New("null: want a JSON object")
	}
	for k, v := range m {
		if p := d.member([]byte(k)); p != nil {
			*p = v
		}
	}
	return d, nil
}

// controlBeforeEscape reports a line fastjson's validator may wrongly
// accept: it checks a string for bytes below 0x20 only after its last
// escape. A line without a backslash, or without such a byte (json.dumps
// writes none), it checks whole.
func controlBeforeEscape(b []byte) bool {
	if bytes.IndexByte(b, '\\') < 0 {
		return false
	}
	for _, c := range b {
		if c < 0x20 {
			return true
		}
	}
	return false
}

// memberName is a key's text without its quotes, decoded when it has
// escapes.
func memberName(key []byte) []byte {
	if bytes.IndexByte(key, '\\') < 0 {
		return key[1 : len(key)-1]
	}
	var s string
	if json.Unmarshal(key, &s) != nil {
		return nil
	}
	return []byte(s)
}

// dbRef is the value of time_points = {"__db_ref__": ROW}, a valid JSON
// value: false unless it is an object whose only key is __db_ref__ (a
// repeat's last value wins).
func dbRef(raw []byte) (json.RawMessage, bool) {
	var ref json.RawMessage
	other := false
	if !eachMember(raw, func(key, val []byte) {
		if string(memberName(key)) == "__db_ref__" {
			ref = val
		} else {
			other = true
		}
	}) {
		return nil, false
	}
	return ref, ref != nil && !other
}

// eachMember calls fn with every top-level key (quoted) and value (its
// text) of b, a valid JSON document, in order; false when b is not an
// object.
func eachMember(b []byte, fn func(key, val []byte)) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = skipSpace(b, i+1)
	if b[i] == '}' {
		return true
	}
	for {
		end := stringEnd(b, i)
		key := b[i:end]
		i = skipSpace(b, end)
		i = skipSpace(b, i+1) // the ':'
		end = valueEnd(b, i)
		fn(key, b[i:end])
		i = skipSpace(b, end)
		if b[i] == '}' {
			return true
		}
		i = skipSpace(b, i+1) // the ','
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd is the index just past the string that starts at b[i] == '"'.
func stringEnd(b []byte, i int) int {
	j := i + 1
	for {
		q := j + bytes.IndexByte(b[j:], '"')
		n := 0
		for p := q - 1; b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// valueEnd is the index just past the value that starts at b[i].
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; ; {
			switch b[j] {
			case '"':
				j = stringEnd(b, j)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
			j++
		}
	}
	j := i // a number, true, false or null: up to a delimiter
	for j < len(b) {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return j
		}
		j++
	}
	return j
}
