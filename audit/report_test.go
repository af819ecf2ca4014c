package audit

import (
	"bytes"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
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

func workedExample(t *testing.T, cfg Config) *Report {
	t.Helper()
	b := NewBuilder(cfg)
	for i, se := range [][2]float64{{0, 3}, {1, 5}, {3.1, 7}, {5.1, 9}, {7.1, 12}} {
		b.Add(RequestRecord{ID: string(rune('A' + i)), Success: true, TimePoints: spread(se[0], se[1]),
			InputTokens: int64p(1000), OutputTokens: int64p(100)})
	}
	rep, err := b.Finalize()
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestWorkedExample checks the numbers of semantics §6 literally.
func TestWorkedExample(t *testing.T) {
	rep := workedExample(t, Config{MaxConcurrency: 2})
	var csv bytes.Buffer
	if err := rep.WriteAISBenchCSV(&csv, StageTotal); err != nil {
		t.Fatal(err)
	}
	if want := "E2EL,total,3940.0 ms,3000.0 ms,4900.0 ms,3900.0 ms,4000.0 ms,4540.0 ms,4864.0 ms,5\r\n"; !strings.Contains(csv.String(), want) {
		t.Errorf("total csv lacks %q:\n%s", want, csv.String())
	}
	tot := rep.Total.Common
	if tot.BenchmarkDurationMs != 12000 || tot.Concurrency.Rounded != 1.6417 || tot.OutputTokenThroughput.Rounded != 41.6667 {
		t.Errorf("total common: %+v", tot)
	}
	st := rep.Stable
	if w := st.Window; w == nil || w.StartSeconds != 3.1 || w.EndSeconds != 7.1 || w.Selected != 3 || w.Of != 5 {
		t.Fatalf("window %+v", st.Window)
	}
	if got := st.Requests; len(got) != 3 || got[0] != 2 || got[2] != 4 {
		t.Errorf("stable requests %v, want C, D, E", got)
	}
	c := st.Common
	if c.BenchmarkDurationMs != 4000 || !c.ConcurrencyCapped || c.Concurrency.Rounded != 3.175 ||
		c.OutputTokenThroughput.Rounded != 75 {
		t.Errorf("stable common: %+v", c)
	}
	var js bytes.Buffer
	if err := rep.WriteAISBenchJSON(&js, StageStable); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), "\"Concurrency\": {\n        \"stable\": 2\n    }") {
		t.Errorf("capped concurrency is not the int 2:\n%s", js.String())
	}
	csv.Reset()
	if err := rep.WriteAISBenchCSV(&csv, StageStable); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(csv.String(), "\r\nE2EL,stable,4233.3 ms,") || !strings.Contains(csv.String(), " ms,3\r\n") {
		t.Errorf("stable csv:\n%s", csv.String())
	}
}

// TestFailureIndexQuirk builds the quirk by hand: a failure at trace position
// 2 makes AISBench read success flag 2 (false) for the success-list position 2.
func TestFailureIndexQuirk(t *testing.T) {
	b := NewBuilder(Config{MaxConcurrency: 2})
	add := func(ok bool, tp ...float64) {
		b.Add(RequestRecord{Success: ok, TimePoints: tp, InputTokens: int64p(10), OutputTokens: int64p(5)})
	}
	add(true, 0, 0.5, 2)   // success position 0
	add(true, 1, 1.5, 3)   // 1: reaches C (warm-up)
	add(false, 1.8)        // a failure, trace position 2
	add(true, 2, 2.5, 4)   // success position 2: window start
	add(true, 3, 3.5, 5)   // 3
	add(true, 4, 4.5, 6)   // 4
	add(true, 6.5, 7, 7.5) // 5: after the window
	rep, err := b.Finalize()
	if err != nil {
		t.Fatal(err)
	}
	st := rep.Stable
	if st.Err != nil {
		t.Fatal(st.Err)
	}
	q := st.Quirk
	if !q.Changed || q.AISBenchTotal != 3 || q.AISBenchSuccess != 2 || q.AISBenchFailed != 1 || q.IntendedFailed != 0 {
		t.Errorf("quirk %+v", q)
	}
	if st.Common.FailedRequests != 1 || st.Metric(MetricE2EL).N != 2 || st.Metric(MetricTPOT).N != 3 {
		t.Errorf("common %+v, N %d/%d", st.Common, st.Metric(MetricE2EL).N, st.Metric(MetricTPOT).N)
	}
	if rep.Total.Quirk.Changed || rep.Total.Common.FailedRequests != 1 || rep.Total.Common.TotalRequests != 7 {
		t.Errorf("total stage: %+v %+v", rep.Total.Quirk, rep.Total.Common)
	}
}

