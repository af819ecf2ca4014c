package aisbench_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/internal/oracle"
	"github.com/sseaudit/sseaudit/metric"
)

// The goldens in testdata/oracle/stages come from AISBench's own summarizer and
// calculators (regen.sh there runs ../shared/oracle/oracle.py).
const oracleStagesDir = "../../testdata/oracle/stages"

func loadOracleCase(t *testing.T, name string) (*oracle.Input, *oracle.Output) {
	t.Helper()
	in, out, err := oracle.Load(oracleStagesDir, name)
	if err != nil {
		t.Fatal(err)
	}
	return in, out
}

func buildFromOracleInput(t *testing.T, in *oracle.Input) *aisbench.Result {
	t.Helper()
	return compute(t, aisbench.Config{MaxConcurrency: in.MaxConcurrency, Stats: in.Stats}, in.Records()...)
}

func TestStagesMatchAISBenchOracle(t *testing.T) {
	names, err := oracle.CaseNames(oracleStagesDir, 25)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			in, out := loadOracleCase(t, name)
			rep := buildFromOracleInput(t, in)
			if out.SummarizerError != "" {
				for _, stage := range aisbench.Stages {
					if got := rep.StageError(stage); got != out.SummarizerError {
						t.Errorf("%s error:\n got %q\nwant %q", stage, got, out.SummarizerError)
					}
				}
				return
			}
			if len(out.Results) != 2 {
				t.Fatalf("oracle has %d results", len(out.Results))
			}
			for i, stage := range aisbench.Stages {
				checkStageAgainstOracle(t, rep, stage, &out.Results[i])
			}
		})
	}
}

