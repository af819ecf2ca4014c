package record

import (
	"bytes"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/trace"
	_ "github.com/sseaudit/sseaudit/trace/arrowfile"
	_ "github.com/sseaudit/sseaudit/trace/parquetfile"
	"github.com/sseaudit/sseaudit/tracegen"
)

// TestSpecViewOnFramingCases: over replay's 36 framing cases and its random
// mix, the constructs AISBench's client mishandles are found exactly in the
// cases made of them, and what the spec client sees is recorded.
func TestSpecViewOnFramingCases(t *testing.T) {
	want := map[string]SpecView{
		"comment_inside_data_block": {CommentInBlock: 1},
		"event_field_lines":         {FieldLines: 2},
		"multiline_data":            {MultiLineData: 1},
	}
	mixed := map[bool]int{}
	for _, path := range []string{"../replay/testdata/cases.jsonl", "../replay/testdata/random_mix.jsonl"} {
		r, err := trace.Open(path, trace.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var ais, sse replay.Replayer
		seen := 0
		for r.Scan() {
			req := r.Request()
			a, err := ais.Replay(req, replay.Options{Framer: replay.AISBench})
			if err != nil {
				t.Fatal(err)
			}
			s, err := sse.Replay(req, replay.Options{Framer: replay.SSE})
			if err != nil {
				t.Fatal(err)
			}
			rec := FromReplays(req, a, s)
			v := rec.Spec
			if v == nil {
				t.Fatalf("%s: no spec view", req.RequestID)
			}
			if path == "../replay/testdata/random_mix.jsonl" {
				// A mix of every framing: what AISBench does with each construct.
				if v.FieldLines+v.MultiLineData > 0 && a.Success {
					t.Errorf("%s: AISBench cannot parse %+v, yet succeeds", req.RequestID, *v)
				}
				if v.CommentInBlock > 0 && a.Success && v.Events <= len(a.TimePointsS)-1 {
					t.Errorf("%s: a comment hides data, yet AISBench records %d events, the spec client %d", req.RequestID, len(a.TimePointsS)-1, v.Events)
				}
				mixed[v.FieldLines+v.MultiLineData > 0]++
				continue
			}
			w := want[req.RequestID]
			if v.CommentInBlock != w.CommentInBlock || v.FieldLines != w.FieldLines || v.MultiLineData != w.MultiLineData {
				t.Errorf("%s %s: constructs %+v, want %+v", path, req.RequestID, *v, w)
			}
			if _, ok := want[req.RequestID]; ok {
				seen++
				if !v.Success || v.Events < 2 || v.LastNs < v.FirstNs {
					t.Errorf("%s: the spec client should read it: %+v", req.RequestID, *v)
				}
			}
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		r.Close()
		if path == "../replay/testdata/cases.jsonl" && seen != len(want) {
			t.Errorf("saw %d of the %d framing cases", seen, len(want))
		}
	}
	if mixed[true] == 0 || mixed[false] == 0 {
		t.Errorf("the random mix exercises too little: %v", mixed)
	}
}

// bodyRanges gives the joined body's bytes for every range, chunks empty,
// short and long.
func TestBodyRanges(t *testing.T) {
	body := []byte("data: {\"a\":1}\n\n: comment\ndata: x\r\n\r\nevent: e\ndata: [DONE]\n\n")
	for _, cuts := range [][]int{{}, {0}, {1, 1, 2}, {5, 10, 10, 30}, {len(body)}} {
		var chunks []trace.Chunk
		prev := 0
		for _, c := range append(cuts, len(body)) {
			chunks = append(chunks, trace.Chunk{Data: body[prev:c]})
			prev = c
		}
		b := newBodyRanges(chunks)
		if b.len() != int64(len(body)) {
			t.Fatalf("cuts %v: length %d, want %d", cuts, b.len(), len(body))
		}
		for start := range len(body) + 1 {
			for end := start; end <= len(body); end++ {
				if got := b.bytes(int64(start), int64(end)); !bytes.Equal(got, body[start:end]) {
					t.Fatalf("cuts %v: [%d:%d] = %q, want %q", cuts, start, end, got, body[start:end])
				}
			}
		}
	}
}

// shortcutCheck replays requests as audit report does and compares the
// record without the sse framer's replay, wherever the aisbench replay
// allows it, with the record from both replays.
type shortcutCheck struct {
	ais, sse replay.Replayer
	memo     replay.VerdictMemo
	opts     replay.Options // MaxEventBytes for both framers
	// requests counts the requests replayed, shortcuts those recorded
	// without the sse framer.
	requests, shortcuts int
}

func (c *shortcutCheck) check(t testing.TB, req *trace.Request) {
	t.Helper()
	c.memo.Reset()
	aopts, sopts := c.opts, c.opts
	aopts.Framer, aopts.Memo = replay.AISBench, &c.memo
	sopts.Framer, sopts.Memo = replay.SSE, &c.memo
	a, err := c.ais.Replay(req, aopts)
	if err != nil {
		return // no record either way
	}
	c.requests++
	short, ok := WithoutSpecReplay(a)
	if !ok {
		return
	}
	c.shortcuts++
	s, err := c.sse.Replay(req, sopts)
	if err != nil {
		t.Fatalf("%s: the shortcut skips an sse replay that fails: %v\nbody %q", req.RequestID, err, bodyOf(req))
	}
	if full := FromReplays(req, a, s); !reflect.DeepEqual(short, full) {
		t.Fatalf("%s: without the sse replay\n %s\nwith it\n %s\nbody %q", req.RequestID, recordString(short), recordString(full), bodyOf(req))
	}
}

func bodyOf(req *trace.Request) []byte {
	var b []byte
	for _, c := range req.Chunks {
		b = append(b, c.Data...)
	}
	return b
}

func recordString(r Request) string {
	s := fmt.Sprintf("%+v", r)
	if r.Spec != nil {
		s += fmt.Sprintf(" spec %+v", *r.Spec)
	}
	return s
}

// TestRecordWithoutSpecReplay: on every trace of the repository and of every
// generator profile, the record made without the sse framer's replay, where
// the aisbench replay allows it, is the record made with it; and on a plain
// chat trace the shortcut is taken for every request.
func TestRecordWithoutSpecReplay(t *testing.T) {
	var paths []string
	for _, pattern := range []string{
		"../testdata/traces/*.*", "../testdata/traces/external/*.*", "../testdata/traces/findings/*.jsonl",
		"../replay/testdata/*.jsonl", "../testdata/hostile/*.*",
	} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, m...)
	}
	replayed := 0
	for _, path := range paths {
		if _, err := trace.LookupFormat("", path); err != nil {
			continue // a script or a table of cases
		}
		r, err := trace.Open(path, trace.OpenOptions{})
		if err != nil {
			continue // a hostile input the readers refuse
		}
		var c shortcutCheck
		for r.Scan() {
			c.check(t, r.Request())
		}
		r.Close()
		if c.requests > 0 {
			replayed++
		}
		t.Logf("%s: %d of %d requests without the sse replay", path, c.shortcuts, c.requests)
	}
	if replayed < 30 {
		t.Errorf("%d trace files replayed, want the repository's (30 or more)", replayed)
	}
	for _, api := range []string{"chat", "completions"} {
		for _, p := range tracegen.Profiles() {
			var c shortcutCheck
			o := tracegen.Options{Profile: p.Name, API: api, Requests: 200, Concurrency: 8, Seed: 7, OutputTokens: 16, InputTokens: 8}
			if _, err := tracegen.Generate(o, writerFunc(func(req *trace.Request) error {
				c.check(t, req)
				return nil
			})); err != nil {
				t.Fatal(err)
			}
			t.Logf("tracegen %s %s: %d of %d requests without the sse replay", api, p.Name, c.shortcuts, c.requests)
			if p.Name == "chat" && c.shortcuts != c.requests {
				t.Errorf("tracegen %s chat: %d of %d requests without the sse replay, want all", api, c.shortcuts, c.requests)
			}
		}
	}
}

