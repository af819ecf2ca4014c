package comparison

import (
	"testing"
	"time"

	"github.com/sseaudit/sseaudit/calc/aisbench"
)

// TestStableCIIndependentOfStageSelection: Compare seeds each bootstrap
// with a stream of its own, "the same results whatever the order"; the
// metric's part of the stream is its index in Metrics (whatever --metric
// shows), but the stage's part is its index in Options.Stages. So
// `audit diff --stage stable` and `audit diff` (both stages) print other
// intervals for the very same stable stage of the same two runs.
func TestStableCIIndependentOfStageSelection(t *testing.T) {
	a := genSide(t, small(7, 20*time.Millisecond), nil)
	b := genSide(t, small(8, 23*time.Millisecond), nil)
	all, err := Compare(a, b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	only, err := Compare(a, b, Options{Stages: []aisbench.Stage{aisbench.StageStable}})
	if err != nil {
		t.Fatal(err)
	}
	var sAll *StageComparison
	for i := range all.Stages {
		if all.Stages[i].Stage == aisbench.StageStable {
			sAll = &all.Stages[i]
		}
	}
	sOnly := &only.Stages[0]
	for i := range sAll.Metrics {
		x, y := &sAll.Metrics[i], sOnly.Metric(sAll.Metrics[i].Name)
		if !x.PerRequest {
			continue
		}
		if x.CI95 != y.CI95 {
			t.Errorf("stable %s: CI %v with --stage all, %v with --stage stable", x.Name, x.CI95, y.CI95)
		}
	}
}