func TestUnknownTokenCounts(t *testing.T) {
	b := NewBuilder(Config{MaxConcurrency: 2})
	for i, se := range [][2]float64{{0, 3}, {1, 5}, {3.1, 7}, {5.1, 9}, {7.1, 12}} {
		rec := RequestRecord{ID: string(rune('A' + i)), Success: true, TimePoints: spread(se[0], se[1]),
			InputTokens: int64p(1000), OutputTokens: int64p(100)}
		switch i {
		case 0: // before the stable window: only the total stage needs it
			rec.OutputTokens = nil
		case 3:
			rec.OutputTokens = int64p(0)
			rec.InputTokens = nil
		}
		b.Add(rec)
	}
	rep, err := b.Finalize()
	if err != nil {
		t.Fatal(err)
	}
	var tokErr *UnknownTokensError
	if !errors.As(rep.Total.Err, &tokErr) || tokErr.Kind != "output" || tokErr.Missing != 1 || tokErr.Zero != 1 {
		t.Fatalf("total error %v", rep.Total.Err)
	}
	want := "output token counts unknown for 2 requests (1 with no usage in the body and no output_tokens column, 1 with a count of 0, which AISBench treats as missing): AISBench would have counted them with its tokenizer; " +
		"input token counts unknown for 1 requests (no usage in the body and no input_tokens column): AISBench would have counted them with its tokenizer"
	if got := rep.StageError(StageTotal); got != want {
		t.Errorf("total error:\n got %q\nwant %q", got, want)
	}
	if got := rep.StageError(StageStable); !strings.HasPrefix(got, "output token counts unknown for 1 requests (a count of 0") {
		t.Errorf("stable error %q", got)
	}
	if rep.Stable.Window == nil || rep.Stable.Window.Selected != 3 {
		t.Errorf("the window does not need token counts: %+v", rep.Stable.Window)
	}
	var buf bytes.Buffer
	if err := rep.WriteAISBenchCSV(&buf, StageTotal); !errors.As(err, &tokErr) {
		t.Errorf("WriteAISBenchCSV error %v", err)
	}
}

func TestUnknownMaxConcurrency(t *testing.T) {
	rep := workedExample(t, Config{})
	if !errors.Is(rep.Stable.Err, ErrUnknownMaxConcurrency) || rep.Total.Err != nil {
		t.Fatalf("errors: total %v, stable %v", rep.Total.Err, rep.Stable.Err)
	}
	var buf bytes.Buffer
	if err := rep.WriteAISBenchCSV(&buf, StageTotal); err != nil {
		t.Errorf("total csv does not need C: %v", err)
	}
	if err := rep.WriteAISBenchJSON(&buf, StageTotal); !errors.Is(err, ErrUnknownMaxConcurrency) {
		t.Errorf("total json without C: %v", err)
	}
}

