package audit

import (
	"bytes"
	"errors"
	"testing"

	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/trace"
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
			rec := RecordFromReplays(req, a, s)
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

// TestSSEFiguresWithoutAISBenchNumbers: a stage whose AISBench numbers are
// unknowable (no token counts) still has its ITL accounting and sseaudit's
// time metrics, which need no tokens.
func TestSSEFiguresWithoutAISBenchNumbers(t *testing.T) {
	rep, _ := reportOf(t, "../testdata/traces/findings/unknown_tokens.jsonl", Config{})
	var tokErr *UnknownTokensError
	if !errors.As(rep.Total.Err, &tokErr) {
		t.Fatalf("total error %v", rep.Total.Err)
	}
	if a := rep.Total.ITL; a == nil || a.Intervals != 47+11*3 || a.AISBenchN != 12 || a.InAISBenchTable {
		t.Errorf("ITL accounting %+v", a)
	}
	if rep.Total.SSEMetric(MetricTTFContent) == nil || rep.Stable.SSEMetric(MetricContentUpdateInterval) == nil {
		t.Error("time metrics missing")
	}
	if wt := rep.Stable.Windowed; wt == nil || wt.Basis != "output events" || wt.NativeOutputTokenThroughput != nil {
		t.Errorf("windowed %+v", wt)
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
