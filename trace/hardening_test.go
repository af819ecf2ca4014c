package trace

import (
	"errors"
	"strings"
	"testing"
)

// TestJSONLDuplicateKeys: a key given twice would have one of its values
// dropped without a word (fastjson visits both, the last one won): the line
// is an error instead, for request keys, chunk keys and run keys.
func TestJSONLDuplicateKeys(t *testing.T) {
	for _, tc := range []struct{ name, line, want string }{
		{"chunks", `{"request_id": "a", "t0_ns": 1, "chunks": [{"t_ns": 2, "data": "x"}], "chunks": []}`, `line 1, column chunks: the key "chunks" appears twice`},
		{"request_id", `{"request_id": "a", "request_id": "b", "t0_ns": 1}`, `the key "request_id" appears twice`},
		{"extra", `{"request_id": "a", "t0_ns": 1, "x": 1, "x": 2}`, `column x: the key "x" appears twice`},
		{"chunk data", `{"request_id": "a", "t0_ns": 1, "chunks": [{"t_ns": 2, "data": "x", "data": "y"}]}`, `chunk 0 has the key "data" twice`},
		{"chunk t_ns", `{"request_id": "a", "t0_ns": 1, "chunks": [{"t_ns": 2, "t_ns": 3, "data": "x"}]}`, `chunk 0 has the key "t_ns" twice`},
		{"run", "{\"run\": {\"source\": \"a\", \"source\": \"b\"}}\n" + `{"request_id": "a", "t0_ns": 1}`, `column run: the key "source" appears twice`},
	} {
		_, _, err := readAllBytes(t, "dup.jsonl", "", []byte(tc.line+"\n"))
		var te *Error
		if !errors.As(err, &te) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a *trace.Error holding %q", tc.name, err, tc.want)
		}
	}
	// The same key in two chunks, or in a request and its chunk, is fine.
	_, reqs, err := readAllBytes(t, "ok.jsonl", "", []byte(`{"request_id": "a", "t0_ns": 1, "chunks": [{"t_ns": 2, "data": "x"}, {"t_ns": 3, "data": "y"}]}`+"\n"))
	if err != nil || len(reqs) != 1 || len(reqs[0].Chunks) != 2 {
		t.Fatalf("keys repeated across objects: %v, %+v", err, reqs)
	}
}

// TestJSONLDeepNesting: JSON nested deeper than the parser goes is one
// short error naming the depth, not the parser's message of one clause a
// level.
func TestJSONLDeepNesting(t *testing.T) {
	line := `{"request_id": "a", "t0_ns": 1, "x": ` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "}\n"
	_, _, err := readAllBytes(t, "deep.jsonl", "", []byte(line))
	if err == nil || !strings.Contains(err.Error(), "line 1: JSON nested 5001 deep: want at most 300 levels") || len(err.Error()) > 200 {
		t.Fatalf("got %v", err)
	}
	// Brackets in strings are not nesting.
	line = `{"request_id": "a", "t0_ns": 1, "x": "` + strings.Repeat("[", 5000) + `"}` + "\n"
	if _, _, err := readAllBytes(t, "flat.jsonl", "", []byte(line)); err != nil {
		t.Fatalf("brackets in a string: %v", err)
	}
}

// TestCheckerUTF8: request_id and error are utf8 columns; bytes that are not
// UTF-8 would print as U+FFFD and make two ids look alike.
func TestCheckerUTF8(t *testing.T) {
	c := NewChecker("f", DefaultLimits)
	if err := c.Check(&Request{RequestID: "r\xff", T0Ns: 1}, Error{RowGroup: 0, Row: 3}); err == nil ||
		!strings.Contains(err.Error(), `f: row 3, request "r\xff", column request_id: request_id "r\xff" is not valid UTF-8`) {
		t.Errorf("invalid request_id: %v", err)
	}
	bad := "reset\xfe"
	if err := c.Check(&Request{RequestID: "r1", T0Ns: 1, Error: &bad}, Error{RowGroup: 0, Row: 4}); err == nil ||
		!strings.Contains(err.Error(), `column error: error "reset\xfe" is not valid UTF-8`) {
		t.Errorf("invalid error: %v", err)
	}
	if err := c.Check(&Request{RequestID: "r\x00 ünï", T0Ns: 1}, Error{RowGroup: 0, Row: 5}); err != nil {
		t.Errorf("valid UTF-8 with NUL: %v", err)
	}
}
