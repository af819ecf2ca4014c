package whatif_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/pynum"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/whatif"
)

// load replays a trace as `audit report` does.
func load(t *testing.T, path string) ([]record.Request, []*replay.Result, int) {
	t.Helper()
	r, err := trace.Open(path, trace.OpenOptions{Limits: trace.DefaultLimits})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var recs []record.Request
	var results []*replay.Result
	var rp replay.Replayer
	for r.Scan() {
		res, err := rp.Replay(r.Request(), replay.Options{})
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, res)
		recs = append(recs, record.FromReplay(res))
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	c, ok, err := r.Info().Meta.MaxConcurrency()
	if err != nil || !ok {
		t.Fatalf("%s: max concurrency: %v %v", path, ok, err)
	}
	return recs, results, c
}

func policies(t *testing.T, names ...string) []whatif.Policy {
	t.Helper()
	var ps []whatif.Policy
	for _, n := range names {
		p, err := whatif.ParsePolicy(n)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	return ps
}

func run(t *testing.T, recs []record.Request, c int, names ...string) *whatif.Result {
	t.Helper()
	b, err := whatif.NewBuilder(whatif.Config{MaxConcurrency: c, Policies: policies(t, names...)})
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		b.Add(rec)
	}
	res, err := b.Finalize()
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// handPolicies are the policies written again, independently, over the
// sequence of class names of a request's recorded events.
var handPolicies = map[string]func(classes []string, text []bool) []bool{
	"aisbench": func(cs []string, _ []bool) []bool { return all(len(cs), true) },
	"content": func(cs []string, _ []bool) []bool {
		keep := all(len(cs), false)
		for i, c := range cs {
			keep[i] = c == "content"
		}
		return keep
	},
	"text": func(cs []string, _ []bool) []bool {
		keep := all(len(cs), false)
		for i, c := range cs {
			keep[i] = c == "content" || c == "reasoning"
		}
		return keep
	},
	"no-usage-tail": func(cs []string, text []bool) []bool {
		keep := all(len(cs), true)
		for i := len(cs) - 1; i >= 0 && !text[i]; i-- {
			if cs[i] == "usage_only" || cs[i] == "metadata_only" {
				keep[i] = false
			}
		}
		return keep
	},
	"no-role": func(cs []string, _ []bool) []bool {
		keep := all(len(cs), true)
		for i := 0; i < len(cs) && cs[i] == "role"; i++ {
			keep[i] = false
		}
		return keep
	},
	"keep=content,finish": func(cs []string, _ []bool) []bool {
		keep := all(len(cs), false)
		for i, c := range cs {
			keep[i] = c == "finish" || c == "content"
		}
		return keep
	},
}

func all(n int, v bool) []bool {
	b := make([]bool, n)
	for i := range b {
		b[i] = v
	}
	return b
}

// TestTmShiftsByHand checks every policy's tm, shifts and failures against
// a hand-written table for testdata/shifts.jsonl and against an independent
// computation from the replayed time points and classes.
func TestTmShiftsByHand(t *testing.T) {
	recs, results, c := load(t, "testdata/shifts.jsonl")
	names := []string{"content", "text", "no-usage-tail", "no-role", "keep=content,finish"}
	res := run(t, recs, c, names...)

	// tm in ms on the trace clock (make.py), 0 for a failure.
	want := map[string][]int64{
		"aisbench":            {1160, 1200, 1140, 1120, 0, 1160, 1170, 1100, 1130, 1110},
		"content":             {1140, 1190, 1130, 0, 0, 0, 0, 0, 1120, 0},
		"text":                {1140, 1190, 1130, 0, 0, 0, 1150, 0, 1120, 0},
		"no-usage-tail":       {1150, 1190, 1130, 1100, 0, 1150, 1150, 1100, 1120, 0},
		"no-role":             {1160, 1200, 1140, 1120, 0, 1160, 1170, 0, 1130, 1110},
		"keep=content,finish": {1150, 1190, 1130, 0, 0, 1150, 0, 0, 1120, 0},
	}
	if len(res.Outcomes) != len(names)+1 || res.Original().Policy.Name() != "aisbench" {
		t.Fatalf("outcomes: got %d, the first %s", len(res.Outcomes), res.Original().Policy)
	}
	origTm := make([]float64, len(recs))
	for _, o := range res.Outcomes {
		name := o.Policy.Name()
		hand := handPolicies[name]
		var shifts []float64 // the total stage's moved requests
		failures := 0
		for i, r := range results {
			// The independent computation: time points of recorded events,
			// filtered by the hand-written rule.
			var classes []string
			var text []bool
			var tps []int64
			for _, e := range r.Events {
				if e.Recorded {
					classes = append(classes, e.Class.String())
					text = append(text, e.ContentBytes > 0 || e.ReasoningBytes > 0)
					tps = append(tps, e.TNs)
				}
			}
			var gotTm float64
			success := r.Success && len(r.TimePointsNs) >= 2
			if success {
				keep := hand(classes, text)
				kept := []int64{r.TimePointsNs[0]}
				for k, tp := range tps {
					if keep[k] {
						kept = append(kept, tp)
					}
				}
				success = len(kept) >= 2
				if success {
					gotTm = float64(kept[len(kept)-1]) / 1e9
					t0, first := float64(kept[0])/1e9, float64(kept[1])/1e9
					e2e := gotTm - t0
					tpot := 0.0
					if out := *r.OutputTokens; out > 1 {
						tpot = (e2e - (first - t0)) / float64(out-1)
					}
					ro := o.PerRequest[i]
					if ro.E2ESeconds != (whatif.Number{Value: e2e, Known: true}) || ro.TPOTSeconds != (whatif.Number{Value: tpot, Known: true}) {
						t.Errorf("%s: request %s: E2E %+v TPOT %+v, want %v %v", name, r.RequestID, ro.E2ESeconds, ro.TPOTSeconds, e2e, tpot)
					}
				}
			}
			if !success && r.Success && len(r.TimePointsNs) >= 2 {
				failures++
			}
			wantMs := want[name][i]
			if (wantMs == 0) == success || success && gotTm != float64(wantMs*1_000_000)/1e9 {
				t.Fatalf("%s: request %s: hand computation gives success %v tm %v, table %d ms: fix the table or the hand rule", name, r.RequestID, success, gotTm, wantMs)
			}
			ro := o.PerRequest[i]
			if ro.Success != success || success && ro.TmSeconds != gotTm {
				t.Errorf("%s: request %s: got success %v tm %v, want %v %v", name, r.RequestID, ro.Success, ro.TmSeconds, success, gotTm)
			}
			if !success && (ro.E2ESeconds.Known || ro.TPOTSeconds.Known) {
				t.Errorf("%s: request %s failed but has E2E %+v, TPOT %+v", name, r.RequestID, ro.E2ESeconds, ro.TPOTSeconds)
			}
			if o.Policy.IsOriginal() {
				origTm[i] = gotTm
				continue
			}
			if success {
				shift := origTm[i] - gotTm
				if !ro.TmShiftSeconds.Known || ro.TmShiftSeconds.Value != shift {
					t.Errorf("%s: request %s: shift %+v, want %v", name, r.RequestID, ro.TmShiftSeconds, shift)
				}
				if shift != 0 {
					shifts = append(shifts, shift)
				}
			} else if ro.TmShiftSeconds.Known {
				t.Errorf("%s: request %s failed but has a shift %v", name, r.RequestID, ro.TmShiftSeconds.Value)
			}
		}
		if len(o.NewFailures) != failures {
			t.Errorf("%s: %d new failures, want %d", name, len(o.NewFailures), failures)
		}
		total := o.Stage(aisbench.StageTotal)
		if total.TmMoved != len(shifts) {
			t.Errorf("%s: total: %d tm moved, want %d", name, total.TmMoved, len(shifts))
		}
		if len(shifts) == 0 {
			if total.TmShift != nil {
				t.Errorf("%s: a shift summary without moved requests: %+v", name, total.TmShift)
			}
			continue
		}
		if total.TmShift == nil {
			t.Fatalf("%s: no shift summary", name)
		}
		s := total.TmShift
		if s.MeanSeconds != pynum.NumpyMean(shifts) || s.P90Seconds != pynum.NumpyPercentile(shifts, 90) || s.MaxSeconds != slices.Max(shifts) {
			t.Errorf("%s: shift %v/%v/%v, want %v/%v/%v", name, s.MeanSeconds, s.P90Seconds, s.MaxSeconds,
				pynum.NumpyMean(shifts), pynum.NumpyPercentile(shifts, 90), slices.Max(shifts))
		}
	}
	// A few figures by hand, in ms: content moves a by 20, b, c and i by 10
	// (and fails the rest).
	ct := res.Outcomes[1].Stage(aisbench.StageTotal)
	if ct.TmMoved != 4 || ct.Compared != 4 || math.Abs(ct.TmShift.MaxSeconds-0.020) > 1e-12 ||
		math.Abs(ct.TmShift.MeanSeconds-0.0125) > 1e-12 {
		t.Errorf("content: moved %d of %d, shift %+v; want 4 of 4, max 20 ms, mean 12.5 ms", ct.TmMoved, ct.Compared, ct.TmShift)
	}
	if got := res.Outcomes[1].NewFailureIDs; !slices.Equal(got, []string{"d", "f", "g", "h", "j"}) {
		t.Errorf("content: new failures %q, want d, f, g, h and j", got)
	}
	// no-role moves no tm (a, b, d, f, g lose their first event, i its first
	// two) and fails h, whose one event is role-only.
	if nr := res.Outcomes[4]; nr.Stage(aisbench.StageTotal).TmMoved != 0 || nr.TimePointsDropped != 8 || !slices.Equal(nr.NewFailureIDs, []string{"h"}) {
		t.Errorf("no-role: %d moved, %d time points dropped, failures %q; want 0, 8, h", nr.Stage(aisbench.StageTotal).TmMoved, nr.TimePointsDropped, nr.NewFailureIDs)
	}
}

// TestOriginalUnaltered: the original's report is exactly what audit's own
// builder makes of the records.
func TestOriginalUnaltered(t *testing.T) {
	recs, _, c := load(t, "../testdata/traces/basic.jsonl")
	res := run(t, recs, c, "content", "no-role")
	b := audit.NewBuilder(audit.Config{MaxConcurrency: c})
	for _, r := range recs {
		b.Add(r)
	}
	want, err := b.Finalize()
	if err != nil {
		t.Fatal(err)
	}
	if !sameReport(t, res.Original().Report, &want.Result) {
		t.Error("the original's report differs from audit's")
	}
	// A policy keeping every class changes nothing either: zero deltas.
	all := "keep=" + strings.Join(classNames(), ",")
	res = run(t, recs, c, all)
	p := res.Outcomes[1]
	if !sameReport(t, p.Report, &want.Result) || p.TimePointsDropped != 0 {
		t.Errorf("%s: report differs from the original, or %d time points dropped", all, p.TimePointsDropped)
	}
	for _, st := range p.Stages {
		if st.TmMoved != 0 || st.TmShift != nil {
			t.Errorf("%s: %s: %d moved", all, st.Stage, st.TmMoved)
		}
		for _, md := range st.Delta.Metrics {
			for _, d := range append(md.Stats, md.N, md.Samples) {
				if !d.Known || d.Value != 0 {
					t.Errorf("%s: %s: %s: delta %+v", all, st.Stage, md.Name, d)
				}
			}
		}
	}
}

// sameReport compares two results field by field, at full precision, and
// by AISBench's files of each stage, byte for byte.
func sameReport(t *testing.T, a, b *aisbench.Result) bool {
	t.Helper()
	if a.Requests != b.Requests || !slices.Equal(a.Stats, b.Stats) || a.MaxConcurrency != b.MaxConcurrency {
		return false
	}
	for _, s := range aisbench.Stages {
		x, y := *a.Stage(s), *b.Stage(s)
		if fmt.Sprint(x.Err) != fmt.Sprint(y.Err) {
			return false
		}
		x.Err, y.Err = nil, nil
		if !reflect.DeepEqual(x, y) {
			return false
		}
		for _, write := range []func(*aisbench.Result, *bytes.Buffer) error{
			func(r *aisbench.Result, w *bytes.Buffer) error { return r.WriteStageCSV(w, s) },
			func(r *aisbench.Result, w *bytes.Buffer) error { return r.WriteStageJSON(w, s) },
		} {
			var aw, bw bytes.Buffer
			errA, errB := write(a, &aw), write(b, &bw)
			if fmt.Sprint(errA) != fmt.Sprint(errB) || aw.String() != bw.String() {
				return false
			}
		}
	}
	return true
}

func classNames() []string {
	var names []string
	for _, c := range whatif.KeepClasses {
		names = append(names, c.String())
	}
	return names
}

// TestWindowMoves: on testdata/window.jsonl (the worked example's starts and
// ends, C = 2), dropping b's usage tail ends b at 12.9 s instead of 15 s:
// the stable window starts at the next second reach of C (15.1 s, not
// 13.1 s) and selects d and e instead of c, d and e.
func TestWindowMoves(t *testing.T) {
	recs, _, c := load(t, "testdata/window.jsonl")
	res := run(t, recs, c, "no-usage-tail")
	s := func(ms int64) float64 { return float64(ms*1_000_000) / 1e9 }

	orig := res.Original().Stage(aisbench.StageStable).Result
	if w := orig.Window; w == nil || w.StartSeconds != s(13100) || w.EndSeconds != s(17100) || w.Selected != 3 || !slices.Equal(orig.Requests, []int{2, 3, 4}) {
		t.Fatalf("original window %+v, requests %v; want 13.1 to 17.1 s, c d e", w, orig.Requests)
	}
	st := res.Outcomes[1].Stage(aisbench.StageStable)
	got := st.Result
	if w := got.Window; w == nil || w.StartSeconds != s(15100) || w.EndSeconds != s(17100) || w.Selected != 2 || !slices.Equal(got.Requests, []int{3, 4}) {
		t.Fatalf("no-usage-tail window %+v, requests %v; want 15.1 to 17.1 s, d e", w, got.Requests)
	}
	d := st.Delta
	if d.WindowStartSeconds != (whatif.Number{Value: s(15100) - s(13100), Known: true}) ||
		d.WindowEndSeconds != (whatif.Number{Value: 0, Known: true}) || d.WindowSelected != (whatif.Number{Value: -1, Known: true}) ||
		d.Requests != (whatif.Number{Value: -1, Known: true}) {
		t.Errorf("window deltas %+v", d)
	}
	// b, the only request whose tm moved (by 2.1 s), is outside the new window.
	if st.TmMoved != 0 || st.Compared != 2 {
		t.Errorf("stable: %d moved of %d", st.TmMoved, st.Compared)
	}
	tot := res.Outcomes[1].Stage(aisbench.StageTotal)
	if tot.TmMoved != 1 || tot.TmShift.MaxSeconds != s(15000)-s(12900) {
		t.Errorf("total: %d moved, shift %+v; want 1 by 2.1 s", tot.TmMoved, tot.TmShift)
	}
	// Concurrency over the new window: (E2E of d and e) / 2 s.
	wantC := (s(19000) - s(15100) + (s(22000) - s(17100))) / (s(17100) - s(15100))
	if c := got.Common.Concurrency.Raw; math.Abs(c-wantC) > 1e-12 {
		t.Errorf("stable concurrency %v, want %v", c, wantC)
	}
}

func TestParsePolicy(t *testing.T) {
	for _, tc := range []struct{ in, name string }{
		{"aisbench", "aisbench"}, {"content", "content"}, {"text", "text"},
		{"no-usage-tail", "no-usage-tail"}, {"no-role", "no-role"},
		{"keep=content", "keep=content"},
		{"keep=usage_only,content,reasoning", "keep=reasoning,content,usage_only"},
		{"keep=error,malformed,metadata_only,finish,tool_call", "keep=tool_call,finish,metadata_only,malformed,error"},
	} {
		p, err := whatif.ParsePolicy(tc.in)
		if err != nil || p.Name() != tc.name {
			t.Errorf("ParsePolicy(%q) = %q, %v; want %q", tc.in, p.Name(), err, tc.name)
		}
	}
	for _, tc := range []struct{ in, msg string }{
		{"", "unknown policy"},
		{"contents", "unknown policy"},
		{"keep", "unknown policy"},
		{"keep=", "needs at least one class"},
		{"keep=content,", `unknown class ""`},
		{"keep=Content", `unknown class "Content"`},
		{"keep=done", `unknown class "done"`},
		{"keep=comment", `unknown class "comment"`},
		{"keep=content,content", `class "content" given twice`},
	} {
		_, err := whatif.ParsePolicy(tc.in)
		var pe *whatif.PolicyError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("ParsePolicy(%q): %v, want a PolicyError with %q", tc.in, err, tc.msg)
			continue
		}
		// Every error names the valid classes, or the class at fault.
		if !strings.Contains(tc.msg, "twice") && !strings.Contains(err.Error(), "role, reasoning, content, tool_call, finish, usage_only, metadata_only, malformed, error") {
			t.Errorf("ParsePolicy(%q): %v does not list the classes", tc.in, err)
		}
	}
}

