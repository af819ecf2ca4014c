package aisbench

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/trace"
)

// TestIssue21TimePointsOneRule: time points going back are refused by the
// import with the words of trace.CheckTimePoints, the rule every trace
// reader applies to time_points_s (a JSONL trace of time points read them
// and reported a negative TTFT).
func TestIssue21TimePointsOneRule(t *testing.T) {
	tp := []float64{10, 11, 10.5}
	want := trace.CheckTimePoints(tp)
	if want == nil {
		t.Fatal("trace.CheckTimePoints accepts time going back")
	}
	wd := copyDir(t, filepath.Join(workdirs, "basic"))
	execDB(t, filepath.Join(wd, "performances", "model", "db_data", "0123abcd.db"), "UPDATE numpy_store SET arr_blob = ? WHERE id = 4", npyBlob(t, tp))
	_, err := Load(wd, Options{})
	if err == nil || !strings.Contains(err.Error(), want.Error()) {
		t.Fatalf("import: %v, want it to hold %q", err, want)
	}
	c := trace.NewChecker("t.jsonl", trace.Limits{})
	err = c.Check(&trace.Request{RequestID: "r", T0Ns: 1, TimePointsS: tp}, trace.Error{Line: 2, RowGroup: -1, Row: -1})
	if err == nil || !strings.Contains(err.Error(), "column time_points_s: "+want.Error()) {
		t.Fatalf("trace reader: %v, want it to hold %q", err, want)
	}
}
