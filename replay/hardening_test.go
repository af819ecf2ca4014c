package replay

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/trace"
)

func oneChunk(body string) *trace.Request {
	status := int32(200)
	return &trace.Request{RequestID: "r", T0Ns: 1, HTTPStatus: &status,
		Chunks: []trace.Chunk{{TNs: 2, Data: []byte(body)}}}
}

// TestDeepNestingStackOverflow is the regression test for a crash: an event
// of 20 million '[' sent fastjson's validator 20 million calls deep and the
// process died of a stack overflow (fatal, not a panic). Nesting beyond
// fastjson.MaxDepth is now malformed before any recursion.
func TestDeepNestingStackOverflow(t *testing.T) {
	for _, framer := range []Framer{AISBench, SSE} {
		body := "data: " + strings.Repeat("[", 20_000_000) + "\n\ndata: [DONE]\n\n"
		res, err := Replay(oneChunk(body), Options{Framer: framer, MaxEventBytes: -1})
		if err != nil {
			t.Fatalf("%s: %v", framer, err)
		}
		if res.Counts[ClassMalformed] != 1 || res.Counts[ClassDone] != 1 {
			t.Errorf("%s: events %v: want one malformed and one done", framer, res.Counts)
		}
		if res.Bytes.Sum() != int64(len(body)) {
			t.Errorf("%s: buckets sum to %d, body is %d", framer, res.Bytes.Sum(), len(body))
		}
	}
}

// TestNestingAtFastjsonDepth pins the boundary: the depth check must not
// change a verdict fastjson's parser would give.
func TestNestingAtFastjsonDepth(t *testing.T) {
	var c classifier
	for _, tc := range []struct {
		depth int
		class Class
	}{
		{299, ClassMalformed}, // a list, not an object
		{300, ClassMalformed},
		{301, ClassMalformed},
	} {
		p := strings.Repeat("[", tc.depth) + strings.Repeat("]", tc.depth)
		if got := c.classify([]byte(p)).class; got != tc.class {
			t.Errorf("depth %d: %s, want %s", tc.depth, got, tc.class)
		}
	}
	// An object holding 298 nested lists parses; one more level is refused.
	obj := func(n int) []byte {
		return []byte(`{"choices":[{"delta":{"content":"x"}}],"x":` + strings.Repeat("[", n) + strings.Repeat("]", n) + "}")
	}
	if v := c.classify(obj(298)); v.class != ClassContent || !v.json {
		t.Errorf("298 nested lists in an object: %s (json %v), want content", v.class, v.json)
	}
	if v := c.classify(obj(300)); v.class != ClassMalformed {
		t.Errorf("300 nested lists in an object: %s, want malformed (fastjson's limit)", v.class)
	}
	// Brackets inside strings do not count.
	s := []byte(`{"choices":[{"delta":{"content":"` + strings.Repeat("[", 1000) + `"}}]}`)
	if v := c.classify(s); v.class != ClassContent {
		t.Errorf("brackets in a string: %s, want content", v.class)
	}
}

// TestMaxEventBytes: an event over the limit is an error that names the
// limit and wraps trace.ErrLimit; at the limit it is classified.
func TestMaxEventBytes(t *testing.T) {
	payload := `{"choices":[{"delta":{"content":"` + strings.Repeat("a", 1000) + `"}}]}`
	body := "data: " + payload + "\n\ndata: [DONE]\n\n"
	for _, framer := range []Framer{AISBench, SSE} {
		res, err := Replay(oneChunk(body), Options{Framer: framer, MaxEventBytes: int64(len(payload))})
		if err != nil || res.Counts[ClassContent] != 1 {
			t.Fatalf("%s at the limit: %v, %v", framer, err, res)
		}
		_, err = Replay(oneChunk(body), Options{Framer: framer, MaxEventBytes: int64(len(payload)) - 1})
		if !errors.Is(err, trace.ErrLimit) || !strings.Contains(err.Error(), "--max-event-bytes") ||
			!strings.Contains(err.Error(), fmt.Sprintf("an event of %d bytes", len(payload))) {
			t.Fatalf("%s over the limit: %v: want an error naming --max-event-bytes", framer, err)
		}
	}
	// The default applies when the option is 0.
	big := "data: " + strings.Repeat("a", int(DefaultMaxEventBytes)+1) + "\n\n"
	if _, err := Replay(oneChunk(big), Options{}); !errors.Is(err, trace.ErrLimit) {
		t.Fatalf("event over the default: %v, want a limit error", err)
	}
	// A Replayer reused after a limit error starts afresh.
	var rp Replayer
	if _, err := rp.Replay(oneChunk(body), Options{MaxEventBytes: 10}); err == nil {
		t.Fatal("want a limit error")
	}
	if _, err := rp.Replay(oneChunk(body), Options{}); err != nil {
		t.Fatalf("after a limit error: %v", err)
	}
}

// TestBlankLineBodyPrealloc is the regression test for an allocation: room
// for one event a "\n\n" was made up front, so a 64 MB body of blank lines
// (no event at all) asked for 32 million events, 3 GB.
func TestBlankLineBodyPrealloc(t *testing.T) {
	body := strings.Repeat("\n", 64<<20)
	res, err := Replay(oneChunk(body), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Events) != 0 || cap(res.Events) > maxEventsPrealloc {
		t.Fatalf("%d events, capacity %d: want none, at most %d allocated", len(res.Events), cap(res.Events), maxEventsPrealloc)
	}
	if res.Bytes[BucketFraming] != int64(len(body)) {
		t.Fatalf("framing %d bytes, want %d", res.Bytes[BucketFraming], len(body))
	}
}

// TestControlCharacterInString is the regression test for what FuzzClassify
// found (testdata/fuzz/FuzzClassify/f6fb87f92a293b59): a raw control
// character inside a JSON string, which Python's json.loads refuses
// ("Invalid control character"), passed fastjson's validator, so the event
// counted as content and got a time point where AISBench's client fails the
// request.
func TestControlCharacterInString(t *testing.T) {
	var c classifier
	for _, p := range []string{
		"{\"\":[{\"\":{\"\":\"\x00\\b0000\"}}]}",
		"{\"choices\":[{\"delta\":{\"content\":\"a\x01b\"}}]}",
		"{\"choices\":[{\"delta\":{\"content\":\"tab\there\"}}]}",
		"{\"choices\":[{\"delta\":{\"content\":\"line\nend\"}}]}",
	} {
		if v := c.classify([]byte(p)); v.class != ClassMalformed || v.json {
			t.Errorf("%q: %s (json %v), want malformed, not JSON (Python's json.loads refuses it)", p, v.class, v.json)
		}
	}
	// Escaped control characters, and control characters between tokens
	// that JSON counts as whitespace, are fine.
	for _, p := range []string{
		`{"choices":[{"delta":{"content":"a\u0001b\tc\n"}}]}`,
		"{\"choices\":\t[{\"delta\":\r\n{\"content\":\"x\"}}]}",
	} {
		if v := c.classify([]byte(p)); v.class != ClassContent || !v.json {
			t.Errorf("%q: %s (json %v), want content", p, v.class, v.json)
		}
	}
	// Through a replay: AISBench's client fails the request on the event.
	res, err := Replay(oneChunk("data: {\"choices\":[{\"delta\":{\"content\":\"a\x01b\"}}]}\n\ndata: [DONE]\n\n"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Success || res.Counts[ClassMalformed] != 1 {
		t.Errorf("success %v, events %v: want a failed request with one malformed event", res.Success, res.Counts)
	}
}
