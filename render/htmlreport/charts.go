package htmlreport

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/sseaudit/sseaudit/figures"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/render"
	"github.com/sseaudit/sseaudit/unit"
)

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

func (p *page) inFlightSection() {
	p.w("<section id=\"%s\">\n<h2>In-flight requests and the native window</h2>\n", AnchorInFlight)
	f := p.rep.Figures
	if f == nil || f.InFlight == nil {
		p.s("<p class=\"explain\">No successful request: nothing to draw.</p>\n</section>\n")
		return
	}
	c := f.InFlight
	p.s(p.windowSentence(c))
	const h, top, bottom = 300, 24, 40
	ymax := int(float64(max(c.PeakInFlight, c.MaxConcurrency))*1.25) + 1
	x := func(t float64) float64 {
		if f.RunSeconds <= 0 {
			return padLeft
		}
		return padLeft + t/f.RunSeconds*(chartW-padLeft-padRight)
	}
	y := func(n float64) float64 { return top + (1-n/float64(ymax))*(h-top-bottom) }
	p.w("<figure><svg class=\"chart\" id=\"svg-inflight\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"in-flight requests over time\">\n", chartW, h)
	// Window shading.
	if c.HasWindow {
		p.w("<rect class=\"window\" x=\"%s\" y=\"%d\" width=\"%s\" height=\"%d\"><title>native (stable) window: %s s to %s s</title></rect>\n",
			num(x(c.WindowFrom)), top, num(math.Max(x(c.WindowTo)-x(c.WindowFrom), 1)), h-top-bottom, fixed(c.WindowFrom, 6), fixed(c.WindowTo, 6))
	}
	p.axes(h, top, bottom, f.RunSeconds, x, "seconds after the first request's start")
	for _, v := range niceTicks(0, float64(ymax), 6) {
		if v != math.Trunc(v) {
			continue
		}
		p.w("<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%s\" y2=\"%s\"/><text class=\"tick\" x=\"%d\" y=\"%s\" text-anchor=\"end\">%d</text>\n",
			padLeft, chartW-padRight, num(y(v)), num(y(v)), padLeft-6, num(y(v)+4), int(v))
	}
	if c.HasWindow {
		p.w("<text class=\"wlabel\" x=\"%s\" y=\"%d\">native (stable) window</text>\n", num(x(c.WindowFrom)+6), top+14)
	}
	p.w("<text class=\"axis\" transform=\"translate(16 %d) rotate(-90)\" text-anchor=\"middle\">in flight</text>\n", (h-bottom+top)/2)
	// Transient counts at one instant (or inside a bucket).
	var spikes strings.Builder
	for _, pt := range c.Points {
		if pt.Min != pt.Max {
			fmt.Fprintf(&spikes, "M%s %sV%s", num(x(pt.Seconds)), num(y(float64(pt.Min))), num(y(float64(pt.Max))))
		}
	}
	if spikes.Len() > 0 {
		p.w("<path class=\"spike\" d=\"%s\"/>\n", spikes.String())
	}
	// The step curve.
	var d strings.Builder
	prev := 0
	fmt.Fprintf(&d, "M%s %s", num(x(0)), num(y(0)))
	for _, pt := range c.Points {
		fmt.Fprintf(&d, "H%sV%s", num(x(pt.Seconds)), num(y(float64(pt.InFlight))))
		prev = pt.InFlight
	}
	_ = prev
	p.w("<path class=\"curve\" d=\"%s\"/>\n", d.String())
	if c.MaxConcurrency > 0 {
		yc := y(float64(c.MaxConcurrency))
		p.w("<line class=\"cline\" x1=\"%d\" x2=\"%d\" y1=\"%s\" y2=\"%s\"/><text class=\"clabel\" x=\"%d\" y=\"%s\" text-anchor=\"end\">C = %d</text>\n",
			padLeft, chartW-padRight, num(yc), num(yc), chartW-padRight-4, num(yc-5), c.MaxConcurrency)
	}
	for i, m := range []*figures.FigureMark{c.FirstReach, c.WindowStart, c.WindowEnd} {
		if m == nil {
			continue
		}
		cls := []string{"mark-warm", "mark-start", "mark-end"}[i]
		kind := "end"
		if m.Start {
			kind = "start"
		}
		mx, my := x(m.Seconds), y(float64(m.InFlight))
		anchor := "start"
		dx := 6.0
		if i == 2 || mx > chartW*0.8 {
			anchor, dx = "end", -6
		}
		p.w("<g class=\"%s\"><line x1=\"%s\" x2=\"%s\" y1=\"%d\" y2=\"%d\"/><circle cx=\"%s\" cy=\"%s\" r=\"5\"><title>%s: %s of %s at %s s, %d in flight</title></circle>",
			cls, num(mx), num(mx), top, h-bottom, num(mx), num(my), esc(m.Label), kind, esc(m.ID), fixed(m.Seconds, 6), m.InFlight)
		p.w("<text x=\"%s\" y=\"%d\" text-anchor=\"%s\">%s (%s of %s)</text></g>\n", num(mx+dx), h-bottom-8-14*i, anchor, esc(m.Label), kind, esc(m.ID))
	}
	p.s("</svg>\n<figcaption>In-flight successful requests (AISBench's walk of starts and ends). ")
	if c.Bucketed {
		p.w("The run's %d starts and ends are drawn in %d time buckets: the line is the count at each bucket's end, the grey bars the range inside it. ", c.Events, len(c.Points))
	} else {
		p.s("Grey bars: counts passed through at one instant (several events at the same time). ")
	}
	p.s("Dashed line: the configured C. Shaded: AISBench's native (stable) window.</figcaption></figure>\n")
	if t := render.SelectorTable(p.rep); t != nil && p.rep.Stable.Window != nil {
		p.s("<details><summary>The windows AISBench's earlier selectors would have picked</summary>\n")
		p.plainTable(t, "selectors")
		p.s("<ul class=\"notes\">\n")
		for _, s := range p.rep.Window.Selectors {
			p.w("<li><code>%s</code> (AISBench commit %s): %s</li>\n", esc(s.Name), esc(s.Commit[:12]), esc(s.Description))
		}
		p.s("</ul>\n</details>\n")
	}
	p.s("</section>\n")
}

