package audit_test

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/figures"
	"github.com/sseaudit/sseaudit/findings"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/pynum"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/render"
	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/table"
)

// The in-flight curve of the worked example, by hand.
func TestInFlightCurveByHand(t *testing.T) {
	rep := workedExample(t, audit.Config{MaxConcurrency: 2})
	c := rep.Figures.InFlight
	type step struct {
		t float64
		n int
	}
	want := []step{{0, 1}, {1, 2}, {3, 1}, {3.1, 2}, {5, 1}, {5.1, 2}, {7, 1}, {7.1, 2}, {9, 1}, {12, 0}}
	if len(c.Points) != len(want) || c.Bucketed {
		t.Fatalf("points %+v, want %v", c.Points, want)
	}
	for i, p := range c.Points {
		if p.Seconds != want[i].t || p.InFlight != want[i].n || p.Min > p.InFlight || p.Max < p.InFlight {
			t.Errorf("point %d = %+v, want %v", i, p, want[i])
		}
	}
	if c.FirstReach == nil || c.FirstReach.Seconds != 1 || c.WindowStart.Seconds != 3.1 || c.WindowEnd.Seconds != 7.1 {
		t.Errorf("marks %+v %+v %+v, want 1, 3.1, 7.1", c.FirstReach, c.WindowStart, c.WindowEnd)
	}
	if !c.HasWindow || c.WindowFrom != 3.1 || c.WindowTo != 7.1 || c.SelectedInWindow != 3 || c.OfIn != 5 {
		t.Errorf("window %v..%v, %d of %d; want 3.1..7.1, 3 of 5", c.WindowFrom, c.WindowTo, c.SelectedInWindow, c.OfIn)
	}
	if f := rep.Figures; f.RunSeconds != 12 || f.OriginSeconds != 0 {
		t.Errorf("run %v from %v, want 12 from 0", f.RunSeconds, f.OriginSeconds)
	}
}

// Events at one instant: the curve keeps the count after them and the range
// passed through.
func TestInFlightCurveTies(t *testing.T) {
	b := audit.NewBuilder(audit.Config{MaxConcurrency: 2})
	out := int64(5)
	for _, tp := range [][]float64{{0, 1, 2}, {1, 1.5, 3}, {2, 2.5, 4}} {
		b.Add(record.Request{Success: true, TimePoints: tp, InputTokens: &out, OutputTokens: &out})
	}
	rep, err := b.Finalize()
	if err != nil {
		t.Fatal(err)
	}
	// At t = 2 request 0 ends and request 2 starts: AISBench's stable sort
	// puts the end (appended earlier) first: 2 -> 1 -> 2.
	for _, p := range rep.Figures.InFlight.Points {
		if p.Seconds == 2 {
			if p.InFlight != 2 || p.Min != 1 || p.Max != 2 || p.StartsAtPoint != 1 {
				t.Errorf("point at 2 s = %+v, want count 2, range 1..2, one start", p)
			}
			return
		}
	}
	t.Fatal("no point at 2 s")
}

// A long run is bucketed: at most figures.MaxCurvePoints points, and the envelope
// still holds the true peak.
func TestInFlightCurveBucketed(t *testing.T) {
	b := audit.NewBuilder(audit.Config{MaxConcurrency: 4})
	out := int64(5)
	for i := range 3000 {
		s := float64(i) * 0.01
		b.Add(record.Request{ID: "r", Success: true, TimePoints: []float64{s, s + 0.005, s + 0.0371}, InputTokens: &out, OutputTokens: &out})
	}
	rep, err := b.Finalize()
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Figures.InFlight
	if !c.Bucketed || len(c.Points) > figures.MaxCurvePoints || c.Events != 6000 {
		t.Fatalf("bucketed %v, %d points, %d events", c.Bucketed, len(c.Points), c.Events)
	}
	peak := 0
	for _, p := range c.Points {
		peak = max(peak, p.Max)
		if p.Min > p.InFlight || p.Max < p.InFlight {
			t.Fatalf("point %+v outside its range", p)
		}
	}
	if peak != rep.Window.PeakInFlight || peak != 4 {
		t.Errorf("envelope peak %d, window analysis %d, want 4", peak, rep.Window.PeakInFlight)
	}
	if last := c.Points[len(c.Points)-1]; last.InFlight != 0 {
		t.Errorf("last point %+v, want 0 in flight", last)
	}
}

// binByHand counts values in the bins [edges[i], edges[i+1]), the zeros
// apart, one bin after another.
func binByHand(edges, values []float64) (counts []int, zero int) {
	counts = make([]int, len(edges)-1)
	for _, x := range values {
		if x == 0 {
			zero++
			continue
		}
		for i := range counts {
			if edges[i] <= x && x < edges[i+1] {
				counts[i]++
				break
			}
		}
	}
	return counts, zero
}

