package replay

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// oracleDir holds AISBench's own results for testdata/*.jsonl, made by
// testdata/oracle/replay/regen.sh.
const oracleDir = "../testdata/oracle/replay"

type oracleRequest struct {
	RequestID    string    `json:"request_id"`
	Success      bool      `json:"success"`
	TimePoints   []float64 `json:"time_points"`
	InputTokens  int64     `json:"input_tokens"`
	OutputTokens int64     `json:"output_tokens"`
	ErrorInfo    string    `json:"error_info"`
	EventClasses []string  `json:"event_classes"`
}

// oracleClass is the oracle's coarser class of an event: content >
// reasoning > role > usage_only > other, on the same facts.
func oracleClass(e Event) string {
	switch {
	case e.Facts&HasText != 0:
		return "content"
	case e.Facts&HasReasoning != 0:
		return "reasoning"
	case e.Facts&HasRole != 0:
		return "role"
	case e.Class == ClassUsageOnly:
		return "usage_only"
	}
	return "other"
}

func TestAgainstAISBench(t *testing.T) {
	traces, err := filepath.Glob("testdata/*.jsonl")
	if err != nil || len(traces) == 0 {
		t.Fatalf("no traces in testdata: %v", err)
	}
	for _, path := range traces {
		name := filepath.Base(path[:len(path)-len(".jsonl")])
		raw, err := os.ReadFile(filepath.Join(oracleDir, name+".timepoints.json"))
		if err != nil {
			t.Fatal(err)
		}
		var want struct {
			Requests []oracleRequest `json:"requests"`
		}
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		reqs := loadJSONL(t, path)
		if len(reqs) != len(want.Requests) {
			t.Fatalf("%s: %d requests, oracle has %d", name, len(reqs), len(want.Requests))
		}
		var r Replayer
		for i, req := range reqs {
			w := want.Requests[i]
			t.Run(name+"/"+req.RequestID, func(t *testing.T) {
				if w.RequestID != req.RequestID {
					t.Fatalf("oracle request %d is %q", i, w.RequestID)
				}
				got, err := r.Replay(req, Options{Framer: AISBench})
				if err != nil {
					t.Fatal(err)
				}
				// The oracle reports the client's view; get_metrics then
				// fails a success with fewer than 2 time points.
				wantSuccess := w.Success && len(w.TimePoints) > 1
				if got.Success != wantSuccess {
					t.Errorf("success = %v (%q), AISBench %v (%q)", got.Success, got.ErrorInfo, wantSuccess, w.ErrorInfo)
				}
				if len(got.TimePointsS) != len(w.TimePoints) {
					t.Fatalf("time points %v, AISBench %v", got.TimePointsS, w.TimePoints)
				}
				for k := range w.TimePoints {
					if math.Float64bits(got.TimePointsS[k]) != math.Float64bits(w.TimePoints[k]) {
						t.Errorf("time point %d = %v, AISBench %v", k, got.TimePointsS[k], w.TimePoints[k])
					}
				}
				checkTokens(t, "input", got.InputTokens, w.InputTokens, req.InputTokens)
				checkTokens(t, "output", got.OutputTokens, w.OutputTokens, req.OutputTokens)
				if w.EventClasses != nil {
					var classes []string
					for _, e := range got.Events {
						if e.Recorded {
							classes = append(classes, oracleClass(e))
						}
					}
					if len(classes) != len(w.EventClasses) {
						t.Fatalf("recorded classes %v, AISBench %v", classes, w.EventClasses)
					}
					for k := range classes {
						if classes[k] != w.EventClasses[k] {
							t.Errorf("recorded event %d: class %s, AISBench %s", k, classes[k], w.EventClasses[k])
						}
					}
				}
				switch {
				case w.Success || w.ErrorInfo == "":
				case strings.Contains(w.ErrorInfo, "[MODEL_CODES."), strings.Contains(w.ErrorInfo, "PayloadError"):
					// The oracle stubs AISBench's error codes and raises its
					// own transport error: only the wording around them is real.
					if !strings.HasPrefix(got.ErrorInfo, "After 2 retries, request failed with exception: ") {
						t.Errorf("error_info %q; AISBench says %q", got.ErrorInfo, w.ErrorInfo)
					}
				case got.ErrorInfo != w.ErrorInfo:
					t.Errorf("error_info %q; AISBench says %q", got.ErrorInfo, w.ErrorInfo)
				}
			})
		}
	}
}

// checkTokens compares a count with AISBench's, where AISBench's 0 means
// "fall back" (to the trace's column here).
func checkTokens(t *testing.T, what string, got *int64, aisbench int64, column *int64) {
	t.Helper()
	want := column
	if aisbench != 0 {
		want = &aisbench
	}
	switch {
	case want == nil && got != nil:
		t.Errorf("%s tokens = %d, want unknown", what, *got)
	case want != nil && (got == nil || *got != *want):
		t.Errorf("%s tokens = %v, want %d", what, got, *want)
	}
}
