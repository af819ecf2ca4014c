package partial

import (
	"slices"
	"testing"

	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/tables"
)

// TestTableNames: the tables name the classes as replay does, in
// replay.Classes order, which Rows and Record rely on, and
// the framers as replay does.
func TestTableNames(t *testing.T) {
	var names []string
	for _, c := range replay.Classes {
		names = append(names, c.String())
	}
	if !slices.Equal(tables.ClassNames, names) {
		t.Errorf("tables.ClassNames %q: want replay.Classes' names %q", tables.ClassNames, names)
	}
	if tables.FramerAISBench != string(replay.AISBench) || tables.FramerSSE != string(replay.SSE) {
		t.Errorf("tables' framers %q and %q: want replay's %q and %q", tables.FramerAISBench, tables.FramerSSE, replay.AISBench, replay.SSE)
	}
}

// TestRequestTableColumns checks the per-request facts against AISBench's
// definitions on the requests of the basic trace.
func TestRequestTableColumns(t *testing.T) {
	r, err := trace.Open("../../testdata/traces/basic.parquet", trace.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for r.Scan() {
		req := r.Request()
		res, err := replay.Replay(req, replay.Options{Framer: replay.AISBench})
		if err != nil {
			t.Fatal(err)
		}
		rec := record.FromReplay(res)
		row, _ := Rows(nil, req.T0Ns, res, rec)
		tp := rec.TimePoints
		if !rec.Success || len(tp) < 2 {
			if row.TTFTS != nil || row.E2ELS != nil || row.TPOTS != nil || row.ITLIntervals != 0 {
				t.Errorf("%s: per-request figures on a request AISBench does not count: %+v", rec.ID, row)
			}
			continue
		}
		if *row.TTFTS != tp[1]-tp[0] || *row.E2ELS != tp[len(tp)-1]-tp[0] || row.ITLIntervals != int64(len(tp)-2) {
			t.Errorf("%s: ttft %v e2el %v itl_intervals %d from %v", rec.ID, *row.TTFTS, *row.E2ELS, row.ITLIntervals, tp)
		}
		if out := *rec.OutputTokens; out > 1 && *row.TPOTS != (*row.E2ELS-*row.TTFTS)/float64(out-1) {
			t.Errorf("%s: tpot %v", rec.ID, *row.TPOTS)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
}