// The histograms hold every sample once, on bins whose edges contain it, and
// their means are the report's.
func TestDistributions(t *testing.T) {
	rep, results := reportOf(t, "../testdata/traces/findings/zero_intervals.jsonl", audit.Config{})
	if len(rep.Figures.Distributions) == 0 {
		t.Fatal("no distributions")
	}
	for _, d := range rep.Figures.Distributions {
		st := rep.Stage(d.Stage)
		for _, pair := range []struct {
			dist   *figures.Distribution
			values []float64
		}{{d.ITL, st.Metric(metric.ITL).Values}, {d.Content, contentGapPool(st, results)}} {
			ds := pair.dist
			if m := rep.SSE.Stage(d.Stage).Metric(pair.dist.Metric); m != nil && m.Samples != ds.Samples {
				t.Errorf("%s %s: %d samples, the metric has %d", d.Stage, ds.Metric, ds.Samples, m.Samples)
			}
			if ds.Samples != len(pair.values) {
				t.Errorf("%s %s: %d samples, the metric has %d", d.Stage, ds.Metric, ds.Samples, len(pair.values))
			}
			want, zero := binByHand(d.Edges, pair.values)
			if !slices.Equal(ds.Counts, want) || ds.Zero != zero {
				t.Errorf("%s %s: counts %v zero %d, want %v zero %d", d.Stage, ds.Metric, ds.Counts, ds.Zero, want, zero)
			}
		}
		acc := rep.SSE.Stage(d.Stage).ITL
		if d.ITL.PooledMeanSeconds != acc.PooledMeanSeconds || d.ITL.PerRequestMeanSeconds != acc.PerRequestMeanSeconds {
			t.Errorf("%s: ITL means %v %v, accounting %v %v", d.Stage, d.ITL.PooledMeanSeconds, d.ITL.PerRequestMeanSeconds, acc.PooledMeanSeconds, acc.PerRequestMeanSeconds)
		}
		if d.ITL.N != st.Metric(metric.ITL).N || d.ITL.Zero != acc.ZeroIntervals || d.ITL.Zero == 0 {
			t.Errorf("%s: ITL N %d zero %d, report N %d zero %d (the trace has zero intervals)", d.Stage, d.ITL.N, d.ITL.Zero, st.Metric(metric.ITL).N, acc.ZeroIntervals)
		}
		if d.Content.PooledMeanSeconds != rep.SSE.Stage(d.Stage).Metric(metric.ContentUpdateInterval).Stats[0].Raw {
			t.Errorf("%s: content pooled mean %v, metric's Average %v", d.Stage, d.Content.PooledMeanSeconds, rep.SSE.Stage(d.Stage).Metric(metric.ContentUpdateInterval).Stats[0].Raw)
		}
	}
}

// The bins follow the data (issue 20): at least figures.MinBins of them
// across the range of the positive samples, and the counts still those of
// binning by hand. Intervals of 10 to 30 ms, as a chat run has, once fell
// in five bins of ten a decade.
func TestDistributionBinsFollowData(t *testing.T) {
	narrow := audit.NewBuilder(audit.Config{MaxConcurrency: 2, KeepITLSamples: true})
	out := int64(40)
	for i := range 20 {
		s := float64(i) * 0.5
		tp := []float64{s, s + 0.1}
		for j := range 40 {
			tp = append(tp, tp[len(tp)-1]+0.010+0.020*float64((i*41+j*17)%97)/96) // 10 to 30 ms
		}
		narrow.Add(record.Request{Success: true, TimePoints: tp, InputTokens: &out, OutputTokens: &out})
	}
	narrowRep, err := narrow.Finalize()
	if err != nil {
		t.Fatal(err)
	}
	basic, _ := reportOf(t, "../testdata/traces/basic.jsonl", audit.Config{})
	for _, c := range []struct {
		name      string
		rep       *audit.Report
		perDecade int
	}{{"10-30 ms", narrowRep, 50}, {"basic.jsonl: 1 to 27 ms", basic, 20}} {
		for _, d := range c.rep.Figures.Distributions {
			values := c.rep.Stage(d.Stage).Metric(metric.ITL).Values
			lo, hi := math.Inf(1), 0.0
			for _, x := range values {
				if x > 0 {
					lo, hi = min(lo, x), max(hi, x)
				}
			}
			across := float64(d.BinsPerDecade) * math.Log10(hi/lo)
			if d.BinsPerDecade != c.perDecade || across < figures.MinBins {
				t.Errorf("%s %s: %d bins a decade, %.1f across [%v, %v]; want %d a decade, %d or more across", c.name, d.Stage, d.BinsPerDecade, across, lo, hi, c.perDecade, figures.MinBins)
			}
			want, zero := binByHand(d.Edges, values)
			if !slices.Equal(d.ITL.Counts, want) || d.ITL.Zero != zero {
				t.Errorf("%s %s: counts %v zero %d, want %v zero %d", c.name, d.Stage, d.ITL.Counts, d.ITL.Zero, want, zero)
			}
			t.Logf("%s %s: intervals in [%.4g, %.4g] s: %d bins at %d a decade", c.name, d.Stage, lo, hi, len(d.Edges)-1, d.BinsPerDecade)
		}
	}
}

