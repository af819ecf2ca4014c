package htmlreport

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/render"
	"github.com/sseaudit/sseaudit/samples"
	"github.com/sseaudit/sseaudit/table"
	"github.com/sseaudit/sseaudit/unit"
	"github.com/sseaudit/sseaudit/whatif"
)

// The views of the page's table sections: AISBench's, sseaudit's, the
// what-if and the findings (sections.html.tmpl, tables.html.tmpl).

// statTable is AISBench's table or sseaudit's metrics: the stages one
// under the other (so that the table is as narrow as one stage's), each a
// heading row and a row a metric: the statistics, N and samples.
type statTable struct {
	Label  string   // the first column's heading
	Stats  []string // the statistics' headings, the same in every stage
	Stages []statStage
}

// Width is the table's columns: the metric, its unit, the statistics, N and
// samples.
func (t statTable) Width() int { return len(t.Stats) + 4 }

// statStage is a stage's rows under its title; none when the stage has no
// result (the title says so).
type statStage struct {
	Title string
	Rows  []statRow
}

type statRow struct {
	ID         string // the row's id after "row-"; "" for none
	Name, Unit string
	statCells
}

// statCells are a row's cells in one stage: the statistics (the first opens
// the group), then N and samples when the stage has the metric.
type statCells struct {
	Cells      []string
	Known      bool
	N, Samples int
}

// statStages are the stages' rows, titled, of the metrics some stage has,
// cols statistics, N and samples a row; cell prints a statistic, id names
// a row ("" for none). A stage without any of the metrics has no rows and
// a title ending in ": no result".
func statStages(titles []string, ms []metric.Metric, cols int, result func(aisbench.Stage, metric.Metric) *metric.Result,
	cell func(*metric.Result, samples.Statistic) string, id func(aisbench.Stage, metric.Metric) string) []statStage {
	stages := make([]statStage, len(aisbench.Stages))
	known := make([]bool, len(aisbench.Stages))
	for _, m := range ms {
		cells := make([]statCells, len(aisbench.Stages))
		present := false
		for i, st := range aisbench.Stages {
			mr := result(st, m)
			if mr == nil {
				cells[i] = missing(cols)
				continue
			}
			present, known[i] = true, true
			c := statCells{Known: true, N: mr.N, Samples: mr.Samples}
			for _, s := range mr.Stats {
				c.Cells = append(c.Cells, cell(mr, s))
			}
			cells[i] = c
		}
		if !present {
			continue
		}
		for i, st := range aisbench.Stages {
			stages[i].Rows = append(stages[i].Rows, statRow{ID: id(st, m), Name: string(m), Unit: unit.Label(m.Unit()), statCells: cells[i]})
		}
	}
	for i := range stages {
		stages[i].Title = titles[i]
		if !known[i] {
			stages[i].Rows = nil
			if !strings.HasSuffix(titles[i], noResult) {
				stages[i].Title += noResult
			}
		}
	}
	return stages
}

// noResult ends the title of a stage without a result.
const noResult = ": no result"

// missing are the cells of a stage without the metric: "-" in every column.
func missing(cols int) statCells {
	c := statCells{Cells: make([]string, cols)}
	for i := range c.Cells {
		c.Cells[i] = "-"
	}
	return c
}

// plainTable is a header row and rows of cells; the first column is a row
// heading, the second a unit.
type plainTable struct {
	Class string
	Head  []string
	Rows  [][]string
}

// newPlainTable is nil for a missing or empty table.
func newPlainTable(t *table.Table, class string) *plainTable {
	if t == nil || len(t.Rows) == 0 {
		return nil
	}
	return &plainTable{Class: class, Head: t.Rows[0], Rows: t.Rows[1:]}
}

type aisbenchView struct {
	Table     statTable
	Common    *plainTable
	Durations []stageDuration
	Window    *windowLine
	Notes     []string
}

type stageDuration struct {
	Stage, Seconds string
	Requests       int
}

// windowLine is the stable window, in seconds after the first request's start.
type windowLine struct {
	From, To, Duration string
	Selected, Of       int
}