func TestNaNTimePoint(t *testing.T) {
	b := NewBuilder(Config{MaxConcurrency: 1})
	b.Add(RequestRecord{ID: "x", Success: true, TimePoints: []float64{0, math.NaN(), 1}, InputTokens: int64p(1), OutputTokens: int64p(2)})
	rep, err := b.Finalize()
	if err != nil {
		t.Fatal(err)
	}
	var nanErr *NaNTimePointError
	if !errors.As(rep.Total.Err, &nanErr) || nanErr.Point != 1 || !errors.As(rep.Stable.Err, &nanErr) {
		t.Errorf("errors %v / %v", rep.Total.Err, rep.Stable.Err)
	}
}

func TestAISBenchErrorsMatchWithErrorsIs(t *testing.T) {
	b := NewBuilder(Config{MaxConcurrency: 2})
	b.Add(RequestRecord{Success: false, TimePoints: []float64{0}})
	b.Add(RequestRecord{Success: true, TimePoints: []float64{1}}) // one point: a failure
	rep, err := b.Finalize()
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(rep.Total.Err, ErrAllRequestsFailed) || errors.Is(rep.Total.Err, ErrNoStableStage) {
		t.Errorf("total error %v", rep.Total.Err)
	}
	if rep.Requests.TooFewTimePoints != 1 || rep.Requests.Failed != 2 {
		t.Errorf("requests %+v", rep.Requests)
	}
	if _, err := NewBuilder(Config{MaxConcurrency: -1}).Finalize(); err == nil {
		t.Error("negative max concurrency accepted")
	}
}

func TestBuilderCopiesRecords(t *testing.T) {
	tp := []float64{0, 0.5, 1, 2}
	out := int64(10)
	b := NewBuilder(Config{MaxConcurrency: 1})
	b.Add(RequestRecord{Success: true, TimePoints: tp, InputTokens: int64p(5), OutputTokens: &out})
	tp[3], out = 100, 1
	rep, err := b.Finalize()
	if err != nil {
		t.Fatal(err)
	}
	if e2el := rep.Total.Metric(MetricE2EL).Values[0]; e2el != 2 || rep.Total.Common.TotalGeneratedTokens != 10 {
		t.Errorf("caller's later edits leaked: e2el %v, tokens %d", e2el, rep.Total.Common.TotalGeneratedTokens)
	}
}

