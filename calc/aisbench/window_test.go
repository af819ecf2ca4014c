package aisbench_test

import (
	"encoding/json"
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/record"
)

// TestLegacySelectorsMatchAISBench runs AISBench's own _get_requests_id of
// 3774965 and 1242df6 (testdata/legacy_window/gen.py reads them from AISBench's
// history) against the Go selectors on random runs: the same requests, in the
// same order, and the same stage_section, bit for bit.
func TestLegacySelectorsMatchAISBench(t *testing.T) {
	data, err := os.ReadFile("testdata/legacy_window/windows.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden struct {
		Revisions map[string]string
		Cases     []struct {
			MaxConcurrency int       `json:"max_concurrency"`
			Start          []float64 `json:"start"`
			End            []float64 `json:"end"`
			Selectors      map[string]struct {
				Error   string
				IDs     []int `json:"ids"`
				Section []float64
			}
		}
	}
	if err := json.Unmarshal(data, &golden); err != nil {
		t.Fatal(err)
	}
	windows, errs := 0, 0
	for k, c := range golden.Cases {
		var recs []record.Request
		for i, s := range c.Start {
			recs = append(recs, record.Request{ID: string(rune('a' + i%26)), Success: true, TimePoints: []float64{s, c.End[i]},
				InputTokens: int64p(1), OutputTokens: int64p(1)})
		}
		rep := compute(t, aisbench.Config{MaxConcurrency: c.MaxConcurrency}, recs...)
		if rep.Window == nil {
			t.Fatalf("case %d: no window analysis", k)
		}
		for _, sel := range rep.Window.Selectors[1:] {
			want, ok := c.Selectors[sel.Name]
			if !ok {
				t.Fatalf("case %d: no golden for %s", k, sel.Name)
			}
			if sel.Commit != golden.Revisions[sel.Name] {
				t.Errorf("%s: commit %s, golden made from %s", sel.Name, sel.Commit, golden.Revisions[sel.Name])
			}
			if want.Error != "" {
				errs++
				if !errors.Is(sel.Err, aisbench.ErrNoStableStage) || sel.Stage != nil {
					t.Errorf("case %d %s: want no stable stage, got %v", k, sel.Name, sel.Err)
				}
				continue
			}
			windows++
			if sel.Stage == nil {
				t.Errorf("case %d %s: no window, want %v", k, sel.Name, want.IDs)
				continue
			}
			if !slices.Equal(sel.Stage.Window.Positions, want.IDs) || sel.StartSeconds != want.Section[0] || sel.EndSeconds != want.Section[1] {
				t.Errorf("case %d %s (C=%d): ids %v section [%v %v], AISBench ids %v section %v", k, sel.Name, c.MaxConcurrency,
					sel.Stage.Window.Positions, sel.StartSeconds, sel.EndSeconds, want.IDs, want.Section)
			}
		}
	}
	if windows < 20 || errs < 5 {
		t.Errorf("golden cases exercise too little: %d windows, %d without", windows, errs)
	}
}
