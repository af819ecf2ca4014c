package htmlreport

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/figures"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/render"
	"github.com/sseaudit/sseaudit/unit"
)

// The charts' views (charts.html.tmpl): every coordinate is computed here,
// from the figures the report holds, and printed by the template.

// Chart geometry, in SVG user units (the SVG scales to the page width).
const (
	chartW   = 1100
	padLeft  = 64
	padRight = 24
)

// num formats an SVG coordinate: two decimals, no trailing zeros.
func num(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		x = 0
	}
	s := strconv.FormatFloat(x, 'f', 2, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" || s == "" {
		s = "0"
	}
	return s
}

// niceTicks are round tick values covering [lo, hi], about n of them.
func niceTicks(lo, hi float64, n int) []float64 {
	if !(hi > lo) {
		return []float64{lo}
	}
	raw := (hi - lo) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var out []float64
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		out = append(out, v)
	}
	return out
}

// tickLabel prints a tick value with the decimals its step needs.
func tickLabel(v float64, ticks []float64) string {
	prec := 0
	if len(ticks) > 1 {
		step := ticks[1] - ticks[0]
		if step < 1 {
			prec = int(math.Ceil(-math.Log10(step) - 1e-9))
		}
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

// classColors are the event classes' colours (also in the legend).
var classColors = []struct{ class, color, label string }{
	{"role", "#8e44ad", "role only"},
	{"reasoning", "#e67e22", "reasoning"},
	{"content", "#1f77b4", "content"},
	{"tool_call", "#16a085", "tool call"},
	{"finish", "#7f8c8d", "finish only"},
	{"usage_only", "#d62728", "usage only"},
	{"metadata_only", "#8c564b", "metadata only"},
	{"malformed", "#000000", "malformed"},
	{"error", "#000000", "error"},
	{"", "#555555", "time point (no event body)"},
}

func classColor(c string) string {
	for _, cc := range classColors {
		if cc.class == c {
			return cc.color
		}
	}
	return "#555555"
}

// frame is a chart's SVG box, H high and chartW wide: the plot spans x from
// L to chartW-padRight and y from Top to H-Bottom (the time axis).
type frame struct{ H, Top, Bottom, L int }

func newFrame(h, top, bottom int) frame { return frame{h, top, bottom, padLeft} }

func (frame) W() int            { return chartW }
func (f frame) Left() int       { return f.L }
func (frame) Right() int        { return chartW - padRight }
func (f frame) MidX() int       { return (f.L + chartW - padRight) / 2 }
func (f frame) YTickX() int     { return f.L - 6 }
func (frame) YLabelX() int      { return yAxisLabelX }
func (f frame) Base() int       { return f.H - f.Bottom }
func (f frame) MidY() int       { return (f.H - f.Bottom + f.Top) / 2 }
func (f frame) TickEnd() int    { return f.Base() + 5 }
func (f frame) TickLabelY() int { return f.Base() + 18 }
func (f frame) AxisLabelY() int { return f.H - 6 }

// xTick is a tick of a horizontal axis; yTick a grid line with its count.
type (
	xTick struct{ X, Label string }
	yTick struct {
		Y, LabelY string
		Label     int
	}
)

// yTicks are the grid lines at whole counts from 0 to ymax, about n of them.
func yTicks(ymax, n int, y func(float64) float64) []yTick {
	var out []yTick
	for _, v := range niceTicks(0, float64(ymax), n) {
		if v == math.Trunc(v) {
			out = append(out, yTick{num(y(v)), num(y(v) + 4), int(v)})
		}
	}
	return out
}

// yAxisLabelX is the x of the vertical axis label (rotated: its box spans
// x from about 4 to 20).
const yAxisLabelX = 16

// leftFor is the plot's left edge that leaves the y ticks' labels (right
// aligned 6 units left of it) clear of the vertical axis label: padLeft,
// or more for counts of six digits and more.
func leftFor(ticks []yTick) int {
	w := 0.0
	for _, t := range ticks {
		w = max(w, fontTick.width(strconv.Itoa(t.Label)))
	}
	clear := yAxisLabelX + fontAxis.descent() + 3 // the axis label's right side, and a gap
	return max(padLeft, int(math.Ceil(clear+w+6)))
}

// timeAxis is the time axis of a chart spanning [0, run] seconds.
type timeAxis struct {
	frame
	Ticks []xTick
	Label string
}

func newTimeAxis(f frame, run float64, x func(float64) float64, title string) timeAxis {
	a := timeAxis{frame: f, Label: title}
	ticks := niceTicks(0, run, 10)
	// A tick whose label would cover the one before it or leave the chart
	// is left out.
	pl := &placer{within: box{0, 0, chartW, float64(f.H)}, gap: 6}
	for _, t := range ticks {
		if l, ok := pl.first(label{tickLabel(t, ticks), x(t), float64(f.TickLabelY()), "middle", fontTick}); ok {
			a.Ticks = append(a.Ticks, xTick{num(l.X), l.Text})
		}
	}
	return a
}

// windowRect shades the native window: From and To in seconds.
type windowRect struct {
	X, Width, From, To string
	Y, Height          int
}

// inFlightView is the in-flight curve with the native window.
type inFlightView struct {
	frame
	Sentence      windowSentence
	Window        *windowRect
	Axis          timeAxis
	YTicks        []yTick
	WindowLabel   *placedText // nil without a window (or without room)
	Spikes, Curve string      // path data; Spikes "" for none
	CLine         *cLine
	Marks         []markView
	Bucketed      bool
	Events, Steps int
	Selectors     *selectorsView
}

// windowSentence says why the native window starts and ends where it does.
type windowSentence struct {
	C, Reaches, Peak  int
	First, Start, End *markView // nil without a window start
	HasWindow         bool
	Selected, Of      int
	AtC               string // percent of the run with C in flight
}

// placedText is where a label goes: x, its baseline y, its text-anchor.
type placedText struct{ X, Y, Anchor string }

func placed(l label) *placedText { return &placedText{num(l.X), num(l.Y), l.Anchor} }

// cLine is the configured C; Label nil when no place is clear of the
// marks (the dashed line is in the caption).
type cLine struct {
	Y     string
	Label *placedText
	Count int
}

// markView is an event the curve marks: the warm-up reach of C, the window
// start and end; Text nil when no place is clear of the others' (the
// sentence above the chart says the same, and the circle's tooltip).
type markView struct {
	Class, X, Y, Label, Kind, ID, Seconds string
	InFlight                              int
	Text                                  *placedText
}

type selectorsView struct {
	Table *plainTable
	Notes []selectorNote
}

type selectorNote struct{ Name, Commit, Description string }

func newInFlightView(rep *audit.Report) *inFlightView {
	f := rep.Figures
	if f == nil || f.InFlight == nil {
		return nil
	}
	c := f.InFlight
	v := &inFlightView{frame: newFrame(300, 24, 40), Bucketed: c.Bucketed, Events: c.Events, Steps: len(c.Points)}
	ymax := int(float64(max(c.PeakInFlight, c.MaxConcurrency))*1.25) + 1
	y := func(n float64) float64 { return float64(v.Top) + (1-n/float64(ymax))*float64(v.Base()-v.Top) }
	v.YTicks = yTicks(ymax, 6, y)
	v.L = leftFor(v.YTicks)
	x := func(t float64) float64 {
		if f.RunSeconds <= 0 {
			return float64(v.L)
		}
		return float64(v.L) + t/f.RunSeconds*float64(v.Right()-v.L)
	}
	if c.HasWindow {
		v.Window = &windowRect{num(x(c.WindowFrom)), num(math.Max(x(c.WindowTo)-x(c.WindowFrom), 1)), fixed(c.WindowFrom, 6), fixed(c.WindowTo, 6), v.Top, v.Base() - v.Top}
	}
	v.Axis = newTimeAxis(v.frame, f.RunSeconds, x, "seconds after the first request's start")
	// Transient counts at one instant (or inside a bucket), then the step curve.
	var spikes, d strings.Builder
	fmt.Fprintf(&d, "M%s %s", num(x(0)), num(y(0)))
	for _, pt := range c.Points {
		if pt.Min != pt.Max {
			fmt.Fprintf(&spikes, "M%s %sV%s", num(x(pt.Seconds)), num(y(float64(pt.Min))), num(y(float64(pt.Max))))
		}
		fmt.Fprintf(&d, "H%sV%s", num(x(pt.Seconds)), num(y(float64(pt.InFlight))))
	}
	v.Spikes, v.Curve = spikes.String(), d.String()
	marks := v.placeLabels(c, x, y)
	v.Sentence = windowSentence{C: c.MaxConcurrency, Reaches: c.ReachesAtStart, Peak: c.PeakInFlight, First: marks[0], Start: marks[1], End: marks[2],
		HasWindow: c.HasWindow, Selected: c.SelectedInWindow, Of: c.OfIn, AtC: fixed(c.AtCShare*100, 1)}
	if t := render.SelectorTable(rep); t != nil && rep.Stable.Window != nil {
		v.Selectors = &selectorsView{Table: newPlainTable(t, "selectors")}
		for _, s := range rep.Window.Selectors {
			v.Selectors.Notes = append(v.Selectors.Notes, selectorNote{s.Name, s.Commit[:12], s.Description})
		}
	}
	return v
}

// placeLabels places the in-flight chart's labels, each clear of the ones
// before it and inside the plot: the window's at its top left (or right),
// the marks' in rows above the time axis (mark i in row i, right of its
// line, the window end's left of it, unless taken), then the C label above
// or below its line, right-aligned at the plot's right end unless a mark's
// line, circle or label is there: then beside the nearest mark, or
// further left. It returns the marks (nil for an absent one).
func (v *inFlightView) placeLabels(c *figures.InFlightCurve, x, y func(float64) float64) []*markView {
	pl := &placer{within: box{float64(v.L), float64(v.Top), float64(v.Right()), float64(v.Base())}, gap: 0.5}
	if c.HasWindow {
		const text = "native (stable) window"
		var cands []label
		for _, ly := range []float64{float64(v.Top + 14), float64(v.Top + 30)} {
			cands = append(cands, label{text, x(c.WindowFrom) + 6, ly, "start", fontBold}, label{text, x(c.WindowTo) - 6, ly, "end", fontBold},
				label{text, x(c.WindowFrom) - 6, ly, "end", fontBold}, label{text, float64(v.L) + 6, ly, "start", fontBold})
		}
		if l, ok := pl.first(cands...); ok {
			v.WindowLabel = placed(l)
		}
	}
	fms := []*figures.FigureMark{c.FirstReach, c.WindowStart, c.WindowEnd}
	marks := make([]*markView, 3)
	rows := (v.Base() - v.Top - 8) / markRow
	for i, m := range fms {
		if m == nil {
			continue
		}
		mx := x(m.Seconds)
		mv := &markView{Class: []string{"mark-warm", "mark-start", "mark-end"}[i], X: num(mx), Y: num(y(float64(m.InFlight))),
			Label: m.Label, Kind: startOrEnd(m.Start), ID: m.ID, Seconds: fixed(m.Seconds, 6), InFlight: m.InFlight}
		text, fnt := m.Label+" ("+mv.Kind+" of "+m.ID+")", fontBold
		if i == 0 {
			fnt = fontTick
		}
		right, left := label{text, mx + 6, 0, "start", fnt}, label{text, mx - 6, 0, "end", fnt}
		if i == 2 || mx > chartW*0.8 {
			right, left = left, right
		}
		var cands []label
		for _, r := range rowOrder(i, rows) {
			ly := float64(v.Base() - 8 - markRow*r)
			right.Y, left.Y = ly, ly
			cands = append(cands, right, left)
		}
		if l, ok := pl.first(cands...); ok {
			mv.Text = placed(l)
		}
		marks[i] = mv
	}
	for _, mv := range marks {
		if mv != nil {
			v.Marks = append(v.Marks, *mv)
		}
	}
	if c.MaxConcurrency <= 0 {
		return marks
	}
	yc := y(float64(c.MaxConcurrency))
	v.CLine = &cLine{Y: num(yc), Count: c.MaxConcurrency}
	// The marks' lines and circles: no place for the C label.
	var xs []float64
	for _, m := range fms {
		if m == nil {
			continue
		}
		mx, my := x(m.Seconds), y(float64(m.InFlight))
		pl.take(box{mx - 1.5, float64(v.Top), mx + 1.5, float64(v.Base())})
		pl.take(box{mx - 6, my - 6, mx + 6, my + 6})
		xs = append(xs, mx)
	}
	text := "C = " + strconv.Itoa(c.MaxConcurrency)
	right := float64(v.Right() - 4)
	var cands []label
	at := func(x float64, anchor string) {
		for _, ly := range []float64{yc - 5, yc + 5 + fontBold.ascent()} {
			cands = append(cands, label{text, x, ly, anchor, fontBold})
		}
	}
	at(right, "end")
	sort.Sort(sort.Reverse(sort.Float64Slice(xs)))
	for _, mx := range xs {
		at(mx-8, "end")
		at(mx+8, "start")
	}
	for lx := right - 10; lx > float64(v.L); lx -= 10 {
		at(lx, "end")
	}
	if l, ok := pl.first(cands...); ok {
		v.CLine.Label = placed(l)
	}
	return marks
}

// markRow is the distance between two rows of the marks' labels (boxes
// 15.2 high).
const markRow = 16

// rowOrder is the label rows to try for mark i: its own, the ones above,
// then the ones below.
func rowOrder(i, rows int) []int {
	out := []int{i}
	for r := i + 1; r < rows; r++ {
		out = append(out, r)
	}
	for r := i - 1; r >= 0; r-- {
		out = append(out, r)
	}
	return out
}

func startOrEnd(start bool) string {
	if start {
		return "start"
	}
	return "end"
}

// timelinesView is the requests' strips.
type timelinesView struct {
	frame
	TmSetBy, TTFTSetBy []classCount // empty for traces of time points only
	Drawn, Of          int
	Rule               string
	Legend             []legendEntry
	WindowLegend       bool
	Window             *windowRect
	Rows               []timelineRow
	Axis               timeAxis
}

// classCount is "a <b>Class</b> event in Requests of Of requests".
type classCount struct {
	Class        string
	Requests, Of int
}

type legendEntry struct{ Color, Label string }

// timelineRow is one request's strip, at height Y; its events one path a
// class; its notes, right of it, as many lines as they need.
type timelineRow struct {
	Index                   int
	ID, Why, Label          string
	Stable                  bool
	LabelX, InfoX           int
	LabelY, Y, X0, Xm       string // the strip from t0 to tm
	T0Path, TmPath, TmColor string
	Events                  []classPath
	Notes                   []noteLine
}

type classPath struct{ Color, D string }

// noteLine is a line of a strip's notes: Class "info" (the request's own
// figures) or "info2" (what set tm, its counts, why it is drawn).
type noteLine struct{ Class, Y, Text string }

// Timeline geometry: a strip's height with two lines of notes, the request
// ids' and the notes' column widths, the notes' left margin.
const rowH, labelW, infoW, infoPad = 30, 150, 380, 10

// timelineNotes are a request's notes, wrapped to the notes' column (no
// note is shortened), and the strip's height: rowH, or more when the notes
// need it.
func timelineNotes(r figures.RequestTimeline) (lines []noteLine, height float64) {
	info := []string{"TTFT " + unit.Value(unit.Seconds, r.TTFTSeconds) + " · ", "TPOT " + unit.Value(unit.Seconds, r.TPOTSeconds) + " · ",
		"ITL " + unit.Value(unit.Seconds, r.ITLMeanSeconds) + " · ", "content " + unit.Value(unit.Seconds, r.ContentIntervalMeanSeconds) + " ms"}
	tm := "tm: " + r.TmClass
	if r.TmClass == "" {
		tm = "tm: a time point"
	}
	info2 := []string{tm + " · ", fmt.Sprintf("%d events, %d intervals (%d zero)", len(r.Events), r.Intervals, r.ZeroGaps)}
	if len(r.Why) > 0 {
		info2[1] += " · "
	}
	for i, w := range r.Why {
		if i < len(r.Why)-1 {
			w += ", "
		}
		info2 = append(info2, w)
	}
	width := float64(infoW - infoPad - 4)
	for _, t := range wrap(info, width, fontInfo) {
		lines = append(lines, noteLine{Class: "info", Text: t})
	}
	for _, t := range wrap(info2, width, fontInfo2) {
		lines = append(lines, noteLine{Class: "info2", Text: t})
	}
	return lines, max(rowH, math.Ceil(notesHeight(lines)+0.5))
}

func (n noteLine) font() font {
	if n.Class == "info" {
		return fontInfo
	}
	return fontInfo2
}

// notesPitch is the distance from a line's baseline to the next's: the
// first's descent and the second's ascent, rounded up to half a unit.
func notesPitch(a, b noteLine) float64 {
	return math.Ceil(2*(a.font().descent()+b.font().ascent())) / 2
}

// notesHeight is the height of the lines' boxes, from the first's top to
// the last's bottom.
func notesHeight(lines []noteLine) float64 {
	h := lines[0].font().ascent() + lines[len(lines)-1].font().descent()
	for i := 1; i < len(lines); i++ {
		h += notesPitch(lines[i-1], lines[i])
	}
	return h
}

func newTimelinesView(rep *audit.Report) *timelinesView {
	f := rep.Figures
	if f == nil || f.Timelines == nil || len(f.Timelines.Requests) == 0 {
		return nil
	}
	tl := f.Timelines
	v := &timelinesView{Drawn: len(tl.Requests), Of: tl.Of, Rule: tl.Rule}
	const top, bottom = 10, 40
	notes := make([][]noteLine, len(tl.Requests))
	heights := make([]float64, len(tl.Requests))
	rows := 0.0
	for i, r := range tl.Requests {
		notes[i], heights[i] = timelineNotes(r)
		rows += heights[i]
	}
	v.frame = newFrame(top+bottom+int(math.Ceil(rows)), top, bottom)
	if len(f.TmSetBy) > 0 {
		v.TmSetBy, v.TTFTSetBy = classCounts(f.TmSetBy, tl.Of), classCounts(f.TTFTSetBy, tl.Of)
	}
	present := map[string]bool{}
	for _, r := range tl.Requests {
		for _, e := range r.Events {
			present[e.Class] = true
		}
	}
	for _, cc := range classColors {
		if present[cc.class] {
			v.Legend = append(v.Legend, legendEntry{cc.color, cc.label})
		}
	}
	x0, x1 := float64(labelW), float64(chartW-infoW)
	// On a run much longer than its requests, every strip starts at its own
	// t0 on a common axis, so that each request's events stay readable.
	longest := 0.0
	for _, r := range tl.Requests {
		longest = max(longest, r.Tm-r.T0)
	}
	aligned := longest > 0 && 4*longest < f.RunSeconds
	span := f.RunSeconds
	if aligned {
		span = longest
	}
	scale := func(t float64) float64 {
		if span <= 0 {
			return x0
		}
		return x0 + t/span*(x1-x0)
	}
	if c := f.InFlight; c != nil && c.HasWindow && !aligned {
		v.WindowLegend = true
		v.Window = &windowRect{X: num(scale(c.WindowFrom)), Width: num(math.Max(scale(c.WindowTo)-scale(c.WindowFrom), 1)), Y: v.Top, Height: int(math.Ceil(rows))}
	}
	rowTop := float64(v.Top)
	for i, r := range tl.Requests {
		x := scale
		if aligned {
			x = func(t float64) float64 { return scale(t - r.T0) }
		}
		v.Rows = append(v.Rows, newTimelineRow(r, rowTop+heights[i]/2, x, notes[i]))
		rowTop += heights[i]
	}
	if aligned {
		v.Axis = newTimeAxis(v.frame, span, scale, "seconds after each request's t0 (strips aligned: the run is more than 4 times longer than its longest drawn request)")
	} else {
		v.Axis = newTimeAxis(v.frame, span, scale, "seconds after the first request's start")
	}
	return v
}

// newTimelineRow draws a request at height yc, its notes centred on it.
func newTimelineRow(r figures.RequestTimeline, yc float64, x func(float64) float64, notes []noteLine) timelineRow {
	why := strings.Join(r.Why, ", ")
	idW := float64(labelW - 8 - 4)
	if r.Stable {
		idW -= fontRID.width("★ ")
	}
	row := timelineRow{Index: r.Index, ID: r.ID, Why: why, Label: fit(r.ID, idW, fontRID), Stable: r.Stable,
		LabelX: labelW - 8, InfoX: chartW - infoW + infoPad, LabelY: num(yc + 4), Y: num(yc), X0: num(x(r.T0)), Xm: num(x(r.Tm)),
		T0Path: fmt.Sprintf("M%s %sV%s", num(x(r.T0)), num(yc-9), num(yc+9)), TmPath: fmt.Sprintf("M%s %sV%s", num(x(r.Tm)), num(yc-10), num(yc+10)), TmColor: classColor(r.TmClass)}
	ly := yc - notesHeight(notes)/2 + notes[0].font().ascent()
	for i, n := range notes {
		if i > 0 {
			ly += notesPitch(notes[i-1], n)
		}
		n.Y = num(ly)
		row.Notes = append(row.Notes, n)
	}
	// Events, one path per class.
	byClass := map[string]*strings.Builder{}
	var order []string
	for _, e := range r.Events {
		sb := byClass[e.Class]
		if sb == nil {
			sb = &strings.Builder{}
			byClass[e.Class] = sb
			order = append(order, e.Class)
		}
		fmt.Fprintf(sb, "M%s %sV%s", num(x(e.Seconds)), num(yc-6), num(yc+6))
	}
	for _, cl := range order {
		row.Events = append(row.Events, classPath{classColor(cl), byClass[cl].String()})
	}
	return row
}

// classCounts are the figures' class counts, of the requests drawn from.
func classCounts(cs []figures.ClassCount, of int) []classCount {
	out := make([]classCount, len(cs))
	for i, c := range cs {
		out[i] = classCount{c.Class, c.Requests, of}
	}
	return out
}

// intervalsView is the ITL and ContentUpdateInterval distributions.
type intervalsView struct {
	TPOT           *tpotView // nil without TPOT's and ITL's first statistic
	TokensPerEvent *struct{ Mean string }
	Charts         []distView
}

// tpotView puts TPOT's and ITL's first statistic of the whole stage side by
// side.
type tpotView struct{ Stat, TPOT, ITL string }

func newIntervalsView(rep *audit.Report) *intervalsView {
	f := rep.Figures
	if f == nil || len(f.Distributions) == 0 {
		return nil
	}
	v := &intervalsView{}
	st := rep.Total
	if tpot, itl := st.Metric(metric.TPOT), st.Metric(metric.ITL); tpot != nil && itl != nil && len(tpot.Stats) > 0 && len(itl.Stats) > 0 {
		v.TPOT = &tpotView{tpot.Stats[0].Name, unit.AISBenchNumber(tpot.Unit, tpot.Stats[0].Rounded), unit.AISBenchNumber(itl.Unit, itl.Stats[0].Rounded)}
	}
	if tpe := rep.SSE.Total.Metric(metric.TokensPerEvent); tpe != nil && len(tpe.Stats) > 0 {
		v.TokensPerEvent = &struct{ Mean string }{unit.Value(tpe.Unit, tpe.Stats[0].Raw)}
	}
	for _, d := range f.Distributions {
		v.Charts = append(v.Charts, newDistView(d))
	}
	return v
}

// distView is one stage's histograms on a log axis, zero intervals apart.
type distView struct {
	frame
	Stage, StageID string
	YTicks         []yTick
	Ticks          []xTick
	ZeroX, MeanTop int // the "= 0" label's x, the mean lines' top
	BinsPerDecade  int
	Series         []seriesView
}

// seriesView is one metric's bars, its means and its legend line.
type seriesView struct {
	Class, Color, D, Metric    string
	Samples, N, Zero           int
	Means                      []meanLine
	RectX, RectY, TextX, TextY int // the legend line's
	Pooled, PerRequest         string
}

// meanLine is a vertical line at a mean: the pooled (solid) or the mean of
// per-request means (dashed).
type meanLine struct {
	X, What, Ms string
	Dashed      bool
}

// zeroW is the width of the distributions' "= 0" column.
const zeroW = 70

func newDistView(d *figures.DistributionPair) distView {
	v := distView{frame: newFrame(300, 48, 44), Stage: render.StageTitle(d.Stage), StageID: string(d.Stage), BinsPerDecade: d.BinsPerDecade}
	v.MeanTop = v.Top - 6
	dists := []*figures.Distribution{d.ITL}
	if d.Content != nil {
		dists = append(dists, d.Content)
	}
	colors := []string{"#1f77b4", "#e67e22"}
	ymax := 1
	for _, ds := range dists {
		ymax = max(ymax, ds.Zero)
		for _, c := range ds.Counts {
			ymax = max(ymax, c)
		}
	}
	y := func(c float64) float64 { return float64(v.Top) + (1-c/float64(ymax))*float64(v.Base()-v.Top) }
	v.YTicks = yTicks(ymax, 5, y)
	v.L = leftFor(v.YTicks)
	v.ZeroX = v.L + zeroW/2
	x0, x1 := float64(v.L+zeroW), float64(chartW-padRight)
	var lx0, lx1 float64
	if len(d.Edges) > 1 {
		lx0, lx1 = math.Log10(d.Edges[0]), math.Log10(d.Edges[len(d.Edges)-1])
	}
	x := func(sec float64) float64 {
		if lx1 <= lx0 || sec <= 0 {
			return x0
		}
		return x0 + (math.Log10(sec)-lx0)/(lx1-lx0)*(x1-x0)
	}
	v.Ticks = logTicks(v.frame, lx0, lx1, x)
	for i, ds := range dists {
		s := seriesView{Class: "bars", Color: colors[i], Metric: string(ds.Metric), Samples: ds.Samples, N: ds.N, Zero: ds.Zero,
			RectX: v.L + 10, RectY: 16 + 16*i - 10, TextX: v.L + 10 + 18, TextY: 16 + 16*i,
			Pooled: unit.Value(unit.Seconds, ds.PooledMeanSeconds), PerRequest: unit.Value(unit.Seconds, ds.PerRequestMeanSeconds)}
		if i == 1 {
			s.Class = "bars outline"
		}
		var path strings.Builder
		for j, c := range ds.Counts {
			if c == 0 {
				continue
			}
			fmt.Fprintf(&path, "M%s %sH%sV%sH%sZ", num(x(d.Edges[j])), num(y(0)), num(x(d.Edges[j+1])), num(y(float64(c))), num(x(d.Edges[j])))
		}
		if ds.Zero > 0 {
			bw := float64(zeroW-20) / 2
			bx := float64(v.L+10) + bw*float64(i)
			fmt.Fprintf(&path, "M%s %sH%sV%sH%sZ", num(bx), num(y(0)), num(bx+bw), num(y(float64(ds.Zero))), num(bx))
		}
		s.D = path.String()
		for k, mean := range []float64{ds.PooledMeanSeconds, ds.PerRequestMeanSeconds} {
			if math.IsNaN(mean) || mean <= 0 || lx1 <= lx0 {
				continue
			}
			s.Means = append(s.Means, meanLine{num(x(mean)), []string{"pooled mean", "mean of per-request means"}[k], unit.Value(unit.Seconds, mean), k == 1})
		}
		v.Series = append(v.Series, s)
	}
	return v
}

// msLabel labels a decade tick (seconds) in milliseconds.
func msLabel(sec float64) string {
	ms := sec * 1000
	return strconv.FormatFloat(ms, 'g', 3, 64) + " ms"
}

// logTicks are the ticks of the distributions' log axis from 10^lx0 to
// 10^lx1 seconds, labelled in ms: at 1 of each decade first, then at 2 and
// 5, then, on an axis shorter than a decade, at round values (1, 2 or 5
// times a power of ten apart), each where its label stays in the chart and
// clear of the ones before it and of the "= 0" label. In order of x.
func logTicks(f frame, lx0, lx1 float64, x func(float64) float64) []xTick {
	type cand struct {
		sec  float64
		text string
	}
	var cands []cand
	for _, m := range []float64{1, 2, 5} {
		for k := math.Floor(lx0); k <= math.Ceil(lx1); k++ {
			if sec := m * math.Pow(10, k); math.Log10(sec) >= lx0-1e-9 && math.Log10(sec) <= lx1+1e-9 {
				cands = append(cands, cand{sec, msLabel(sec)})
			}
		}
	}
	if lx1-lx0 < 1 {
		lo, hi := math.Pow(10, lx0)*1000, math.Pow(10, lx1)*1000 // ms
		ticks := niceTicks(lo, hi, 8)
		for _, ms := range ticks {
			if ms >= lo && ms <= hi {
				cands = append(cands, cand{ms / 1000, tickLabel(ms, ticks) + " ms"})
			}
		}
	}
	pl := &placer{within: box{0, 0, chartW, float64(f.H)}, gap: 8}
	ly := float64(f.TickLabelY())
	pl.take(label{"= 0", float64(f.L + zeroW/2), ly, "middle", fontTick}.box())
	var kept []label
	for _, c := range cands {
		cx := x(c.sec)
		if slices.ContainsFunc(kept, func(l label) bool { return math.Abs(l.X-cx) < 1 }) {
			continue // a round value on a decade tick
		}
		if l, ok := pl.first(label{c.text, cx, ly, "middle", fontTick}); ok {
			kept = append(kept, l)
		}
	}
	sort.SliceStable(kept, func(i, j int) bool { return kept[i].X < kept[j].X })
	out := make([]xTick, len(kept))
	for i, l := range kept {
		out[i] = xTick{num(l.X), l.Text}
	}
	return out
}
