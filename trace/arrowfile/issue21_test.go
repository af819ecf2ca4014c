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