// The timelines of a small run hold every request; the event that sets tm
// of a usage-tail run is the usage-only event.
func TestTimelinesUsageTail(t *testing.T) {
	rep, results := reportOf(t, "../testdata/traces/findings/usage_tail.jsonl", audit.Config{})
	tl := rep.Figures.Timelines
	if len(tl.Requests) != rep.Requests.Succeeded || tl.Of != rep.Requests.Succeeded || tl.Rule != "every successful request" {
		t.Fatalf("%d timelines of %d, rule %q", len(tl.Requests), tl.Of, tl.Rule)
	}
	usageTail := 0
	for _, r := range tl.Requests {
		res := results[r.Index]
		if r.ID != res.RequestID || len(r.Events) != len(res.TimePointsS)-1 {
			t.Fatalf("timeline %+v does not match replay %s (%d time points)", r, res.RequestID, len(res.TimePointsS))
		}
		if r.Tm != r.Events[len(r.Events)-1].Seconds || r.T0 > r.Events[0].Seconds {
			t.Errorf("%s: t0 %v tm %v, events %v", r.ID, r.T0, r.Tm, r.Events)
		}
		if r.TmClass == replay.ClassUsageOnly.String() {
			usageTail++
			if !(r.LastTextSeconds < r.Tm) || r.EventsAfterLastText < 1 {
				t.Errorf("%s: usage tail, but last text at %v, tm %v, %d after", r.ID, r.LastTextSeconds, r.Tm, r.EventsAfterLastText)
			}
		}
	}
	var finding *findings.Finding
	for i := range rep.Findings {
		if rep.Findings[i].Code == findings.UsageTailSetsEnd {
			finding = &rep.Findings[i]
		}
	}
	if finding == nil || usageTail != len(finding.Requests) {
		t.Errorf("%d timelines end on a usage-only event; the finding names %v", usageTail, finding)
	}
	// Over every successful request: the classes that set tm and TTFT, by hand
	// from the replayed events.
	tm, ttft := map[string]int{}, map[string]int{}
	for _, res := range results {
		var recorded []replay.Class
		for _, e := range res.Events {
			if e.Recorded {
				recorded = append(recorded, e.Class)
			}
		}
		if res.Success && len(recorded) > 0 {
			tm[recorded[len(recorded)-1].String()]++
			ttft[recorded[0].String()]++
		}
	}
	for _, c := range []struct {
		got  []figures.ClassCount
		want map[string]int
	}{{rep.Figures.TmSetBy, tm}, {rep.Figures.TTFTSetBy, ttft}} {
		sum := 0
		for i, cc := range c.got {
			sum += cc.Requests
			if c.want[cc.Class] != cc.Requests || (i > 0 && c.got[i-1].Requests < cc.Requests) {
				t.Errorf("set by %v, want %v (most first)", c.got, c.want)
			}
		}
		if sum != rep.Requests.Succeeded {
			t.Errorf("set by %v sums to %d, %d succeeded", c.got, sum, rep.Requests.Succeeded)
		}
	}
	if rep.Figures.TmSetBy[0].Class != "usage_only" {
		t.Errorf("tm set by %v, want usage_only first", rep.Figures.TmSetBy)
	}
}

