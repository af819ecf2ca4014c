package audit_test

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/internal/oracle"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/render"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

func int64p(v int64) *int64 { return &v }

// spread is the worked example's time points: start, start+0.5, then 4 points
// evenly spaced up to end (make_inputs.py's spread).
func spread(start, end float64) []float64 {
	a := start + 0.5
	tp := []float64{start, a}
	for k := 1; k <= 4; k++ {
		tp = append(tp, a+(end-a)*float64(k)/4)
	}
	return tp
}

func workedExample(t *testing.T, cfg audit.Config) *audit.Report {
	t.Helper()
	b := audit.NewBuilder(cfg)
	for i, se := range [][2]float64{{0, 3}, {1, 5}, {3.1, 7}, {5.1, 9}, {7.1, 12}} {
		b.Add(record.Request{ID: string(rune('A' + i)), Success: true, TimePoints: spread(se[0], se[1]),
			InputTokens: int64p(1000), OutputTokens: int64p(100)})
	}
	rep, err := b.Finalize()
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// unusualReports are reports no oracle case produces: unknown counts and C.
func unusualReports(t *testing.T) map[string]*audit.Report {
	t.Helper()
	unknownTokens := audit.NewBuilder(audit.Config{MaxConcurrency: 2})
	for i, se := range [][2]float64{{0, 3}, {1, 5}, {3.1, 7}, {5.1, 9}, {7.1, 12}} {
		rec := record.Request{ID: string(rune('A' + i)), Success: true, TimePoints: spread(se[0], se[1]),
			InputTokens: int64p(1000), OutputTokens: int64p(100)}
		if i == 0 {
			rec.OutputTokens = nil
		}
		unknownTokens.Add(rec)
	}
	rep, err := unknownTokens.Finalize()
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*audit.Report{
		"unknown_output_tokens":   rep,
		"unknown_max_concurrency": workedExample(t, audit.Config{}),
	}
}

// goldenReports are the reports with WriteText/WriteJSON goldens.
func goldenReports(t *testing.T) map[string]*audit.Report {
	reports := unusualReports(t)
	for _, name := range []string{"worked_example", "failure_middle", "itl_first_all_zero", "no_stable_stage",
		"all_failed", "zero_length_window", "custom_stats", "ttft_all_zero", "too_few_time_points", "random_c8_failures"} {
		in, _ := loadOracleCase(t, name)
		reports[name] = buildFromOracleInput(t, in)
	}
	return reports
}

func TestReportGoldens(t *testing.T) {
	for name, rep := range goldenReports(t) {
		for ext, write := range map[string]func(*bytes.Buffer) error{
			".txt":  func(b *bytes.Buffer) error { return render.Text(b, rep) },
			".json": func(b *bytes.Buffer) error { return render.JSON(b, rep) },
		} {
			var got bytes.Buffer
			if err := write(&got); err != nil {
				t.Fatal(err)
			}
			var again bytes.Buffer
			if err := write(&again); err != nil || !bytes.Equal(got.Bytes(), again.Bytes()) {
				t.Errorf("%s%s: output is not deterministic", name, ext)
			}
			checkGolden(t, filepath.Join("testdata", "golden", name+ext), got.Bytes())
		}
	}
}

func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		_ = os.WriteFile(path+".got", got, 0o644)
		t.Errorf("%s differs from the golden file; wrote %s.got", path, path)
	}
}

// FuzzBuilder: arbitrary requests never panic, and every computed stage renders.
func FuzzBuilder(f *testing.F) {
	f.Add([]byte{0, 10, 20, 30, 5, 15, 25, 40}, uint8(2))
	f.Add([]byte{0, 0, 0, 0}, uint8(1))
	f.Add([]byte{255, 1, 128, 7, 7, 7, 200}, uint8(0))
	f.Fuzz(func(t *testing.T, raw []byte, c uint8) {
		b := audit.NewBuilder(audit.Config{MaxConcurrency: int(c % 5)})
		for len(raw) >= 3 {
			n := int(raw[0] % 6)
			raw = raw[1:]
			if n > len(raw) {
				n = len(raw)
			}
			tp := make([]float64, n)
			t0 := 0.0
			for i := range n {
				t0 += float64(raw[i]) / 16
				tp[i] = t0
			}
			raw = raw[n:]
			var out *int64
			if n%3 != 0 {
				out = int64p(int64(n))
			}
			b.Add(record.Request{Success: n != 5, TimePoints: tp, InputTokens: int64p(int64(n + 1)), OutputTokens: out})
		}
		rep, err := b.Finalize()
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		for _, stage := range aisbench.Stages {
			st := rep.Stage(stage)
			csvErr := rep.WriteStageCSV(&buf, stage)
			if (st.Err == nil) != (csvErr == nil) {
				t.Fatalf("%s: stage error %v, csv error %v", stage, st.Err, csvErr)
			}
			if st.Err == nil && st.Metric(metric.E2EL) == nil {
				t.Fatalf("%s: computed stage without E2EL", stage)
			}
			_ = rep.WriteStageJSON(&buf, stage)
		}
		if err := render.Text(&buf, rep); err != nil {
			t.Fatal(err)
		}
		if err := render.JSON(&buf, rep); err != nil {
			t.Fatal(err)
		}
	})
}

// oracleStagesDir holds the goldens AISBench's own code made.
const oracleStagesDir = "../testdata/oracle/stages"

func loadOracleCase(t *testing.T, name string) (*oracle.Input, *oracle.Output) {
	t.Helper()
	in, out, err := oracle.Load(oracleStagesDir, name)
	if err != nil {
		t.Fatal(err)
	}
	return in, out
}

func oracleCaseNames(t *testing.T) []string {
	t.Helper()
	names, err := oracle.CaseNames(oracleStagesDir, 25)
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// buildFromOracleInput audits an oracle input, ITL's samples kept.
func buildFromOracleInput(t *testing.T, in *oracle.Input) *audit.Report {
	t.Helper()
	return buildOracleInput(t, in, audit.Config{MaxConcurrency: in.MaxConcurrency, Stats: in.Stats, KeepITLSamples: true})
}

// buildOracleInput audits an oracle input with cfg.
func buildOracleInput(t *testing.T, in *oracle.Input, cfg audit.Config) *audit.Report {
	t.Helper()
	b := audit.NewBuilder(cfg)
	for _, r := range in.Records() {
		b.Add(r)
	}
	rep, err := b.Finalize()
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// sameFloat is bit equality, except that any NaN equals any NaN.
func sameFloat(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Float64bits(a) == math.Float64bits(b)
}