// windowSentence answers "why does the native window start and end where it
// does" from the window's defining events.
func (p *page) windowSentence(c *figures.InFlightCurve) string {
	var b strings.Builder
	b.WriteString("<p class=\"explain\">")
	switch {
	case c.MaxConcurrency == 0:
		b.WriteString("The max concurrency C is unknown: AISBench's native stage needs it, so there is no window.")
	case c.WindowStart == nil:
		fmt.Fprintf(&b, "AISBench's native window starts at the <b>second</b> request start that brings the in-flight count to C = %d (the first is warm-up). Here %d start(s) reached C and the peak was %d in flight: there is no native window.",
			c.MaxConcurrency, c.ReachesAtStart, c.PeakInFlight)
	default:
		fmt.Fprintf(&b, "AISBench's native window starts at the <b>second</b> request start that brings the in-flight count to C = %d (the first, %s at %s s, is warm-up): the start of %s at <b>%s s</b>. It ends at the <b>last event of any kind</b> after which C requests are in flight: the %s of %s at <b>%s s</b>. ",
			c.MaxConcurrency, esc(c.FirstReach.ID), fixed(c.FirstReach.Seconds, 6), esc(c.WindowStart.ID), fixed(c.WindowStart.Seconds, 6),
			startOrEnd(c.WindowEnd.Start), esc(c.WindowEnd.ID), fixed(c.WindowEnd.Seconds, 6))
		if c.HasWindow {
			fmt.Fprintf(&b, "The native stage holds the %d of %d successful requests that <b>start</b> inside it, with their whole output. ", c.SelectedInWindow, c.OfIn)
		}
		fmt.Fprintf(&b, "%d start(s) reached C; %s%% of the run had C in flight.", c.ReachesAtStart, fixed(c.AtCShare*100, 1))
	}
	b.WriteString("</p>\n")
	return b.String()
}

func startOrEnd(start bool) string {
	if start {
		return "start"
	}
	return "end"
}

// axes draws the time axis of a chart spanning [0, run] seconds.
func (p *page) axes(h, top, bottom int, run float64, x func(float64) float64, label string) {
	p.w("<line class=\"axisline\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>\n", padLeft, chartW-padRight, h-bottom, h-bottom)
	ticks := niceTicks(0, run, 10)
	for _, t := range ticks {
		p.w("<line class=\"tickline\" x1=\"%s\" x2=\"%s\" y1=\"%d\" y2=\"%d\"/><text class=\"tick\" x=\"%s\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
			num(x(t)), num(x(t)), h-bottom, h-bottom+5, num(x(t)), h-bottom+18, tickLabel(t, ticks))
	}
	p.w("<text class=\"axis\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", (padLeft+chartW-padRight)/2, h-6, esc(label))
}