func TestParseStage(t *testing.T) {
	for in, want := range map[string]Stage{"total": StageTotal, "whole": StageTotal, "stable": StageStable, "native": StageStable} {
		if got, err := ParseStage(in); err != nil || got != want {
			t.Errorf("ParseStage(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseStage("Total"); err == nil {
		t.Error("ParseStage accepted an unknown name")
	}
}

func TestValidateStats(t *testing.T) {
	for _, tc := range []struct {
		in, want []string
		warnings int
	}{
		{nil, DefaultStats, 0},
		{[]string{"P05", "Median", "P50", "P50", "Bogus", "P100", "P0"}, []string{"P05", "Median", "P50"}, 3},
		{[]string{"Bogus"}, []string{"Average"}, 2},
		{[]string{"P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8", "P9"}, []string{"P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8"}, 1},
		{[]string{"P1\u0665"}, []string{"P1\u0665"}, 0}, // Python's \d: ARABIC-INDIC FIVE
	} {
		got, warnings := ValidateStats(tc.in)
		if strings.Join(got, ",") != strings.Join(tc.want, ",") || len(warnings) != tc.warnings {
			t.Errorf("ValidateStats(%q) = %q, %d warnings %q; want %q, %d", tc.in, got, len(warnings), warnings, tc.want, tc.warnings)
		}
	}
	if p, ok := statPercent("P1\u0665"); !ok || p != 15 {
		t.Errorf("statPercent(P1٥) = %d, %v", p, ok)
	}
	if p, ok := statPercent("P007"); !ok || p != 7 {
		t.Errorf("statPercent(P007) = %d, %v", p, ok)
	}
}

// unusualReports are reports no oracle case produces: unknown counts and C.
func unusualReports(t *testing.T) map[string]*Report {
	t.Helper()
	unknownTokens := NewBuilder(Config{MaxConcurrency: 2})
	for i, se := range [][2]float64{{0, 3}, {1, 5}, {3.1, 7}, {5.1, 9}, {7.1, 12}} {
		rec := RequestRecord{ID: string(rune('A' + i)), Success: true, TimePoints: spread(se[0], se[1]),
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
	return map[string]*Report{
		"unknown_output_tokens":   rep,
		"unknown_max_concurrency": workedExample(t, Config{}),
	}
}

// goldenReports are the reports with WriteText/WriteJSON goldens.
func goldenReports(t *testing.T) map[string]*Report {
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
			".txt":  func(b *bytes.Buffer) error { return rep.WriteText(b) },
			".json": func(b *bytes.Buffer) error { return rep.WriteJSON(b) },
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
		b := NewBuilder(Config{MaxConcurrency: int(c % 5)})
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
			b.Add(RequestRecord{Success: n != 5, TimePoints: tp, InputTokens: int64p(int64(n + 1)), OutputTokens: out})
		}
		rep, err := b.Finalize()
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		for _, stage := range Stages {
			st := rep.Stage(stage)
			csvErr := rep.WriteAISBenchCSV(&buf, stage)
			if (st.Err == nil) != (csvErr == nil) {
				t.Fatalf("%s: stage error %v, csv error %v", stage, st.Err, csvErr)
			}
			if st.Err == nil && st.Metric(MetricE2EL) == nil {
				t.Fatalf("%s: computed stage without E2EL", stage)
			}
			_ = rep.WriteAISBenchJSON(&buf, stage)
		}
		if err := rep.WriteText(&buf); err != nil {
			t.Fatal(err)
		}
		if err := rep.WriteJSON(&buf); err != nil {
			t.Fatal(err)
		}
	})
}

// Time points decode to the float64 values added, bit for bit, packed or
// not: replay's (whole nanoseconds, on a small or a Unix-epoch clock) pack;
// others (NaN, -0, decreasing, a step over 4.3 s, decimals) are kept as
// they came.
func TestTimePointsKeptExactly(t *testing.T) {
	seconds := func(ns ...int64) []float64 {
		tp := make([]float64, len(ns))
		for i, n := range ns {
			tp[i] = SecondsFromNanos(n)
		}
		return tp
	}
	for _, c := range []struct {
		tp     []float64
		packed bool
	}{
		{seconds(0, 50_000_000, 70_000_001, 70_000_001, 90_123_456), true},
		{seconds(1_764_500_000_123_456_789, 1_764_500_000_173_456_789, 1_764_500_004_000_000_000), true},
		{seconds(5, 5+math.MaxUint32), true},
		{seconds(5, 6+math.MaxUint32), false},
		{seconds(100, 99), false},
		{[]float64{0.1, 0.2, 0.3}, true},
		{[]float64{0.1, 0.2, 0.30000000000000004}, false},
		{[]float64{1.0000000001234, 1.1}, false},
		{[]float64{math.Copysign(0, -1), 1}, false},
		{[]float64{0, math.NaN()}, false},
		{[]float64{0, math.Inf(1)}, false},
		{[]float64{}, false},
		{nil, false},
	} {
		b := NewBuilder(Config{})
		b.Add(RequestRecord{ID: "r", TimePoints: c.tp})
		rec := &b.requests[0]
		got := rec.timePoints(nil)
		if rec.packed != c.packed || rec.points() != len(c.tp) || len(got) != len(c.tp) {
			t.Errorf("%v: packed %v (want %v), %d points decoded to %v", c.tp, rec.packed, c.packed, rec.points(), got)
			continue
		}
		for i := range got {
			if math.Float64bits(got[i]) != math.Float64bits(c.tp[i]) {
				t.Errorf("%v: point %d decoded to %v", c.tp, i, got[i])
			}
		}
	}
}
