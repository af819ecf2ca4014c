package htmlreport

import (
	"fmt"
	"math"
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
// padLeft to chartW-padRight and y from Top to H-Bottom (the time axis).
type frame struct{ H, Top, Bottom int }

func (frame) W() int            { return chartW }
func (frame) Left() int         { return padLeft }
func (frame) Right() int        { return chartW - padRight }
func (frame) MidX() int         { return (padLeft + chartW - padRight) / 2 }
func (frame) YTickX() int       { return padLeft - 6 }
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

// timeAxis is the time axis of a chart spanning [0, run] seconds.
type timeAxis struct {
	frame
	Ticks []xTick
	Label string
}

func newTimeAxis(f frame, run float64, x func(float64) float64, label string) timeAxis {
	a := timeAxis{frame: f, Label: label}
	ticks := niceTicks(0, run, 10)
	for _, t := range ticks {
		a.Ticks = append(a.Ticks, xTick{num(x(t)), tickLabel(t, ticks)})
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
	WindowLabelX  string // "" without a window
	WindowLabelY  int
	Spikes, Curve string // path data; Spikes "" for none
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

// cLine is the configured C.
type cLine struct {
	Y, LabelY     string
	LabelX, Count int
}

// markView is an event the curve marks: the warm-up reach of C, the window
// start and end.
type markView struct {
	Class, X, Y, Label, Kind, ID, Seconds string
	InFlight                              int
	TextX, Anchor                         string
	TextY                                 int
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
	v := &inFlightView{frame: frame{H: 300, Top: 24, Bottom: 40}, Bucketed: c.Bucketed, Events: c.Events, Steps: len(c.Points)}
	ymax := int(float64(max(c.PeakInFlight, c.MaxConcurrency))*1.25) + 1
	x := func(t float64) float64 {
		if f.RunSeconds <= 0 {
			return padLeft
		}
		return padLeft + t/f.RunSeconds*(chartW-padLeft-padRight)
	}
	y := func(n float64) float64 { return float64(v.Top) + (1-n/float64(ymax))*float64(v.Base()-v.Top) }
	if c.HasWindow {
		v.Window = &windowRect{num(x(c.WindowFrom)), num(math.Max(x(c.WindowTo)-x(c.WindowFrom), 1)), fixed(c.WindowFrom, 6), fixed(c.WindowTo, 6), v.Top, v.Base() - v.Top}
		v.WindowLabelX, v.WindowLabelY = num(x(c.WindowFrom)+6), v.Top+14
	}
	v.Axis = newTimeAxis(v.frame, f.RunSeconds, x, "seconds after the first request's start")
	v.YTicks = yTicks(ymax, 6, y)
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
	if c.MaxConcurrency > 0 {
		yc := y(float64(c.MaxConcurrency))
		v.CLine = &cLine{num(yc), num(yc - 5), chartW - padRight - 4, c.MaxConcurrency}
	}
	marks := make([]*markView, 3)
	for i, m := range []*figures.FigureMark{c.FirstReach, c.WindowStart, c.WindowEnd} {
		if m == nil {
			continue
		}
		mx := x(m.Seconds)
		mv := &markView{Class: []string{"mark-warm", "mark-start", "mark-end"}[i], X: num(mx), Y: num(y(float64(m.InFlight))),
			Label: m.Label, Kind: startOrEnd(m.Start), ID: m.ID, Seconds: fixed(m.Seconds, 6), InFlight: m.InFlight,
			TextX: num(mx + 6), Anchor: "start", TextY: v.Base() - 8 - 14*i}
		if i == 2 || mx > chartW*0.8 {
			mv.TextX, mv.Anchor = num(mx-6), "end"
		}
		marks[i] = mv
		v.Marks = append(v.Marks, *mv)
	}
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
// class.
type timelineRow struct {
	Index                       int
	ID, Why, Label              string
	Stable                      bool
	LabelX, InfoX               int
	LabelY, Y, X0, Xm           string // the strip from t0 to tm
	T0Path, TmPath, TmColor     string
	Events                      []classPath
	Info, InfoY, Info2Y         string
	TmWhat, WhyClip             string
	EventCount, Intervals, Zero int
}

type classPath struct{ Color, D string }

// Timeline geometry: a strip's height, the request ids' and the figures'
// column widths.
const rowH, labelW, infoW = 30, 150, 360

func newTimelinesView(rep *audit.Report) *timelinesView {
	f := rep.Figures
	if f == nil || f.Timelines == nil || len(f.Timelines.Requests) == 0 {
		return nil
	}
	tl := f.Timelines
	v := &timelinesView{Drawn: len(tl.Requests), Of: tl.Of, Rule: tl.Rule}
	const top, bottom = 10, 40
	v.frame = frame{H: top + bottom + rowH*len(tl.Requests), Top: top, Bottom: bottom}
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
		v.Window = &windowRect{X: num(scale(c.WindowFrom)), Width: num(math.Max(scale(c.WindowTo)-scale(c.WindowFrom), 1)), Y: v.Top, Height: rowH * len(tl.Requests)}
	}
	for i, r := range tl.Requests {
		x := scale
		if aligned {
			x = func(t float64) float64 { return scale(t - r.T0) }
		}
		v.Rows = append(v.Rows, newTimelineRow(r, float64(v.Top+rowH*i+rowH/2), x))
	}
	if aligned {
		v.Axis = newTimeAxis(v.frame, span, scale, "seconds after each request's t0 (strips aligned: the run is more than 4 times longer than its longest drawn request)")
	} else {
		v.Axis = newTimeAxis(v.frame, span, scale, "seconds after the first request's start")
	}
	return v
}

// newTimelineRow draws a request at height yc.
func newTimelineRow(r figures.RequestTimeline, yc float64, x func(float64) float64) timelineRow {
	why := strings.Join(r.Why, ", ")
	row := timelineRow{Index: r.Index, ID: r.ID, Why: why, Label: clip(r.ID, 18), Stable: r.Stable,
		LabelX: labelW - 8, InfoX: chartW - infoW + 10, LabelY: num(yc + 4), Y: num(yc), X0: num(x(r.T0)), Xm: num(x(r.Tm)),
		T0Path: fmt.Sprintf("M%s %sV%s", num(x(r.T0)), num(yc-9), num(yc+9)), TmPath: fmt.Sprintf("M%s %sV%s", num(x(r.Tm)), num(yc-10), num(yc+10)), TmColor: classColor(r.TmClass),
		InfoY: num(yc - 2), Info2Y: num(yc + 10), TmWhat: "tm: " + r.TmClass, WhyClip: clip(why, 34),
		EventCount: len(r.Events), Intervals: r.Intervals, Zero: r.ZeroGaps}
	if r.TmClass == "" {
		row.TmWhat = "tm: a time point"
	}
	row.Info = "TTFT " + unit.Value(unit.Seconds, r.TTFTSeconds) + " · TPOT " + unit.Value(unit.Seconds, r.TPOTSeconds) +
		" · ITL " + unit.Value(unit.Seconds, r.ITLMeanSeconds) + " · content " + unit.Value(unit.Seconds, r.ContentIntervalMeanSeconds) + " ms"
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

// clip shortens a label to n runes.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
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
	v := distView{frame: frame{H: 300, Top: 48, Bottom: 44}, Stage: render.StageTitle(d.Stage), StageID: string(d.Stage), ZeroX: padLeft + zeroW/2}
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
	x0, x1 := float64(padLeft+zeroW), float64(chartW-padRight)
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
	y := func(c float64) float64 { return float64(v.Top) + (1-c/float64(ymax))*float64(v.Base()-v.Top) }
	v.YTicks = yTicks(ymax, 5, y)
	// Ticks at 1, 2 and 5 of each decade on the log axis, labelled in ms.
	for k := math.Floor(lx0); k <= math.Ceil(lx1); k++ {
		for _, m := range []float64{1, 2, 5} {
			sec := m * math.Pow(10, k)
			if lg := math.Log10(sec); lg < lx0-1e-9 || lg > lx1+1e-9 {
				continue
			}
			v.Ticks = append(v.Ticks, xTick{num(x(sec)), msLabel(sec)})
		}
	}
	for i, ds := range dists {
		s := seriesView{Class: "bars", Color: colors[i], Metric: string(ds.Metric), Samples: ds.Samples, N: ds.N, Zero: ds.Zero,
			RectX: padLeft + 10, RectY: 16 + 16*i - 10, TextX: padLeft + 10 + 18, TextY: 16 + 16*i,
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
			bx := float64(padLeft+10) + bw*float64(i)
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