func (p *page) timelineSection() {
	p.w("<section id=\"%s\">\n<h2>Per-request timelines: what sets TTFT, tm and the intervals</h2>\n", AnchorTimelines)
	f := p.rep.Figures
	if f == nil || f.Timelines == nil || len(f.Timelines.Requests) == 0 {
		p.s("<p class=\"explain\">No successful request: nothing to draw.</p>\n</section>\n")
		return
	}
	tl := f.Timelines
	p.s("<p class=\"explain\">One strip a request (on the run's time axis; for a run much longer than its requests, each strip starts at its own t0): each tick is a recorded event, one of AISBench's time points, coloured by class. ")
	p.s("<b>t0</b> (the request's send) opens the strip; <b>tm</b>, AISBench's end and the last time point, closes it, drawn in the colour of the event that set it: a red tm is a usage-only tail, which sets E2EL, TPOT and the last ITL interval without carrying text. ")
	p.s("ITL is the gap between any two consecutive ticks; ContentUpdateInterval only between blue (content) ticks; TPOT spreads E2EL − TTFT over the output tokens, so it is small when each event carries several tokens. ")
	if len(f.TmSetBy) > 0 {
		p.w("Over every successful request, <b>tm is set by</b> %s; <b>TTFT ends at</b> %s. ", setBy(f.TmSetBy, tl.Of), setBy(f.TTFTSetBy, tl.Of))
	}
	if len(tl.Requests) < tl.Of {
		p.w("A sample of %d of %d requests is drawn: %s.", len(tl.Requests), tl.Of, esc(tl.Rule))
	} else {
		p.w("All %d successful requests are drawn.", tl.Of)
	}
	p.s("</p>\n")
	// Legend: the classes present.
	present := map[string]bool{}
	for _, r := range tl.Requests {
		for _, e := range r.Events {
			present[e.Class] = true
		}
	}
	p.s("<p class=\"legend\">")
	for _, cc := range classColors {
		if present[cc.class] {
			p.w("<span><i style=\"background:%s\"></i>%s</span> ", cc.color, esc(cc.label))
		}
	}

	const rowH, top, bottom, labelW, infoW = 30, 10, 40, 150, 360
	h := top + bottom + rowH*len(tl.Requests)
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
	x := scale
	if f.InFlight != nil && f.InFlight.HasWindow && !aligned {
		p.s("<span><i class=\"wl\"></i>native window</span> ")
	}
	p.s("<span>★ selected in the native stage</span></p>\n")
	p.w("<figure><svg class=\"chart\" id=\"svg-timelines\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"request timelines\">\n", chartW, h)
	if c := f.InFlight; c != nil && c.HasWindow && !aligned {
		p.w("<rect class=\"window\" x=\"%s\" y=\"%d\" width=\"%s\" height=\"%d\"/>\n", num(x(c.WindowFrom)), top, num(math.Max(x(c.WindowTo)-x(c.WindowFrom), 1)), rowH*len(tl.Requests))
	}
	for i, r := range tl.Requests {
		yc := float64(top + rowH*i + rowH/2)
		x = scale
		if aligned {
			t0 := r.T0
			x = func(t float64) float64 { return scale(t - t0) }
		}
		star := ""
		if r.Stable {
			star = "★ "
		}
		why := strings.Join(r.Why, ", ")
		p.w("<g class=\"req\" id=\"req-%d\"><title>%s (%s)</title>", r.Index, esc(r.ID), esc(why))
		p.w("<text class=\"rid\" x=\"%d\" y=\"%s\" text-anchor=\"end\">%s%s</text>", labelW-8, num(yc+4), star, esc(clip(r.ID, 18)))
		p.w("<line class=\"strip\" x1=\"%s\" x2=\"%s\" y1=\"%s\" y2=\"%s\"/>", num(x(r.T0)), num(x(r.Tm)), num(yc), num(yc))
		p.w("<path class=\"t0\" d=\"M%s %sV%s\"/>", num(x(r.T0)), num(yc-9), num(yc+9))
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
			p.w("<path class=\"ev\" stroke=\"%s\" d=\"%s\"/>", classColor(cl), byClass[cl].String())
		}
		p.w("<path class=\"tm\" stroke=\"%s\" d=\"M%s %sV%s\"/>", classColor(r.TmClass), num(x(r.Tm)), num(yc-10), num(yc+10))
		info := "TTFT " + unit.Value(unit.Seconds, r.TTFTSeconds) + " · TPOT " + unit.Value(unit.Seconds, r.TPOTSeconds) +
			" · ITL " + unit.Value(unit.Seconds, r.ITLMeanSeconds) + " · content " + unit.Value(unit.Seconds, r.ContentIntervalMeanSeconds) + " ms"
		p.w("<text class=\"info\" x=\"%d\" y=\"%s\">%s</text>", chartW-infoW+10, num(yc-2), esc(info))
		tmWhat := "tm: " + r.TmClass
		if r.TmClass == "" {
			tmWhat = "tm: a time point"
		}
		p.w("<text class=\"info2\" x=\"%d\" y=\"%s\">%s · %d events, %d intervals (%d zero) · %s</text>", chartW-infoW+10, num(yc+10), esc(tmWhat), len(r.Events), r.Intervals, r.ZeroGaps, esc(clip(why, 34)))
		p.s("</g>\n")
	}
	if aligned {
		p.axes(h, top, bottom, span, scale, "seconds after each request's t0 (strips aligned: the run is more than 4 times longer than its longest drawn request)")
	} else {
		p.axes(h, top, bottom, span, scale, "seconds after the first request's start")
	}
	p.s("</svg>\n<figcaption>Ticks: recorded events (time points after t0). Thin bar: t0. Tall bar: tm, in the colour of the event that set it. Right: the request's own TTFT, TPOT (AISBench's formula), mean ITL and mean ContentUpdateInterval, in ms; the class of the event that set tm; why the request is drawn.</figcaption></figure>\n</section>\n")
}

