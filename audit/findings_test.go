package audit_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/calc/ssemetrics"
	"github.com/sseaudit/sseaudit/findings"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/pynum"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/render"
	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/samples"
	"github.com/sseaudit/sseaudit/trace"
)

// reportOf replays a JSONL trace with both framers, as `audit report` does
// (record.Each),
// and finalizes it with the thresholds the finding traces are built for.
func reportOf(t *testing.T, path string, cfg audit.Config) (*audit.Report, []*replay.Result) {
	t.Helper()
	r, err := trace.Open(path, trace.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c, ok, err := r.Info().Meta.MaxConcurrency()
	if err != nil || !ok {
		t.Fatalf("%s: max concurrency: %v", path, err)
	}
	cfg.MaxConcurrency = c
	if cfg.Thresholds == (findings.Thresholds{}) {
		cfg.Thresholds = findings.Thresholds{MinWindowSeconds: 1, MinWindowRequests: 2}
	}
	cfg.KeepITLSamples = true
	b := audit.NewBuilder(cfg)
	var results []*replay.Result
	err = record.Each(r, record.Options{Framer: replay.AISBench, Spec: true, KeepReplay: true}, func(rr *record.Replayed) error {
		b.Add(rr.Record)
		results = append(results, rr.Replay)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := b.Finalize()
	if err != nil {
		t.Fatal(err)
	}
	return rep, results
}

func codes(rep *audit.Report) []string {
	var out []string
	for _, f := range rep.Findings {
		s := f.Code
		if f.Stage != "" {
			s += "@" + string(f.Stage)
		}
		out = append(out, s)
	}
	return out
}

func evidence(t *testing.T, f *findings.Finding, name string) float64 {
	t.Helper()
	for _, e := range f.Evidence {
		if e.Name == name {
			return e.Value
		}
	}
	t.Fatalf("%s: no evidence %q in %+v", f.Code, name, f.Evidence)
	return 0
}

// TestFindingTraces: every trace of testdata/traces/findings fires exactly
// the findings it was built for (make.py), with their evidence; the clean
// trace fires none.
func TestFindingTraces(t *testing.T) {
	type want struct {
		evidence map[string]float64 // of the first finding, exact (times in seconds)
		requests []string           // of the first finding
	}
	cases := []struct {
		trace string
		codes []string
		want  want
	}{
		{"clean", nil, want{}},
		{"itl_n", []string{"itl-n-counts-requests@total", "itl-n-counts-requests@stable"},
			want{evidence: map[string]float64{"aisbench_n": 12, "intervals": 47 + 11*39, "zero_intervals": 0}}},
		{"tpot_below_itl", []string{"tpot-below-itl@total", "tpot-below-itl@stable"},
			want{evidence: map[string]float64{"tokens_per_event_mean": 4, "tokens_per_event_max": 4, "requests_with_event_tokens": 12}}},
		{"usage_tail", []string{"usage-tail-sets-end"},
			want{evidence: map[string]float64{"requests": 12, "share_of_successful": 1, "requests_with_shift_known": 12}}},
		{"role_only", []string{"role-only-sets-ttft"},
			want{evidence: map[string]float64{"requests": 12, "requests_with_shift_known": 12}}},
		{"concurrency_capped", []string{"concurrency-capped@stable"}, want{evidence: map[string]float64{"printed": 2}}},
		{"failure_quirk", []string{"failure-index-quirk@stable"},
			want{evidence: map[string]float64{"aisbench_total": 10, "aisbench_success": 9, "aisbench_failed": 1, "intended_success": 10, "intended_failed": 0}}},
		{"comment_in_block", []string{"comment-in-block"},
			want{evidence: map[string]float64{"requests": 1, "comment_blocks": 1, "failed_only_in_aisbench": 0, "requests_losing_events": 1, "events_lost": 1}, requests: []string{"S3"}}},
		{"event_lines", []string{"event-field-lines"},
			want{evidence: map[string]float64{"requests": 1, "field_line_blocks": 4, "failed_only_in_aisbench": 1, "events_lost": 0}, requests: []string{"S10"}}},
		{"multiline_data", []string{"multiline-data"},
			want{evidence: map[string]float64{"requests": 1, "multiline_blocks": 1, "failed_only_in_aisbench": 1}, requests: []string{"S10"}}},
		{"zero_intervals", []string{"zero-intervals@total", "zero-intervals@stable"},
			want{evidence: map[string]float64{"zero_intervals": 1, "intervals": 80, "requests": 1}, requests: []string{"S5"}}},
		{"unknown_tokens", []string{"unknown-token-counts"},
			want{evidence: map[string]float64{"output_missing": 12, "output_zero": 0, "input_missing": 12}}},
		// A buffering proxy: every interval is 0 as well.
		{"buffered", []string{"buffered-stream", "zero-intervals@total", "zero-intervals@stable"},
			want{evidence: map[string]float64{"requests": 12, "share_of_successful": 1, "ttft_equals_e2el": 12, "spread_for_spec_client": 0,
				"total_tpot_row_removed": 1, "total_itl_row_removed": 1}}},
		{"cr_only", []string{"buffered-stream", "zero-intervals@total", "zero-intervals@stable"},
			want{evidence: map[string]float64{"requests": 12, "ttft_equals_e2el": 12, "spread_for_spec_client": 12}}},
		{"below_c", []string{"concurrency-below-c"},
			want{evidence: map[string]float64{"max_concurrency": 3, "peak_in_flight": 2, "share_of_time_at_or_above_90pct_of_c": 0}}},
		// L's 47 intervals against N = 3 also make ITL's N worth a finding.
		{"no_window", []string{"itl-n-counts-requests@total", "no-stable-window@stable"}, want{}},
	}
	for _, tc := range cases {
		t.Run(tc.trace, func(t *testing.T) {
			rep, _ := reportOf(t, "../testdata/traces/findings/"+tc.trace+".jsonl", audit.Config{})
			if got := codes(rep); !slices.Equal(got, tc.codes) {
				t.Fatalf("findings %v, want %v", got, tc.codes)
			}
			if len(tc.codes) == 0 {
				return
			}
			f := &rep.Findings[0]
			for name, v := range tc.want.evidence {
				if got := evidence(t, f, name); got != v {
					t.Errorf("%s: evidence %s = %v, want %v", f.Code, name, got, v)
				}
			}
			if tc.want.requests != nil && !slices.Equal(f.Requests, tc.want.requests) {
				t.Errorf("%s: requests %v, want %v", f.Code, f.Requests, tc.want.requests)
			}
			if f.Message == "" || f.Figure == "" || f.Severity == "" {
				t.Errorf("finding without message, figure or severity: %+v", f)
			}
		})
	}
}

// TestFindingShifts checks the time evidence against the traces' design.
func TestFindingShifts(t *testing.T) {
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	rep, _ := reportOf(t, "../testdata/traces/findings/usage_tail.jsonl", audit.Config{})
	f := rep.Finding(findings.UsageTailSetsEnd, "")
	if m, x := evidence(t, f, "mean_shift"), evidence(t, f, "max_shift"); !near(m, 0.05) || !near(x, 0.05) || f.Severity != findings.SeverityWarning {
		t.Errorf("usage tail shift mean %v max %v (want 50 ms), severity %s", m, x, f.Severity)
	}
	rep, _ = reportOf(t, "../testdata/traces/findings/role_only.jsonl", audit.Config{})
	f = rep.Finding(findings.RoleOnlySetsTTFT, "")
	// role at 30 ms; first text at 100 ms (S) and 200 ms (L).
	if m, x := evidence(t, f, "mean_shift"), evidence(t, f, "max_shift"); !near(m, (0.17+11*0.07)/12) || !near(x, 0.17) {
		t.Errorf("role-only shift mean %v max %v", m, x)
	}
	if got := rep.SSE.Total.Metric(metric.TTFText); got == nil || !near(pynum.NumpyMin(got.Values), 0.1) {
		t.Errorf("TTFText %+v", got)
	}
	rep, _ = reportOf(t, "../testdata/traces/findings/tpot_below_itl.jsonl", audit.Config{})
	f = rep.Finding(findings.TPOTBelowITL, aisbench.StageStable)
	// Stable: S1..S10, events 100 ms apart, 4 tokens each, 16 tokens:
	// TPOT = (400-100)/15 = 20 ms, ITL = 100 ms.
	if tp, it := evidence(t, f, "tpot_mean"), evidence(t, f, "itl_mean"); !near(tp, 0.02) || !near(it, 0.1) {
		t.Errorf("tpot %v itl %v", tp, it)
	}
	wt := rep.SSE.Stable.Windowed
	// The window [S1 start, S10 start] = 9 s; L's events inside: 36 (4 tokens
	// each), S1..S9's 4 events and none of S10's (100 ms after its start), 4 tokens each.
	if wt == nil || wt.Basis != "tokens" || wt.WindowSeconds != 9 {
		t.Fatalf("windowed %+v", wt)
	}
	if want := float64(4 * (36 + 9*4)); wt.Count != want || !near(wt.PerSecond, want/9) {
		t.Errorf("windowed count %v per s %v, want %v", wt.Count, wt.PerSecond, want)
	}
}

// TestITLAccountingByHand: the counts behind ITL equal a count made by hand
// from the design of zero_intervals.jsonl, and a count made from the replayed
// time points.
func TestITLAccountingByHand(t *testing.T) {
	rep, results := reportOf(t, "../testdata/traces/findings/zero_intervals.jsonl", audit.Config{})
	// By hand: L has 48 events (47 intervals), S0..S10 4 events (3 each), S5's
	// 2nd and 3rd in one read (one interval of 0). Stable: S1..S10.
	tot, st := rep.SSE.Total.ITL, rep.SSE.Stable.ITL
	if tot.Requests != 12 || tot.AISBenchN != 12 || tot.RequestsWithIntervals != 12 || tot.Intervals != 47+11*3 || tot.ZeroIntervals != 1 ||
		tot.PerRequestMin != 3 || tot.PerRequestMedian != 3 || tot.PerRequestMax != 47 {
		t.Errorf("total %+v", tot)
	}
	if st.Requests != 10 || st.AISBenchN != 10 || st.Intervals != 30 || st.ZeroIntervals != 1 || st.RequestsWithZero != 1 {
		t.Errorf("stable %+v", st)
	}
	// From the time points, independently of the builder.
	intervals, zero, n := 0, 0, 0
	var means []float64
	for _, res := range results {
		tp := res.TimePointsS
		if len(tp) < 3 {
			continue
		}
		sum, nonzero := 0.0, false
		for i := 2; i < len(tp); i++ {
			d := tp[i] - tp[i-1]
			intervals++
			sum += d
			if d == 0 {
				zero++
			} else {
				nonzero = true
			}
		}
		if nonzero {
			n++
		}
		means = append(means, sum/float64(len(tp)-2))
	}
	if tot.Intervals != intervals || tot.ZeroIntervals != zero || tot.AISBenchN != n {
		t.Errorf("total %d intervals, %d zero, N %d; time points say %d, %d, %d", tot.Intervals, tot.ZeroIntervals, tot.AISBenchN, intervals, zero, n)
	}
	itl := rep.Total.Metric(metric.ITL)
	if itl.N != tot.AISBenchN || len(itl.Values) != tot.Intervals || pynum.NumpyMean(itl.Values) != tot.PooledMeanSeconds {
		t.Errorf("ITL row N %d samples %d, accounting %+v", itl.N, len(itl.Values), tot)
	}
	var per float64
	for _, m := range means {
		per += m
	}
	if math.Abs(per/float64(len(means))-tot.PerRequestMeanSeconds) > 1e-12 {
		t.Errorf("per-request mean %v, by hand %v", tot.PerRequestMeanSeconds, per/float64(len(means)))
	}
	// The pooled mean weighs L's 47 intervals of 250 ms: above the per-request mean.
	if !(tot.PooledMeanSeconds > tot.PerRequestMeanSeconds) {
		t.Errorf("pooled %v, per request %v", tot.PooledMeanSeconds, tot.PerRequestMeanSeconds)
	}
}

func TestParseStatisticAndSLO(t *testing.T) {
	for _, s := range []string{"Average", "P99.9", "P0", "P100", "P50", "P05", "P99.99"} {
		if _, ok := samples.ParseStatistic(s); !ok {
			t.Errorf("%q rejected", s)
		}
	}
	for _, s := range []string{"P", "P101", "P.5", "P5.", "P1.2.3", "p50", "Bogus", "P-1"} {
		if _, ok := samples.ParseStatistic(s); ok {
			t.Errorf("%q accepted", s)
		}
	}
	slo, err := ssemetrics.ParseSLO("TPOT<20ms")
	if err != nil || slo.Metric != metric.TPOT || slo.Op != "<" || slo.Threshold != 0.02 {
		t.Errorf("%+v %v", slo, err)
	}
	if slo, err := ssemetrics.ParseSLO("OutputTokenThroughput >= 30"); err != nil || slo.Op != ">=" || slo.Threshold != 30 {
		t.Errorf("%+v %v", slo, err)
	}
	for _, bad := range []string{"TPOT<20", "ITL<20ms", "Foo<1s", "TPOT", "TPOT<abc ms", "<1s"} {
		if _, err := ssemetrics.ParseSLO(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestSLOAndStats: SLO attainment counted by hand on the clean trace, and a
// statistic AISBench lacks computed from the same samples.
func TestSLOAndStats(t *testing.T) {
	var slos []ssemetrics.SLO
	for _, s := range []string{"E2EL<1s", "TTFContent<=150ms", "TPOT<200ms"} {
		slo, err := ssemetrics.ParseSLO(s)
		if err != nil {
			t.Fatal(err)
		}
		slos = append(slos, slo)
	}
	rep, _ := reportOf(t, "../testdata/traces/findings/clean.jsonl", audit.Config{SLOs: slos, Stats: []string{"Average", "P99.9"}})
	// Total: L (E2EL 11.95 s, first content at 200 ms, TPOT (11.95-0.2)/47 = 250 ms)
	// and S0..S10 (E2EL 400 ms, first content at 100 ms, TPOT 100 ms).
	got := rep.SSE.Total.SLOs
	if len(got) != 3 || got[0].Met != 11 || got[0].Denominator != 12 || got[1].Met != 11 || got[2].Met != 11 || got[0].Fraction != 11.0/12 {
		t.Errorf("total SLOs %+v", got)
	}
	if st := rep.SSE.Stable.SLOs; st[0].Met != 10 || st[0].Denominator != 10 {
		t.Errorf("stable SLOs %+v", st)
	}
	if !slices.Equal(rep.Stats, []string{"Average"}) || !slices.Equal(rep.AllStats, []string{"Average", "P99.9"}) {
		t.Fatalf("stats %v / %v", rep.Stats, rep.AllStats)
	}
	e2el := rep.Total.Metric(metric.E2EL)
	if len(e2el.Extra) != 1 || e2el.Extra[0].Name != "P99.9" || e2el.Extra[0].Raw != pynum.NumpyPercentile(e2el.Values, 99.9) {
		t.Errorf("E2EL extra %+v", e2el.Extra)
	}
	var text bytes.Buffer
	if err := render.Text(&text, rep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"P99.9*", "E2EL<1s", "11 of 12 (91.7%)", "Findings: none."} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q", want)
		}
	}
}

// TestReportJSONWithFindingsValidates: every finding trace's JSON report
// validates against the schema, and every sseaudit metric is at
// metrics.<Name>.<stage>.
func TestReportJSONWithFindingsValidates(t *testing.T) {
	v := loadReportSchema(t)
	for _, name := range []string{"clean", "tpot_below_itl", "buffered", "event_lines", "no_window", "unknown_tokens", "below_c"} {
		slo, _ := ssemetrics.ParseSLO("TTFT<150ms")
		rep, _ := reportOf(t, "../testdata/traces/findings/"+name+".jsonl", audit.Config{SLOs: []ssemetrics.SLO{slo}, Stats: []string{"Average", "P99.9"}})
		var buf bytes.Buffer
		if err := render.JSON(&buf, rep); err != nil {
			t.Fatal(err)
		}
		doc := decodeWithNumbers(t, buf.Bytes())
		if err := v.validate(doc); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		metrics := doc.(map[string]any)["metrics"].(map[string]any)
		for _, stage := range aisbench.Stages {
			for _, m := range rep.SSE.Stage(stage).Metrics {
				if _, ok := metrics[string(m.Name)].(map[string]any)[string(stage)]; !ok {
					t.Errorf("%s: no metrics.%s.%s", name, m.Name, stage)
				}
			}
		}
		if len(rep.Findings) != len(doc.(map[string]any)["findings"].([]any)) {
			t.Errorf("%s: findings not all in JSON", name)
		}
		var csv bytes.Buffer
		if err := render.CSV(&csv, rep); err != nil {
			t.Fatal(err)
		}
		if want := 1 + countMetrics(rep); strings.Count(csv.String(), "\n") != want {
			t.Errorf("%s: CSV has %d lines, want %d:\n%s", name, strings.Count(csv.String(), "\n"), want, csv.String())
		}
	}
}

func countMetrics(rep *audit.Report) int {
	n := 0
	for _, stage := range aisbench.Stages {
		st := rep.Stage(stage)
		n += len(st.Metrics) + len(rep.SSE.Stage(stage).Metrics)
		if st.Err != nil {
			continue
		}
		// The common metrics: duration, three request counts, concurrency,
		// request throughput, two token totals; max concurrency when C is
		// known; three token throughputs when tokens are.
		n += 8
		if rep.MaxConcurrency != 0 {
			n++
		}
		if st.Common.HasTokenThroughput {
			n += 3
		}
	}
	if rep.SSE.Stable.Windowed != nil {
		n++
	}
	return n
}

func ExampleParseSLO() {
	slo, _ := ssemetrics.ParseSLO("TPOT<20ms")
	fmt.Println(slo.Metric, slo.Op, slo.Threshold)
	// Output: TPOT < 0.02
}

// TestSSEFiguresWithoutAISBenchNumbers: a stage whose AISBench numbers are
// unknowable (no token counts) still has its ITL accounting and sseaudit's
// time metrics, which need no tokens.
func TestSSEFiguresWithoutAISBenchNumbers(t *testing.T) {
	rep, _ := reportOf(t, "../testdata/traces/findings/unknown_tokens.jsonl", audit.Config{})
	var tokErr *aisbench.UnknownTokensError
	if !errors.As(rep.Total.Err, &tokErr) {
		t.Fatalf("total error %v", rep.Total.Err)
	}
	if a := rep.SSE.Total.ITL; a == nil || a.Intervals != 47+11*3 || a.AISBenchN != 12 || a.InAISBenchTable {
		t.Errorf("ITL accounting %+v", a)
	}
	if rep.SSE.Total.Metric(metric.TTFContent) == nil || rep.SSE.Stable.Metric(metric.ContentUpdateInterval) == nil {
		t.Error("time metrics missing")
	}
	if wt := rep.SSE.Stable.Windowed; wt == nil || wt.Basis != "output events" || wt.NativeOutputTokenThroughput != nil {
		t.Errorf("windowed %+v", wt)
	}
}
