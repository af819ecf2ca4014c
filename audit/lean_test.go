package audit_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/calc/aisbench"
)

// TestLeanReport: a lean report has the stages, the window analysis's
// windows and the findings of the full one, and neither figures nor the
// earlier selectors' stages.
func TestLeanReport(t *testing.T) {
	names := oracleCaseNames(t)
	if len(names) == 0 {
		t.Fatal("no oracle case")
	}
	withWindow := 0
	for _, name := range names {
		in, _ := loadOracleCase(t, name)
		full := buildOracleInput(t, in, audit.Config{MaxConcurrency: in.MaxConcurrency, Stats: in.Stats})
		lean := buildOracleInput(t, in, audit.Config{MaxConcurrency: in.MaxConcurrency, Stats: in.Stats, Lean: true})
		for _, st := range aisbench.Stages {
			if a, b := stageFiles(full, st), stageFiles(lean, st); a != b {
				t.Errorf("%s %s: lean\n%s\nfull\n%s", name, st, b, a)
			}
		}
		if a, b := fmt.Sprint(full.Findings), fmt.Sprint(lean.Findings); a != b {
			t.Errorf("%s: findings lean %s, full %s", name, b, a)
		}
		if lean.Figures != nil {
			t.Errorf("%s: a lean report with figures", name)
		}
		if (full.Window == nil) != (lean.Window == nil) {
			t.Fatalf("%s: window analysis in one report only", name)
		}
		if full.Window == nil {
			continue
		}
		withWindow++
		if len(full.Window.Selectors) != len(lean.Window.Selectors) {
			t.Fatalf("%s: %d selectors lean, %d full", name, len(lean.Window.Selectors), len(full.Window.Selectors))
		}
		for i, f := range full.Window.Selectors {
			l := lean.Window.Selectors[i]
			if f.StartSeconds != l.StartSeconds || f.EndSeconds != l.EndSeconds || fmt.Sprint(f.Err) != fmt.Sprint(l.Err) {
				t.Errorf("%s: selector %s: lean window %v..%v (%v), full %v..%v (%v)", name, f.Name, l.StartSeconds, l.EndSeconds, l.Err, f.StartSeconds, f.EndSeconds, f.Err)
			}
			if i > 0 && l.Stage != nil {
				t.Errorf("%s: selector %s: a lean report computed its stage", name, f.Name)
			}
		}
	}
	if withWindow == 0 {
		t.Error("no case with a window analysis: the selectors went untested")
	}
}

// stageFiles is a stage as AISBench's files would hold it, or its error.
func stageFiles(rep *audit.Report, st aisbench.Stage) string {
	if msg := rep.StageError(st); msg != "" {
		return "error: " + msg
	}
	var c, j bytes.Buffer
	if err := rep.WriteStageCSV(&c, st); err != nil {
		return "csv: " + err.Error()
	}
	if err := rep.WriteStageJSON(&j, st); err != nil {
		return "json: " + err.Error()
	}
	return c.String() + j.String()
}