func TestBuilderPolicies(t *testing.T) {
	if _, err := whatif.NewBuilder(whatif.Config{Policies: policies(t, "content", "text", "content")}); err == nil {
		t.Error("a policy given twice: no error")
	}
	if _, err := whatif.NewBuilder(whatif.Config{Policies: []whatif.Policy{{}}}); err == nil {
		t.Error("a zero policy: no error")
	}
	// aisbench is the original, always first, never repeated.
	recs, _, c := load(t, "testdata/shifts.jsonl")
	res := run(t, recs, c, "text", "aisbench")
	if len(res.Outcomes) != 2 || res.Outcomes[0].Policy.Name() != "aisbench" || res.Outcomes[1].Policy.Name() != "text" {
		t.Errorf("outcomes %v %v", res.Outcomes[0].Policy, res.Outcomes[len(res.Outcomes)-1].Policy)
	}
}

// TestUnfilterable: time points without events cannot be filtered; the
// original alone still works.
func TestUnfilterable(t *testing.T) {
	recs, _, c := load(t, "testdata/time_points.jsonl")
	b, err := whatif.NewBuilder(whatif.Config{MaxConcurrency: c, Policies: policies(t, "content")})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		b.Add(r)
	}
	_, err = b.Finalize()
	var ue *whatif.UnfilterableError
	if !errors.As(err, &ue) || ue.ID != "t0" || ue.Count != 1 || !strings.Contains(err.Error(), "cannot be filtered") {
		t.Fatalf("got %v, want an UnfilterableError for t0", err)
	}
	res := run(t, recs, c, "aisbench")
	if len(res.Outcomes) != 1 || res.Original().Report.Total.Err != nil {
		t.Errorf("aisbench alone: %d outcomes, total error %v", len(res.Outcomes), res.Original().Report.Total.Err)
	}
}

