package parquetfile

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/trace"
)

// extrasTrace is a one-request trace with n extra columns.
func extrasTrace(n int) (trace.WriteOptions, []trace.Request) {
	var extra []trace.ExtraColumn
	var vals []trace.Value
	for i := range n {
		extra = append(extra, trace.ExtraColumn{Name: "x" + strings.Repeat("i", i+1), Kind: trace.ExtraInt64})
		vals = append(vals, trace.Value{Int: int64(i)})
	}
	return trace.WriteOptions{Extra: extra}, []trace.Request{{RequestID: "r0", T0Ns: 1, Extra: vals}}
}

// TestIssue21ExtraColumns: a file with more extra columns than
// Limits.MaxExtraColumns is refused, naming the limit.
func TestIssue21ExtraColumns(t *testing.T) {
	opts, reqs := extrasTrace(3)
	data := writeTrace(t, reqs, opts)
	open := func(max int64) error {
		r, err := openReader("extras.parquet", bytes.NewReader(data), int64(len(data)), trace.Limits{MaxChunkBytes: 1 << 20, MaxExtraColumns: max}, nil)
		if err == nil {
			r.Close()
		}
		return err
	}
	if err := open(2); !errors.Is(err, trace.ErrLimit) || !strings.Contains(err.Error(), "extras.parquet: column xiii: more than 2 extra columns") {
		t.Fatalf("got %v", err)
	}
	if err := open(3); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
}