func newAISBenchView(r *audit.Report) aisbenchView {
	t := statTable{Label: "Metric", Stats: r.Stats}
	var titles []string
	for _, st := range aisbench.Stages {
		title := render.StageTitle(st)
		if r.Stage(st).Err != nil {
			title += noResult
		}
		titles = append(titles, title)
	}
	t.Stages = statStages(titles, metric.AISBench, len(r.Stats)+2, func(st aisbench.Stage, m metric.Metric) *metric.Result { return r.Stage(st).Metric(m) },
		func(mr *metric.Result, s samples.Statistic) string { return unit.AISBenchNumber(mr.Unit, s.Rounded) },
		func(st aisbench.Stage, m metric.Metric) string { return string(st) + "-" + string(m) })
	v := aisbenchView{Table: t, Common: newPlainTable(render.CommonTable(r), "common"), Notes: render.Notes(r)}
	for _, st := range aisbench.Stages {
		if sr := r.Stage(st); sr.Err == nil {
			v.Durations = append(v.Durations, stageDuration{render.StageTitle(st), fixed(sr.DurationSeconds, 6), len(sr.Requests)})
		}
	}
	if w := r.Stable.Window; w != nil {
		v.Window = &windowLine{fixed(w.StartSeconds-w.OffsetSeconds, 6), fixed(w.EndSeconds-w.OffsetSeconds, 6), fixed(w.DurationSeconds, 6), w.Selected, w.Of}
	}
	return v
}

type sseView struct {
	Table    *statTable // nil when no stage has sseaudit's metrics
	Absent   []string
	Windowed *windowedView
	SLOs     []sloView
	ITL      []itlSentence // one a stage with requests
	ITLTable *plainTable
}

// windowedView is WindowedOutputThroughput; Native is AISBench's native
// Output Token Throughput, "" when unknown.
type windowedView struct {
	PerSecond, Unit, Count, Basis, WindowMs, Native string
	Requests                                        int
}

type sloView struct {
	Text, Stage, Percent      string
	Met, Denominator, Missing int
}

// itlSentence answers "how many intervals stand behind ITL's N" for a stage.
type itlSentence struct {
	Stage                        string
	N, Intervals, Zero, Requests int
	PooledMs, PerRequestMs       string
}

func newSSEView(r *audit.Report) sseView {
	t := &statTable{Label: "sseaudit metric"}
	for _, s := range r.AllStats {
		t.Stats = append(t.Stats, render.StatHeader(r, s))
	}
	var titles []string
	for _, st := range aisbench.Stages {
		titles = append(titles, render.StageTitle(st))
	}
	t.Stages = statStages(titles, metric.SSE, len(r.AllStats)+2, func(st aisbench.Stage, m metric.Metric) *metric.Result { return r.SSE.Stage(st).Metric(m) },
		func(mr *metric.Result, s samples.Statistic) string { return unit.Value(mr.Unit, s.Raw) },
		func(aisbench.Stage, metric.Metric) string { return "" })
	v := sseView{ITLTable: newPlainTable(render.ITLAccountingTable(r), "itl")}
	for _, st := range t.Stages {
		if len(st.Rows) > 0 {
			v.Table = t
		}
	}
	for _, st := range aisbench.Stages {
		for _, a := range r.SSE.Stage(st).Absent {
			v.Absent = append(v.Absent, fmt.Sprintf("no %s in %s: %s", a.Name, render.StageTitle(st), a.Reason))
		}
	}
	if wt := r.SSE.Stable.Windowed; wt != nil {
		v.Windowed = &windowedView{
			PerSecond: unit.Value(unit.TokensPerSecond, wt.PerSecond), Unit: wt.Unit(), Count: strconv.FormatFloat(wt.Count, 'f', -1, 64),
			Basis: wt.Basis, WindowMs: unit.Value(unit.Seconds, wt.WindowSeconds), Requests: wt.Requests,
		}
		if n := wt.NativeOutputTokenThroughput; n != nil {
			v.Windowed.Native = unit.AISBenchNumber(unit.TokensPerSecond, n.Rounded)
		}
	}
	for _, st := range aisbench.Stages {
		for _, s := range r.SSE.Stage(st).SLOs {
			v.SLOs = append(v.SLOs, sloView{s.SLO.Text, render.StageTitle(st), unit.Value(unit.Ratio, s.Fraction*100), s.Met, s.Denominator, s.Missing})
		}
		if a := r.SSE.Stage(st).ITL; a != nil {
			v.ITL = append(v.ITL, itlSentence{render.StageTitle(st), a.AISBenchN, a.Intervals, a.ZeroIntervals, a.RequestsWithIntervals,
				unit.Value(unit.Seconds, a.PooledMeanSeconds), unit.Value(unit.Seconds, a.PerRequestMeanSeconds)})
		}
	}
	return v
}

// whatIfView is the what-if tables (time points, tm and the window; the
// metrics' deltas): a row a policy and stage in each.
type whatIfView struct {
	Metrics  []whatIfHead
	Rows     []whatIfRow
	Policies []policyView
}

// whatIfHead is a metric's delta column: its figure's anchor and title.
type whatIfHead struct{ Anchor, Metric, Stat string }