type writerFunc func(*trace.Request) error

func (f writerFunc) Write(req *trace.Request) error { return f(req) }

// fuzzFragments are the pieces FuzzRecordWithoutSpecReplay builds bodies
// from: whole events, the framing constructs one at a time, and the
// whitespace Python's strip and the sse framer treat differently.
var fuzzFragments = []string{
	"data: " + `{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}` + "\n\n",
	"data: " + `{"choices":[{"index":0,"delta":{"content":"hi"}}]}` + "\n\n",
	"data: " + `{"choices":[{"index":0,"delta":{"content":"a\"b"}}]}` + "\n\n",
	"data: " + `{"choices":[{"index":0,"delta":{"reasoning_content":"r"}}]}` + "\n\n",
	"data: " + `{"choices":[{"index":0,"text":"t"}]}` + "\n\n",
	"data: " + `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n",
	"data: " + `{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2}}` + "\n\n",
	"data: " + `{"choices":[{"delta":{"content":"x"}}],"usage":{"completion_tokens":3}}` + "\n\n",
	"data: " + `{"error":{"message":"overloaded"}}` + "\n\n",
	"data: [DONE]\n\n",
	`{"choices":[{"index":0,"delta":{"content":"hi"}}]}`,
	`{"choices":`, `[]}`, "[DONE]", "{", "\xff",
	"data: ", "data:", "data:  ", "data", "\n", "\n\n", "\r", "\r\n", "\r\n\r\n", "\r\r",
	": ping\n", ":", "event: message\n", "event: error\n", "id: 1\n", "retry: 5\n", "foo: bar\n",
	"x\n", " \n", "data: [DONE]\n", "data: x\n",
	" ", "\t", "\x0b", "\x0c", "\x1c", "\xc2\xa0", "\xe3\x80\x80", "\xef\xbb\xbf",
}

// fuzzRequest builds a request: its body from recipe (each byte a fragment,
// or the next byte itself), its reads from reads (one byte a read, cycling:
// its size, and the gap before it, 0 for the same time), and how it ended
// from outcome (bits 0-1: a 200, a 500, a transport error after a 200, no
// response; bit 2: end_ns set).
func fuzzRequest(recipe, reads []byte, outcome uint8) *trace.Request {
	var body []byte
	for i := 0; i < len(recipe); i++ {
		k := int(recipe[i]) % (len(fuzzFragments) + 1)
		switch {
		case k < len(fuzzFragments):
			body = append(body, fuzzFragments[k]...)
		case i+1 < len(recipe):
			i++
			body = append(body, recipe[i])
		}
	}
	req := &trace.Request{RequestID: "fuzz", T0Ns: 1_000_000_000, Chunks: []trace.Chunk{}}
	status := int32(200)
	switch outcome % 4 {
	case 1:
		status = 500
	case 2:
		msg := "connection reset"
		req.Error = &msg
	case 3:
		msg := "connection refused"
		req.Error = &msg
		req.Chunks = nil
		body = nil
	}
	if outcome%4 != 3 {
		req.HTTPStatus = &status
	}
	t := req.T0Ns
	for i, k := 0, 0; i < len(body); k++ {
		n := len(body) - i
		if len(reads) > 0 {
			r := reads[k%len(reads)]
			n = min(n, int(r%16)+1)
			t += int64(r/16) * 1_000_000 // 0: the same time as the read before
		}
		req.Chunks = append(req.Chunks, trace.Chunk{TNs: t, Data: body[i : i+n]})
		i += n
	}
	if outcome&4 != 0 {
		end := t + 7_000_000
		req.EndNs = &end
	}
	return req
}

// recipeOf is the recipe of the fragments given.
func recipeOf(fragments ...string) []byte {
	var recipe []byte
	for _, frag := range fragments {
		k := slices.Index(fuzzFragments, frag)
		if k < 0 {
			panic("no fragment " + strconv.Quote(frag))
		}
		recipe = append(recipe, byte(k))
	}
	return recipe
}

// FuzzRecordWithoutSpecReplay: whenever the shortcut is taken, the record is
// the one the sse framer's replay gives, and that replay does not fail.
func FuzzRecordWithoutSpecReplay(f *testing.F) {
	role, content, usage, done := fuzzFragments[0], fuzzFragments[1], fuzzFragments[6], fuzzFragments[9]
	f.Add(recipeOf(role, content, content, fuzzFragments[2], usage, done), []byte{0x13, 0x2f, 0x01}, uint8(0))
	f.Add(recipeOf(role, content, "\n\n", content, done, content), []byte{0x40, 0x05}, uint8(4))
	f.Add(recipeOf("data: ", "{", "\n", "\n", "data: ", "\xff", "\n", "\n"), []byte{0x11}, uint8(2))
	f.Add(recipeOf(content, ":", content, "event: error\n", content, "data", "[DONE]", "\n", "\n", done), []byte{0x33, 0x02}, uint8(0))
	f.Add(recipeOf("data: ", "\x0c", "[DONE]", "\n", "\n", "data: ", `{"choices":[{"index":0,"delta":{"content":"hi"}}]}`, "\xe3\x80\x80", "\n", "\n"), []byte(nil), uint8(1))
	f.Add(recipeOf(content, content, "\r", content, "\r\n", content, "\r\n\r\n", content, "\r\r"), []byte{0x21, 0x07}, uint8(6))
	f.Add(recipeOf(role, content, "data:", `{"choices":[{"index":0,"delta":{"content":"hi"}}]}`, "\n", done, content), []byte{0x10}, uint8(3))
	f.Add(recipeOf(content, "data: [DONE]\n", "x\n", content), []byte(nil), uint8(0))
	// [DONE] behind whitespace the sse framer keeps: no [DONE] for it.
	for _, ws := range []string{"\x0b", "\x0c", "\x1c", "\xc2\xa0", "\xe3\x80\x80", " ", "\t"} {
		f.Add(recipeOf(content, "data: ", "[DONE]", ws, "\n\n", content), []byte(nil), uint8(0))
		f.Add(recipeOf(content, "data: ", ws, "[DONE]", "\n\n", content), []byte(nil), uint8(0))
		f.Add(recipeOf(content, "data:", ws, "[DONE]", "\n\n", content), []byte(nil), uint8(0))
	}
	f.Fuzz(func(t *testing.T, recipe, reads []byte, outcome uint8) {
		var c shortcutCheck
		if outcome&8 != 0 {
			c.opts.MaxEventBytes = 40 // some payloads over it, some under
		}
		c.check(t, fuzzRequest(recipe, reads, outcome))
	})
}
