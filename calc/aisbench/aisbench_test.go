package aisbench_test

import (
	"bytes"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/run"
	"github.com/sseaudit/sseaudit/samples"
)

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

// compute is AISBench's result of the records, ITL's samples kept.
func compute(t testing.TB, cfg aisbench.Config, recs ...record.Request) *aisbench.Result {
	t.Helper()
	r := run.New(nil)
	defer r.Release()
	for _, rec := range recs {
		r.Add(rec)
	}
	cfg.KeepITLSamples = true
	res, err := aisbench.Compute(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// workedExample is semantics §6's five requests.
func workedExample(t *testing.T, cfg aisbench.Config) *aisbench.Result {
	t.Helper()
	var recs []record.Request
	for i, se := range [][2]float64{{0, 3}, {1, 5}, {3.1, 7}, {5.1, 9}, {7.1, 12}} {
		recs = append(recs, record.Request{ID: string(rune('A' + i)), Success: true, TimePoints: spread(se[0], se[1]),
			InputTokens: int64p(1000), OutputTokens: int64p(100)})
	}
	return compute(t, cfg, recs...)
}

// TestWorkedExample checks the numbers of semantics §6 literally.
func TestWorkedExample(t *testing.T) {
	rep := workedExample(t, aisbench.Config{MaxConcurrency: 2})
	var csv bytes.Buffer
	if err := rep.WriteStageCSV(&csv, aisbench.StageTotal); err != nil {
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
	if err := rep.WriteStageJSON(&js, aisbench.StageStable); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), "\"Concurrency\": {\n        \"stable\": 2\n    }") {
		t.Errorf("capped concurrency is not the int 2:\n%s", js.String())
	}
	csv.Reset()
	if err := rep.WriteStageCSV(&csv, aisbench.StageStable); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(csv.String(), "\r\nE2EL,stable,4233.3 ms,") || !strings.Contains(csv.String(), " ms,3\r\n") {
		t.Errorf("stable csv:\n%s", csv.String())
	}
}

// TestFailureIndexQuirk builds the quirk by hand: a failure at trace position
// 2 makes AISBench read success flag 2 (false) for the success-list position 2.
func TestFailureIndexQuirk(t *testing.T) {
	var recs []record.Request
	add := func(ok bool, tp ...float64) {
		recs = append(recs, record.Request{Success: ok, TimePoints: tp, InputTokens: int64p(10), OutputTokens: int64p(5)})
	}
	add(true, 0, 0.5, 2)   // success position 0
	add(true, 1, 1.5, 3)   // 1: reaches C (warm-up)
	add(false, 1.8)        // a failure, trace position 2
	add(true, 2, 2.5, 4)   // success position 2: window start
	add(true, 3, 3.5, 5)   // 3
	add(true, 4, 4.5, 6)   // 4
	add(true, 6.5, 7, 7.5) // 5: after the window
	rep := compute(t, aisbench.Config{MaxConcurrency: 2}, recs...)
	st := rep.Stable
	if st.Err != nil {
		t.Fatal(st.Err)
	}
	q := st.Quirk
	if !q.Changed || q.AISBenchTotal != 3 || q.AISBenchSuccess != 2 || q.AISBenchFailed != 1 || q.IntendedFailed != 0 {
		t.Errorf("quirk %+v", q)
	}
	if st.Common.FailedRequests != 1 || st.Metric(metric.E2EL).N != 2 || st.Metric(metric.TPOT).N != 3 {
		t.Errorf("common %+v, N %d/%d", st.Common, st.Metric(metric.E2EL).N, st.Metric(metric.TPOT).N)
	}
	if rep.Total.Quirk.Changed || rep.Total.Common.FailedRequests != 1 || rep.Total.Common.TotalRequests != 7 {
		t.Errorf("total stage: %+v %+v", rep.Total.Quirk, rep.Total.Common)
	}
}

func TestUnknownTokenCounts(t *testing.T) {
	var recs []record.Request
	for i, se := range [][2]float64{{0, 3}, {1, 5}, {3.1, 7}, {5.1, 9}, {7.1, 12}} {
		rec := record.Request{ID: string(rune('A' + i)), Success: true, TimePoints: spread(se[0], se[1]),
			InputTokens: int64p(1000), OutputTokens: int64p(100)}
		switch i {
		case 0: // before the stable window: only the total stage needs it
			rec.OutputTokens = nil
		case 3:
			rec.OutputTokens = int64p(0)
			rec.InputTokens = nil
		}
		recs = append(recs, rec)
	}
	rep := compute(t, aisbench.Config{MaxConcurrency: 2}, recs...)
	var tokErr *aisbench.UnknownTokensError
	if !errors.As(rep.Total.Err, &tokErr) || tokErr.Kind != "output" || tokErr.Missing != 1 || tokErr.Zero != 1 {
		t.Fatalf("total error %v", rep.Total.Err)
	}
	want := "output token counts unknown for 2 requests (1 with no usage in the body and no output_tokens column, 1 with a count of 0, which AISBench treats as missing): AISBench would have counted them with its tokenizer; " +
		"input token counts unknown for 1 requests (no usage in the body and no input_tokens column): AISBench would have counted them with its tokenizer"
	if got := rep.StageError(aisbench.StageTotal); got != want {
		t.Errorf("total error:\n got %q\nwant %q", got, want)
	}
	if got := rep.StageError(aisbench.StageStable); !strings.HasPrefix(got, "output token counts unknown for 1 requests (a count of 0") {
		t.Errorf("stable error %q", got)
	}
	if rep.Stable.Window == nil || rep.Stable.Window.Selected != 3 {
		t.Errorf("the window does not need token counts: %+v", rep.Stable.Window)
	}
	var buf bytes.Buffer
	if err := rep.WriteStageCSV(&buf, aisbench.StageTotal); !errors.As(err, &tokErr) {
		t.Errorf("WriteAISBenchCSV error %v", err)
	}
}

func TestUnknownMaxConcurrency(t *testing.T) {
	rep := workedExample(t, aisbench.Config{})
	if !errors.Is(rep.Stable.Err, aisbench.ErrUnknownMaxConcurrency) || rep.Total.Err != nil {
		t.Fatalf("errors: total %v, stable %v", rep.Total.Err, rep.Stable.Err)
	}
	var buf bytes.Buffer
	if err := rep.WriteStageCSV(&buf, aisbench.StageTotal); err != nil {
		t.Errorf("total csv does not need C: %v", err)
	}
	if err := rep.WriteStageJSON(&buf, aisbench.StageTotal); !errors.Is(err, aisbench.ErrUnknownMaxConcurrency) {
		t.Errorf("total json without C: %v", err)
	}
}

// A trace without send times: the stable stage and <ds>.json are refused
// with the reason; the total stage's per-request rows and <ds>.csv stand.
func TestNoTimeline(t *testing.T) {
	const reason = "unknown: every request starts at 0"
	rep := workedExample(t, aisbench.Config{MaxConcurrency: 2, NoTimeline: reason})
	var nt *aisbench.NoTimelineError
	if !errors.As(rep.Stable.Err, &nt) || nt.Reason != reason || rep.Total.Err != nil {
		t.Fatalf("errors: total %v, stable %v", rep.Total.Err, rep.Stable.Err)
	}
	plain := workedExample(t, aisbench.Config{MaxConcurrency: 2})
	var got, want bytes.Buffer
	if err := rep.WriteStageCSV(&got, aisbench.StageTotal); err != nil {
		t.Fatal(err)
	}
	if err := plain.WriteStageCSV(&want, aisbench.StageTotal); err != nil || got.String() != want.String() {
		t.Errorf("total csv changed by NoTimeline (%v)", err)
	}
	if err := rep.WriteStageJSON(io.Discard, aisbench.StageTotal); !errors.As(err, &nt) {
		t.Errorf("total json without send times: %v", err)
	}
}

func TestNaNTimePoint(t *testing.T) {
	rep := compute(t, aisbench.Config{MaxConcurrency: 1},
		record.Request{ID: "x", Success: true, TimePoints: []float64{0, math.NaN(), 1}, InputTokens: int64p(1), OutputTokens: int64p(2)})
	var nanErr *aisbench.NaNTimePointError
	if !errors.As(rep.Total.Err, &nanErr) || nanErr.Point != 1 || !errors.As(rep.Stable.Err, &nanErr) {
		t.Errorf("errors %v / %v", rep.Total.Err, rep.Stable.Err)
	}
}

func TestAISBenchErrorsMatchWithErrorsIs(t *testing.T) {
	rep := compute(t, aisbench.Config{MaxConcurrency: 2},
		record.Request{Success: false, TimePoints: []float64{0}},
		record.Request{Success: true, TimePoints: []float64{1}}) // one point: a failure
	if !errors.Is(rep.Total.Err, aisbench.ErrAllRequestsFailed) || errors.Is(rep.Total.Err, aisbench.ErrNoStableStage) {
		t.Errorf("total error %v", rep.Total.Err)
	}
	if rep.Requests.TooFewTimePoints != 1 || rep.Requests.Failed != 2 {
		t.Errorf("requests %+v", rep.Requests)
	}
	if _, err := aisbench.Compute(run.New(nil), aisbench.Config{MaxConcurrency: -1}); err == nil {
		t.Error("negative max concurrency accepted")
	}
}

// A run copies what it is given: the caller's later edits do not leak in.
func TestRunCopiesRecords(t *testing.T) {
	tp := []float64{0, 0.5, 1, 2}
	out := int64(10)
	r := run.New(nil)
	r.Add(record.Request{Success: true, TimePoints: tp, InputTokens: int64p(5), OutputTokens: &out})
	tp[3], out = 100, 1
	rep, err := aisbench.Compute(r, aisbench.Config{MaxConcurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	if e2el := rep.Total.Metric(metric.E2EL).Values[0]; e2el != 2 || rep.Total.Common.TotalGeneratedTokens != 10 {
		t.Errorf("caller's later edits leaked: e2el %v, tokens %d", e2el, rep.Total.Common.TotalGeneratedTokens)
	}
}

func TestParseStage(t *testing.T) {
	for in, want := range map[string]aisbench.Stage{"total": aisbench.StageTotal, "whole": aisbench.StageTotal, "stable": aisbench.StageStable, "native": aisbench.StageStable} {
		if got, err := aisbench.ParseStage(in); err != nil || got != want {
			t.Errorf("ParseStage(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := aisbench.ParseStage("Total"); err == nil {
		t.Error("ParseStage accepted an unknown name")
	}
}

func TestValidateStats(t *testing.T) {
	for _, tc := range []struct {
		in, want []string
		warnings int
	}{
		{nil, aisbench.DefaultStats, 0},
		{[]string{"P05", "Median", "P50", "P50", "Bogus", "P100", "P0"}, []string{"P05", "Median", "P50"}, 3},
		{[]string{"Bogus"}, []string{"Average"}, 2},
		{[]string{"P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8", "P9"}, []string{"P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8"}, 1},
		{[]string{"P1\u0665"}, []string{"P1\u0665"}, 0}, // Python's \d: ARABIC-INDIC FIVE
	} {
		got, warnings := aisbench.ValidateStats(tc.in)
		if strings.Join(got, ",") != strings.Join(tc.want, ",") || len(warnings) != tc.warnings {
			t.Errorf("ValidateStats(%q) = %q, %d warnings %q; want %q, %d", tc.in, got, len(warnings), warnings, tc.want, tc.warnings)
		}
	}
	if p, ok := samples.AISBenchPercent("P1\u0665"); !ok || p != 15 {
		t.Errorf("statPercent(P1٥) = %d, %v", p, ok)
	}
	if p, ok := samples.AISBenchPercent("P007"); !ok || p != 7 {
		t.Errorf("statPercent(P007) = %d, %v", p, ok)
	}
}

// sameFloat is bit equality, except that any NaN equals any NaN.
func sameFloat(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Float64bits(a) == math.Float64bits(b)
}

// pyFloat parses a Python float repr ("inf", "nan" included).
func pyFloat(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return v
}