type whatIfRow struct {
	// Span is the rows of the policy, on its first row; 0 on the others.
	Span                         int
	Policy                       policyView
	Dropped, Points, NewFailures int
	Stage                        string
	TmMoved, Compared            int
	TmShift, Window, Throughput  string   // "-" when unknown
	Deltas                       []string // per metric: the statistic's delta, then N's
}

type policyView struct{ Name, Description string }

// whatIfMetrics are the metrics the what-if table shows deltas of.
var whatIfMetrics = []metric.Metric{metric.E2EL, metric.TTFT, metric.TPOT, metric.ITL}

func newWhatIfView(res *whatif.Result) *whatIfView {
	if res == nil {
		return nil
	}
	stat := 0
	for i, s := range res.Stats {
		if s == "Average" {
			stat = i
		}
	}
	statName := "stat"
	if len(res.Stats) > 0 {
		statName = res.Stats[stat]
	}
	v := &whatIfView{}
	for _, m := range whatIfMetrics {
		a := AnchorTimelines
		if m == metric.ITL {
			a = AnchorIntervals
		}
		v.Metrics = append(v.Metrics, whatIfHead{a, string(m), statName})
	}
	for _, o := range res.Outcomes[1:] {
		p := policyView{o.Policy.Name(), o.Policy.Description()}
		v.Policies = append(v.Policies, p)
		for si, st := range o.Stages {
			row := whatIfRow{Policy: p, Stage: render.StageTitle(st.Stage), TmMoved: st.TmMoved, Compared: st.Compared,
				TmShift: "-", Window: "-", Throughput: "-"}
			if si == 0 {
				row.Span, row.Dropped, row.Points, row.NewFailures = len(o.Stages), o.TimePointsDropped, o.TimePointsKept+o.TimePointsDropped, len(o.NewFailures)
			}
			if st.TmShift != nil {
				row.TmShift = unit.Value(unit.Seconds, st.TmShift.MeanSeconds) + " / " + unit.Value(unit.Seconds, st.TmShift.MaxSeconds)
			}
			for _, m := range whatIfMetrics {
				var md *whatif.MetricDelta
				if st.Delta != nil {
					md = st.Delta.Metric(m)
				}
				if md == nil || stat >= len(md.Stats) {
					row.Deltas = append(row.Deltas, "-", "-")
					continue
				}
				row.Deltas = append(row.Deltas, signedValue(unit.Seconds, md.Stats[stat]), signedCount(md.N))
			}
			if st.Delta != nil && st.Delta.WindowStartSeconds.Known {
				row.Window = signedFixed(st.Delta.WindowStartSeconds, 6) + " / " + signedFixed(st.Delta.WindowEndSeconds, 6)
			}
			if st.Delta != nil {
				row.Throughput = signedValue(unit.TokensPerSecond, st.Delta.OutputTokenThroughput)
			}
			v.Rows = append(v.Rows, row)
		}
	}
	return v
}

func signedValue(u unit.Unit, n whatif.Number) string {
	if !n.Known {
		return "-"
	}
	return sign(n.Value, unit.Value(u, n.Value))
}

func signedFixed(n whatif.Number, prec int) string {
	if !n.Known {
		return "-"
	}
	return sign(n.Value, fixed(n.Value, prec))
}

func signedCount(n whatif.Number) string {
	if !n.Known {
		return "-"
	}
	return sign(n.Value, strconv.FormatFloat(n.Value, 'f', -1, 64))
}

// sign prefixes the text of a positive x with "+".
func sign(x float64, s string) string {
	if x > 0 {
		return "+" + s
	}
	return s
}

// findingView is a finding and the figure it links to.
type findingView struct {
	Severity, Code, Stage, Where, Figure string
	Anchor, AnchorName, Message          string
	Evidence, Requests                   []string // the requests: at most 8
	More                                 string   // " and N more", or ""
}

func newFindingViews(r *audit.Report) []findingView {
	var out []findingView
	for _, f := range r.Findings {
		v := findingView{Severity: string(f.Severity), Code: f.Code, Stage: string(f.Stage), Where: "run", Figure: f.Figure,
			Anchor: FindingAnchor(f.Code), Message: f.Message, Requests: f.Requests}
		if f.Stage != "" {
			v.Where = render.StageTitle(f.Stage)
		}
		v.AnchorName = anchorNames[v.Anchor]
		for _, e := range f.Evidence {
			v.Evidence = append(v.Evidence, e.Text())
		}
		if len(v.Requests) > 8 {
			v.More = fmt.Sprintf(" and %d more", len(v.Requests)-8)
			v.Requests = v.Requests[:8]
		}
		out = append(out, v)
	}
	return out
}