func checkStageAgainstOracle(t *testing.T, rep *aisbench.Result, stage aisbench.Stage, want *oracle.Result) {
	t.Helper()
	st := rep.Stage(stage)
	if want.Error != "" {
		if got := rep.StageError(stage); got != want.Error {
			t.Errorf("%s error:\n got %q\nwant %q", stage, got, want.Error)
		}
		var buf bytes.Buffer
		if rep.WriteStageError(&buf, stage) != nil || buf.String() != want.Error+"\n" {
			t.Errorf("%s .error file = %q", stage, buf.String())
		}
		if err := rep.WriteStageCSV(&buf, stage); err == nil {
			t.Errorf("%s: WriteStageCSV succeeded on a failed stage", stage)
		}
		return
	}
	if st.Err != nil {
		t.Fatalf("%s: unexpected error %v", stage, st.Err)
	}
	var csvBuf, jsonBuf bytes.Buffer
	if err := rep.WriteStageCSV(&csvBuf, stage); err != nil {
		t.Fatal(err)
	}
	if got := csvBuf.String(); got != want.CSV {
		t.Errorf("%s csv:\n got %q\nwant %q", stage, got, want.CSV)
	}
	if err := rep.WriteStageJSON(&jsonBuf, stage); err != nil {
		t.Fatal(err)
	}
	if got := jsonBuf.String(); got != want.JSON {
		t.Errorf("%s json:\n got %s\nwant %s", stage, got, want.JSON)
	}
	if rep.StageError(stage) != "" {
		t.Errorf("%s: StageError = %q on a computed stage", stage, rep.StageError(stage))
	}

	// Counts, duration, window and selected requests.
	s := string(stage)
	if st.Common.TotalRequests != want.DataCount[s] || st.Common.SuccessRequests != want.SuccessCount[s] {
		t.Errorf("%s counts: total %d success %d, AISBench %d %d", stage,
			st.Common.TotalRequests, st.Common.SuccessRequests, want.DataCount[s], want.SuccessCount[s])
	}
	if !sameFloat(st.DurationSeconds, want.InferTime[s]) {
		t.Errorf("%s duration %v, AISBench %v", stage, st.DurationSeconds, want.InferTime[s])
	}
	if stage == aisbench.StageStable {
		w := st.Window
		if w == nil || !sameFloat(w.StartSeconds, want.StageSection[0]) || !sameFloat(w.EndSeconds, want.StageSection[1]) {
			t.Errorf("window %+v, AISBench %v", w, want.StageSection)
		} else if !equalInts(w.Positions, want.Selected[s]) {
			t.Errorf("window positions %v, AISBench %v", w.Positions, want.Selected[s])
		}
		if st.Quirk.Changed != (want.SuccessCount[s] != want.DataCount[s]) {
			t.Errorf("quirk flag %v with AISBench counts %d/%d", st.Quirk.Changed, want.SuccessCount[s], want.DataCount[s])
		}
	}

	// Rounded statistics (metrics_raw) and N, exactly; unrounded ones against numpy.
	if len(st.Metrics) != len(want.MetricsRaw) {
		t.Errorf("%s has %d metrics, AISBench %d", stage, len(st.Metrics), len(want.MetricsRaw))
	}
	for _, m := range st.Metrics {
		wm, ok := want.MetricsRaw[string(m.Name)][s]
		if !ok {
			t.Errorf("%s: metric %s not in AISBench's output", stage, m.Name)
			continue
		}
		if n, _ := wm["N"].(float64); int(n) != m.N {
			t.Errorf("%s %s N = %d, AISBench %v", stage, m.Name, m.N, wm["N"])
		}
		var raw map[string]any
		if err := json.Unmarshal(want.NumpyRaw[string(m.Name)], &raw); err != nil {
			t.Fatal(err)
		}
		if samples, _ := raw["samples"].(float64); int(samples) != len(m.Values) || m.Samples != len(m.Values) {
			t.Errorf("%s %s has %d samples (Samples %d), AISBench %v", stage, m.Name, len(m.Values), m.Samples, raw["samples"])
		}
		for _, stat := range m.Stats {
			// The oracle writes non-finite numbers as the strings "inf" and "nan".
			w, ok := wm[stat.Name].(float64)
			if text, isText := wm[stat.Name].(string); isText {
				w, ok = pyFloat(t, text), true
			}
			if !ok || !sameFloat(stat.Rounded, w) {
				t.Errorf("%s %s %s = %v, AISBench %v", stage, m.Name, stat.Name, stat.Rounded, wm[stat.Name])
			}
			if w := pyFloat(t, raw[stat.Name].(string)); !sameFloat(stat.Raw, w) {
				t.Errorf("%s %s %s raw = %v, numpy %v", stage, m.Name, stat.Name, stat.Raw, w)
			}
		}
	}
	var concurrencyRaw *string
	if err := json.Unmarshal(want.NumpyRaw["concurrency_raw"], &concurrencyRaw); err != nil {
		t.Fatal(err)
	}
	if concurrencyRaw != nil && !sameFloat(st.Common.Concurrency.Raw, pyFloat(t, *concurrencyRaw)) {
		t.Errorf("%s concurrency raw %v, AISBench %s", stage, st.Common.Concurrency.Raw, *concurrencyRaw)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestPerRequestValuesMatchAISBench checks _calc_perf_data's per-request values
// (the total stage holds every successful request, in order).
func TestPerRequestValuesMatchAISBench(t *testing.T) {
	for _, name := range []string{"worked_example", "random_c12_perf_counter_1e9", "random_c5_tiny", "itl_with_zeros", "multi_token_events", "zero_latency_request"} {
		in, out := loadOracleCase(t, name)
		rep := buildFromOracleInput(t, in)
		pr := out.Results[0].PerRequest
		st := rep.Total
		checkValues := func(m metric.Metric, want []float64) {
			got := st.Metric(m)
			if got == nil {
				t.Fatalf("%s: no %s", name, m)
			}
			values := got.Values
			if len(values) != len(want) {
				t.Fatalf("%s %s: %d values, AISBench %d", name, m, len(values), len(want))
			}
			for i := range want {
				if !sameFloat(values[i], want[i]) {
					t.Errorf("%s %s[%d] = %v, AISBench %v", name, m, i, values[i], want[i])
				}
			}
		}
		checkValues(metric.E2EL, pr.Latency)
		checkValues(metric.TTFT, pr.TTFT)
		checkValues(metric.TPOT, pr.TPOT)
		var itl []float64
		for _, xs := range pr.ITL {
			itl = append(itl, xs...)
		}
		checkValues(metric.ITL, itl)
		speed := make([]float64, len(pr.Speed))
		for i, v := range pr.Speed {
			switch v := v.(type) {
			case float64:
				speed[i] = v
			case string: // the oracle spells non-finite numbers "inf", "nan"
				speed[i] = pyFloat(t, v)
			}
		}
		checkValues(metric.OutputTokenThroughput, speed)
	}
}