// clip shortens a label to n runes.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func (p *page) intervalSection() {
	p.w("<section id=\"%s\">\n<h2>ITL and ContentUpdateInterval: why TPOT and ITL differ</h2>\n", AnchorIntervals)
	f := p.rep.Figures
	if f == nil || len(f.Distributions) == 0 {
		p.s("<p class=\"explain\">No stage has intervals: nothing to draw.</p>\n</section>\n")
		return
	}
	p.s(p.tpotSentence())
	for _, d := range f.Distributions {
		p.distribution(d)
	}
	p.s("</section>\n")
}

// tpotSentence puts the TPOT and ITL averages of the whole stage side by side.
func (p *page) tpotSentence() string {
	st := p.rep.Total
	tpot, itl := st.Metric(metric.TPOT), st.Metric(metric.ITL)
	var b strings.Builder
	b.WriteString("<p class=\"explain\">ITL is the gap between consecutive recorded events of any kind, pooled over requests; ContentUpdateInterval the gap between events carrying content. TPOT is not an interval: it is (E2EL − TTFT) / (output tokens − 1), the decode time spread over the tokens. ")
	if tpot != nil && itl != nil && len(tpot.Stats) > 0 && len(itl.Stats) > 0 {
		fmt.Fprintf(&b, "In the whole run, TPOT's %s is %s ms and ITL's %s ms: ", esc(tpot.Stats[0].Name), esc(unit.AISBenchNumber(tpot.Unit, tpot.Stats[0].Rounded)), esc(unit.AISBenchNumber(itl.Unit, itl.Stats[0].Rounded)))
		b.WriteString("when events carry several tokens each (speculative decoding, batched deltas) TPOT falls below ITL; when events carry no token (role-only firsts, usage-only tails, finish-only events) ITL gains intervals TPOT does not count. ")
	}
	if tpe := p.rep.SSE.Total.Metric(metric.TokensPerEvent); tpe != nil && len(tpe.Stats) > 0 {
		fmt.Fprintf(&b, "Here the stream says its events carry %s tokens on average (TokensPerEvent). ", esc(unit.Value(tpe.Unit, tpe.Stats[0].Raw)))
	}
	b.WriteString("Zero intervals (events completed by one read) cannot sit on a log axis and are counted at the left.</p>\n")
	return b.String()
}