// A large run is sampled by a fixed rule: the slowest, the fastest, the
// first request of each finding and a fixed pseudo-random few, the same
// every time.
func TestTimelinesSample(t *testing.T) {
	build := func() *audit.Report {
		b := audit.NewBuilder(audit.Config{MaxConcurrency: 4})
		out := int64(20)
		for i := range 200 {
			s := float64(i) * 0.1
			e2e := 0.3 + float64((i*37)%200)/100
			b.Add(record.Request{ID: "q" + strings.Repeat("x", i%3) + string(rune('a'+i%26)), Success: true,
				TimePoints: []float64{s, s + 0.1, s + e2e/2, s + e2e}, InputTokens: &out, OutputTokens: &out})
		}
		rep, err := b.Finalize()
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	a, b := build().Figures.Timelines, build().Figures.Timelines
	if len(a.Requests) != len(b.Requests) {
		t.Fatal("two runs sample differently")
	}
	for i := range a.Requests {
		if a.Requests[i].Index != b.Requests[i].Index {
			t.Fatal("two runs sample differently")
		}
	}
	if a.Of != 200 || !regexp.MustCompile(`^5 slowest and 5 fastest`).MatchString(a.Rule) {
		t.Errorf("of %d, rule %q", a.Of, a.Rule)
	}
	count := map[string]int{}
	slowest, fastest := 0.0, math.Inf(1)
	for i, r := range a.Requests {
		if i > 0 && a.Requests[i-1].Index >= r.Index {
			t.Error("timelines not in trace order")
		}
		for _, w := range r.Why {
			count[w]++
		}
		if slices.Contains(r.Why, "slowest") {
			slowest = max(slowest, r.E2ESeconds)
		}
		if slices.Contains(r.Why, "fastest") {
			fastest = min(fastest, r.E2ESeconds)
		}
	}
	if count["slowest"] != 5 || count["fastest"] != 5 || count["sampled"] != 8 {
		t.Errorf("why counts %v", count)
	}
	if slowest != 2.29 || fastest != 0.3 {
		t.Errorf("slowest %v fastest %v, want 2.29 and 0.3", slowest, fastest)
	}
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

// The coloured text is the plain text with escapes added, and colours the
// severities.
func TestWriteTextColor(t *testing.T) {
	rep, _ := reportOf(t, "../testdata/traces/findings/usage_tail.jsonl", audit.Config{})
	var plain, color strings.Builder
	if err := render.Text(&plain, rep); err != nil {
		t.Fatal(err)
	}
	if err := render.TextColor(&color, rep); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "\x1b") {
		t.Fatal("plain text holds escapes")
	}
	if got := ansi.ReplaceAllString(color.String(), ""); got != plain.String() {
		t.Errorf("colour text without escapes differs from the plain text:\n%s", got)
	}
	for _, want := range []string{table.Bold + "Findings (", table.Yellow + "warning", table.Bold + "Metric "} {
		if !strings.Contains(color.String(), want) {
			t.Errorf("colour text lacks %q", want)
		}
	}
	// The report itself is not changed by rendering in colour.
	plain.Reset()
	render.Text(&plain, rep)
	if strings.Contains(plain.String(), "\x1b") {
		t.Error("WriteTextColor left the report coloured")
	}
}

// Markdown carries the text report's numbers, cell for cell.
func TestWriteMarkdownMatchesText(t *testing.T) {
	rep, _ := reportOf(t, "../testdata/traces/findings/tpot_below_itl.jsonl", audit.Config{})
	var text, md strings.Builder
	if err := render.Text(&text, rep); err != nil {
		t.Fatal(err)
	}
	if err := render.Markdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	rows := func(s, prefix string, strip func(string) []string) map[string][]string {
		out := map[string][]string{}
		for _, line := range strings.Split(s, "\n") {
			f := strip(line)
			if len(f) > 2 && strings.HasPrefix(line, prefix) {
				if _, seen := out[f[0]]; !seen {
					out[f[0]] = f
				}
			}
		}
		return out
	}
	textRows := rows(text.String(), "", func(l string) []string {
		return slices.DeleteFunc(strings.Fields(l), func(s string) bool { return s == "|" })
	})
	mdRows := rows(md.String(), "| ", func(l string) []string {
		var cells []string
		for _, c := range strings.Split(strings.Trim(l, "| "), " | ") {
			cells = append(cells, strings.TrimSpace(c))
		}
		return cells
	})
	checked := 0
	for _, m := range metric.AISBench {
		tr, mr := textRows[string(m)], mdRows[string(m)]
		if tr == nil {
			continue
		}
		if !slices.Equal(tr, mr) {
			t.Errorf("%s: text %v, markdown %v", m, tr, mr)
		}
		checked++
	}
	if checked < 6 {
		t.Errorf("only %d AISBench rows compared", checked)
	}
	if !strings.Contains(md.String(), "`tpot-below-itl`") || !strings.Contains(md.String(), "|---|---|---:|") {
		t.Errorf("markdown lacks the finding or a table:\n%s", md.String())
	}
}

// contentGapPool is a stage's ContentUpdateInterval samples, pooled from its
// requests' records: the report does not keep them.
func contentGapPool(st *aisbench.StageResult, results []*replay.Result) []float64 {
	var pool []float64
	for _, idx := range st.Requests {
		rec := record.FromReplay(results[idx])
		var ts []float64
		for i, e := range rec.Events {
			if e.HasContent() {
				ts = append(ts, rec.TimePoints[i+1])
			}
		}
		pool = append(pool, pynum.NumpyDiff(ts)...)
	}
	return pool
}