// TestDeterministic: the same input gives the same bytes, and the JSON has
// the documented layout.
func TestDeterministic(t *testing.T) {
	recs, _, c := load(t, "../testdata/traces/basic.jsonl")
	render := func() (string, string) {
		res := run(t, recs, c, "content", "text", "no-usage-tail", "no-role", "keep=content,finish")
		var txt, js bytes.Buffer
		opt := whatif.RenderOptions{PerRequest: true}
		if err := res.WriteText(&txt, opt); err != nil {
			t.Fatal(err)
		}
		if err := res.WriteJSON(&js, opt); err != nil {
			t.Fatal(err)
		}
		return txt.String(), js.String()
	}
	t1, j1 := render()
	for range 3 {
		if t2, j2 := render(); t1 != t2 || j1 != j2 {
			t.Fatal("two runs render differently")
		}
	}
	var doc struct {
		Policies map[string]struct {
			Stages map[string]struct {
				RequestsTmMoved *int               `json:"requests_tm_moved"`
				TmShiftMs       map[string]float64 `json:"tm_shift_ms"`
				Window          map[string]any     `json:"window"`
				Metrics         map[string]struct {
					Average *float64 `json:"Average"`
					P90     *float64 `json:"P90"`
					N       *int     `json:"N"`
					Samples *int     `json:"samples"`
				} `json:"metrics"`
			} `json:"stages"`
		} `json:"policies"`
	}
	if err := json.Unmarshal([]byte(j1), &doc); err != nil {
		t.Fatal(err)
	}
	st := doc.Policies["content"].Stages["stable"]
	e2e := st.Metrics["E2EL"]
	if st.RequestsTmMoved == nil || *st.RequestsTmMoved != 7 || len(st.TmShiftMs) != 3 || st.Window["selected"] == nil ||
		e2e.Average == nil || e2e.P90 == nil || e2e.N == nil || e2e.Samples == nil {
		t.Errorf("policies.content.stages.stable lacks documented fields: %+v", st)
	}
	if len(doc.Policies) != 6 {
		t.Errorf("%d policies in JSON, want 6", len(doc.Policies))
	}
}