func (p *page) distribution(d *figures.DistributionPair) {
	const h, top, bottom, zeroW = 300, 48, 44, 70
	p.w("<h3>%s</h3>\n", esc(render.StageTitle(d.Stage)))
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
	y := func(c float64) float64 { return top + (1-c/float64(ymax))*(h-top-bottom) }
	p.w("<figure><svg class=\"chart dist\" id=\"svg-intervals-%s\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"interval histograms\">\n", esc(string(d.Stage)), chartW, h)
	p.w("<line class=\"axisline\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>\n", padLeft, chartW-padRight, h-bottom, h-bottom)
	for _, v := range niceTicks(0, float64(ymax), 5) {
		if v != math.Trunc(v) {
			continue
		}
		p.w("<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%s\" y2=\"%s\"/><text class=\"tick\" x=\"%d\" y=\"%s\" text-anchor=\"end\">%d</text>\n",
			padLeft, chartW-padRight, num(y(v)), num(y(v)), padLeft-6, num(y(v)+4), int(v))
	}
	p.w("<text class=\"axis\" transform=\"translate(16 %d) rotate(-90)\" text-anchor=\"middle\">intervals</text>\n", (h-bottom+top)/2)
	// Ticks at 1, 2 and 5 of each decade on the log axis, labelled in ms.
	for k := math.Floor(lx0); k <= math.Ceil(lx1); k++ {
		for _, m := range []float64{1, 2, 5} {
			sec := m * math.Pow(10, k)
			if lg := math.Log10(sec); lg < lx0-1e-9 || lg > lx1+1e-9 {
				continue
			}
			p.w("<line class=\"tickline\" x1=\"%s\" x2=\"%s\" y1=\"%d\" y2=\"%d\"/><text class=\"tick\" x=\"%s\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
				num(x(sec)), num(x(sec)), h-bottom, h-bottom+5, num(x(sec)), h-bottom+18, esc(msLabel(sec)))
		}
	}
	p.w("<text class=\"tick\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">= 0</text>\n", padLeft+zeroW/2, h-bottom+18)
	p.w("<text class=\"axis\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">interval, ms (log scale; ten bins a decade)</text>\n", (padLeft+chartW-padRight)/2, h-6)
	for i, ds := range dists {
		col := colors[i]
		cls := "bars"
		if i == 1 {
			cls = "bars outline"
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
		p.w("<path class=\"%s\" fill=\"%s\" stroke=\"%s\" d=\"%s\"><title>%s: %d samples</title></path>\n", cls, col, col, path.String(), ds.Metric, ds.Samples)
		for k, mean := range []float64{ds.PooledMeanSeconds, ds.PerRequestMeanSeconds} {
			if math.IsNaN(mean) || mean <= 0 || lx1 <= lx0 {
				continue
			}
			dash := ""
			what := "pooled mean"
			if k == 1 {
				dash = " stroke-dasharray=\"6 4\""
				what = "mean of per-request means"
			}
			mx := x(mean)
			p.w("<line class=\"meanline\" stroke=\"%s\"%s x1=\"%s\" x2=\"%s\" y1=\"%d\" y2=\"%d\"><title>%s %s: %s ms</title></line>\n",
				col, dash, num(mx), num(mx), top-6, h-bottom, ds.Metric, what, unit.Value(unit.Seconds, mean))
		}
	}
	// Legend, one line a metric.
	for i, ds := range dists {
		lx, ly := padLeft+10, 16+16*i
		p.w("<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\" fill-opacity=\"0.5\" stroke=\"%s\"/>", lx, ly-10, colors[i], colors[i])
		p.w("<text class=\"legend\" x=\"%d\" y=\"%d\">%s: %d samples, N %d, %d zero; pooled mean %s ms (solid), per-request mean %s ms (dashed)</text>\n",
			lx+18, ly, ds.Metric, ds.Samples, ds.N, ds.Zero, unit.Value(unit.Seconds, ds.PooledMeanSeconds), unit.Value(unit.Seconds, ds.PerRequestMeanSeconds))
	}
	p.s("</svg>\n<figcaption>Filled blue: ITL (every recorded event). Orange outline: ContentUpdateInterval (content events only). Vertical lines: the pooled mean (solid: AISBench's ITL Average, a request weighs its interval count) and the mean of per-request means (dashed: every request weighs the same).</figcaption></figure>\n")
}

// msLabel labels a decade tick (seconds) in milliseconds.
func msLabel(sec float64) string {
	ms := sec * 1000
	return strconv.FormatFloat(ms, 'g', 3, 64) + " ms"
}

// setBy lists class counts: "a usage_only event in 9 of 9 requests, ...".
func setBy(cs []figures.ClassCount, of int) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = fmt.Sprintf("a <b>%s</b> event in %d of %d requests", esc(c.Class), c.Requests, of)
	}
	return strings.Join(parts, ", ")
}
