package arrowfile

import (
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sseaudit/sseaudit/trace"
)

// TestIssue21ExtraColumns: a file with more extra columns than
// Limits.MaxExtraColumns is refused, naming the limit.
func TestIssue21ExtraColumns(t *testing.T) {
	var opts trace.WriteOptions
	req := trace.Request{RequestID: "r0", T0Ns: 1}
	for i := range 3 {
		opts.Extra = append(opts.Extra, trace.ExtraColumn{Name: "x" + strings.Repeat("i", i+1), Kind: trace.ExtraInt64})
		req.Extra = append(req.Extra, trace.Value{Int: int64(i)})
	}
	for _, f := range formats {
		data := writeTrace(t, f, opts, []trace.Request{req}, nil)
		for _, max := range []int64{2, 3} {
			src := source(t, "extras."+f.name, data)
			src.Limits.MaxExtraColumns = max
			r, err := f.open(src, memory.NewGoAllocator())
			if max == 2 && (!errors.Is(err, trace.ErrLimit) || !strings.Contains(err.Error(), "column xiii: more than 2 extra columns")) {
				t.Errorf("%s: got %v", f.name, err)
			}
			if max == 3 && err != nil {
				t.Errorf("%s at the limit: %v", f.name, err)
			}
			if err == nil {
				r.Close()
			}
		}
	}
}

// TestIssue21DataAfterEOS: bytes after a stream's end-of-stream marker (a
// second stream appended) are an error, not left unread: 5 of 10 requests
// were read without a word.
func TestIssue21DataAfterEOS(t *testing.T) {
	f := format{"arrows", true}
	first := writeTrace(t, f, trace.WriteOptions{}, []trace.Request{{RequestID: "a", T0Ns: 1}}, nil)
	second := writeTrace(t, f, trace.WriteOptions{}, []trace.Request{{RequestID: "b", T0Ns: 2}}, nil)
	for _, tail := range [][]byte{second, {0}} {
		data := append(append([]byte{}, first...), tail...)
		reqs, _, err := readAll(t, f, "two.arrows", data, memory.NewGoAllocator())
		want := "bytes after the end-of-stream marker"
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "two.arrows") {
			t.Errorf("%d bytes after the marker: %d requests, %v; want an error holding %q", len(tail), len(reqs), err, want)
		}
	}
	if reqs, _, err := readAll(t, f, "one.arrows", first, memory.NewGoAllocator()); err != nil || len(reqs) != 1 {
		t.Errorf("one stream: %v", err)
	}
}
