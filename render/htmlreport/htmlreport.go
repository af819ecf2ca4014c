// Package htmlreport renders a finalized audit.Report (and optionally the
// what-if result of the same run) as one self-contained HTML page: AISBench's
// table beside sseaudit's figures, the in-flight concurrency curve with the
// stable window, per-request timelines, the ITL and ContentUpdateInterval
// distributions, the what-if deltas and the findings, each linked to its
// figure.
//
// The page has no script, no external style sheet, font or image: the charts
// are inline SVG written here. It scales and draws what audit.Report.Figures
// holds and computes no figure of its own.
package htmlreport

import (
	_ "embed"
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/findings"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/render"
	"github.com/sseaudit/sseaudit/table"
	"github.com/sseaudit/sseaudit/unit"
	"github.com/sseaudit/sseaudit/whatif"
)

//go:embed style.css
var styleCSS string

// Options are what the page shows besides the report.
type Options struct {
	// Title names the run, e.g. the trace's path.
	Title string
	// WhatIf is the what-if result of the same records (its default policies);
	// nil leaves the section out, saying WhatIfNote.
	WhatIf     *whatif.Result
	WhatIfNote string
}

// Section and figure anchors, stable: findings and the what-if link to them.
const (
	AnchorAISBench  = "aisbench"
	AnchorSSEAudit  = "sseaudit-metrics"
	AnchorITL       = "itl-accounting"
	AnchorInFlight  = "fig-inflight"
	AnchorTimelines = "fig-timelines"
	AnchorIntervals = "fig-intervals"
	AnchorWhatIf    = "whatif"
	AnchorFindings  = "findings"
)

// FindingAnchor is the figure a finding concerns.
func FindingAnchor(code string) string {
	switch code {
	case findings.CommentInBlock, findings.FieldLines, findings.MultiLineData,
		findings.BufferedStream, findings.RoleOnlySetsTTFT, findings.UsageTailSetsEnd:
		return AnchorTimelines
	case findings.ITLNCountsRequests:
		return AnchorITL
	case findings.TPOTBelowITL, findings.ZeroIntervals:
		return AnchorIntervals
	case findings.ConcurrencyBelowC, findings.NoStableWindow, findings.ShortStableWindow:
		return AnchorInFlight
	}
	return AnchorAISBench
}

var anchorNames = map[string]string{
	AnchorAISBench: "AISBench's table", AnchorITL: "ITL accounting", AnchorInFlight: "in-flight curve",
	AnchorTimelines: "request timelines", AnchorIntervals: "interval distributions",
}

// page accumulates the document.
type page struct {
	b   strings.Builder
	rep *audit.Report
	opt Options
}

func (p *page) w(format string, args ...any) { fmt.Fprintf(&p.b, format, args...) }
func (p *page) s(s string)                   { p.b.WriteString(s) }

// esc escapes text for HTML.
func esc(s string) string { return html.EscapeString(s) }

// Write renders the report as one HTML document.
func Write(w io.Writer, rep *audit.Report, opt Options) error {
	p := &page{rep: rep, opt: opt}
	title := "sseaudit report"
	if opt.Title != "" {
		title += ": " + opt.Title
	}
	p.s("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	p.s("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	p.w("<title>%s</title>\n<style>\n%s</style>\n</head>\n<body>\n", esc(title), styleCSS)
	p.header(title)
	p.aisbenchSection()
	p.sseSection()
	p.inFlightSection()
	p.timelineSection()
	p.intervalSection()
	p.whatIfSection()
	p.findingsSection()
	p.s("<footer>Made by sseaudit from the trace's raw bytes. AISBench's figures are reproduced exactly; everything marked <span class=\"tag sse\">sseaudit</span> is sseaudit's own, never in their place. Definitions: docs/metrics.md, docs/whatif.md, docs/report.md.</footer>\n")
	p.s("</body>\n</html>\n")
	_, err := io.WriteString(w, p.b.String())
	return err
}

func (p *page) header(title string) {
	r := p.rep
	p.w("<header>\n<h1>%s</h1>\n", esc(title))
	c := "unknown"
	if r.MaxConcurrency > 0 {
		c = strconv.Itoa(r.MaxConcurrency)
	}
	p.w("<p class=\"lead\">%d requests: %d succeeded, %d failed. Max concurrency C = %s.", r.Requests.Added, r.Requests.Succeeded, r.Requests.Failed, esc(c))
	if f := r.Figures; f != nil {
		p.w(" Run: %s s from the first start to the last end.", fixed(f.RunSeconds, 6))
	}
	p.s("</p>\n<nav>")
	links := []struct{ id, name string }{
		{AnchorAISBench, "AISBench's table"}, {AnchorSSEAudit, "sseaudit's metrics"}, {AnchorITL, "ITL accounting"},
		{AnchorInFlight, "in-flight &amp; window"}, {AnchorTimelines, "timelines"}, {AnchorIntervals, "ITL vs content"},
		{AnchorWhatIf, "what-if"}, {AnchorFindings, fmt.Sprintf("findings (%d)", len(r.Findings))},
	}
	for i, l := range links {
		if i > 0 {
			p.s(" · ")
		}
		p.w("<a href=\"#%s\">%s</a>", l.id, l.name)
	}
	p.s("</nav>\n</header>\n")
}

// stageTitle includes the stage's error when it has no numbers.
func (p *page) stageTitle(st aisbench.Stage) string {
	t := render.StageTitle(st)
	if p.rep.Stage(st).Err != nil {
		t += ": no result"
	}
	return t
}

func (p *page) aisbenchSection() {
	r := p.rep
	p.w("<section id=\"%s\">\n<h2>AISBench's table <span class=\"tag ais\">AISBench, exact</span></h2>\n", AnchorAISBench)
	p.s("<p class=\"explain\">What AISBench prints, for the <b>whole</b> run (<code>total</code>: every successful request, T = first start to last end) and the <b>native</b> window (<code>stable</code>: requests starting inside the window where C requests are in flight), from the same time points with the same arithmetic. <b>N</b> is AISBench's N: successful requests, and for TPOT and ITL the requests with a nonzero interval. <b>samples</b> is how many raw values stand behind the statistics: for ITL the pooled intervals of every request.</p>\n")
	cols := len(r.Stats) + 2
	p.s("<div class=\"scroll\"><table class=\"num wide\">\n<thead><tr><th rowspan=\"2\">Metric</th><th rowspan=\"2\">Unit</th>")
	for _, st := range aisbench.Stages {
		p.w("<th colspan=\"%d\" class=\"group\">%s</th>", cols, esc(p.stageTitle(st)))
	}
	p.s("</tr>\n<tr>")
	for range aisbench.Stages {
		for i, s := range r.Stats {
			cls := ""
			if i == 0 {
				cls = " class=\"gs\""
			}
			p.w("<th%s>%s</th>", cls, esc(s))
		}
		p.s("<th>N</th><th>samples</th>")
	}
	p.s("</tr></thead>\n<tbody>\n")
	for _, m := range metric.AISBench {
		present := false
		for _, st := range aisbench.Stages {
			if r.Stage(st).Metric(m) != nil {
				present = true
			}
		}
		if !present {
			continue
		}
		p.w("<tr id=\"row-%s\"><th>%s</th><td class=\"unit\">%s</td>", esc(string(m)), esc(string(m)), esc(unit.Label(m.Unit())))
		for _, st := range aisbench.Stages {
			mr := r.Stage(st).Metric(m)
			if mr == nil {
				for i := range cols {
					p.s(gsCell(i, "-"))
				}
				continue
			}
			for i, s := range mr.Stats {
				p.s(gsCell(i, unit.AISBenchNumber(mr.Unit, s.Rounded)))
			}
			p.w("<td class=\"n\">%d</td><td class=\"n\">%d</td>", mr.N, mr.Samples)
		}
		p.s("</tr>\n")
	}
	p.s("</tbody></table></div>\n")
	p.s("<h3>Common metrics <span class=\"tag ais\">AISBench, exact</span></h3>\n")
	p.plainTable(render.CommonTable(r), "common")
	var lines []string
	for _, st := range aisbench.Stages {
		sr := r.Stage(st)
		if sr.Err == nil {
			lines = append(lines, fmt.Sprintf("Stage duration (the denominator T of every rate), %s: %s s, %d requests.", render.StageTitle(st), fixed(sr.DurationSeconds, 6), len(sr.Requests)))
		}
	}
	if w := r.Stable.Window; w != nil {
		lines = append(lines, fmt.Sprintf("Stable window: %s s to %s s after the first request's start (%s s); %d of %d successful requests start inside (<a href=\"#%s\">in-flight curve</a>).",
			fixed(w.StartSeconds-w.OffsetSeconds, 6), fixed(w.EndSeconds-w.OffsetSeconds, 6), fixed(w.DurationSeconds, 6), w.Selected, w.Of, AnchorInFlight))
	}
	for _, l := range lines {
		p.w("<p class=\"small\">%s</p>\n", l)
	}
	if notes := render.Notes(r); len(notes) > 0 {
		p.s("<ul class=\"notes\">\n")
		for _, n := range notes {
			p.w("<li>%s</li>\n", esc(n))
		}
		p.s("</ul>\n")
	}
	p.s("</section>\n")
}

func gsCell(i int, text string) string {
	if i == 0 {
		return "<td class=\"gs\">" + esc(text) + "</td>"
	}
	return "<td>" + esc(text) + "</td>"
}

// plainTable renders a header row and rows of cells; the first column is a
// row heading.
func (p *page) plainTable(t *table.Table, class string) {
	if t == nil || len(t.Rows) == 0 {
		return
	}
	rows := t.Rows
	p.w("<div class=\"scroll\"><table class=\"num %s\">\n<thead><tr>", class)
	for _, h := range rows[0] {
		p.w("<th>%s</th>", esc(h))
	}
	p.s("</tr></thead>\n<tbody>\n")
	for _, row := range rows[1:] {
		p.s("<tr>")
		for i, c := range row {
			switch {
			case i == 0:
				p.w("<th>%s</th>", esc(c))
			case i == 1:
				p.w("<td class=\"unit\">%s</td>", esc(c))
			default:
				p.w("<td>%s</td>", esc(c))
			}
		}
		p.s("</tr>\n")
	}
	p.s("</tbody></table></div>\n")
}

func (p *page) sseSection() {
	r := p.rep
	p.w("<section id=\"%s\" class=\"sse\">\n<h2>What the figures are made of <span class=\"tag sse\">sseaudit, not AISBench's output</span></h2>\n", AnchorSSEAudit)
	p.s("<p class=\"explain\">sseaudit's own metrics, from the same recorded events: <b>ContentUpdateInterval</b> is the gap between events that carry content (ITL counts every event: role-only firsts, usage-only tails), <b>TTFContent</b> the time to the first content, <b>TokensPerEvent</b> the tokens an event carries when the stream says so. Statistics marked * are not in AISBench's table.</p>\n")
	cols := len(r.AllStats) + 2
	any := false
	for _, m := range metric.SSE {
		for _, st := range aisbench.Stages {
			if r.SSE.Stage(st).Metric(m) != nil {
				any = true
			}
		}
	}
	if any {
		p.s("<div class=\"scroll\"><table class=\"num wide\">\n<thead><tr><th rowspan=\"2\">sseaudit metric</th><th rowspan=\"2\">Unit</th>")
		for _, st := range aisbench.Stages {
			p.w("<th colspan=\"%d\" class=\"group\">%s</th>", cols, esc(render.StageTitle(st)))
		}
		p.s("</tr>\n<tr>")
		for range aisbench.Stages {
			for i, s := range r.AllStats {
				cls := ""
				if i == 0 {
					cls = " class=\"gs\""
				}
				p.w("<th%s>%s</th>", cls, esc(render.StatHeader(r, s)))
			}
			p.s("<th>N</th><th>samples</th>")
		}
		p.s("</tr></thead>\n<tbody>\n")
		for _, m := range metric.SSE {
			present := false
			for _, st := range aisbench.Stages {
				if r.SSE.Stage(st).Metric(m) != nil {
					present = true
				}
			}
			if !present {
				continue
			}
			p.w("<tr><th>%s</th><td class=\"unit\">%s</td>", esc(string(m)), esc(unit.Label(m.Unit())))
			for _, st := range aisbench.Stages {
				mr := r.SSE.Stage(st).Metric(m)
				if mr == nil {
					for i := range cols {
						p.s(gsCell(i, "-"))
					}
					continue
				}
				for i, s := range mr.Stats {
					p.s(gsCell(i, unit.Value(mr.Unit, s.Raw)))
				}
				p.w("<td class=\"n\">%d</td><td class=\"n\">%d</td>", mr.N, mr.Samples)
			}
			p.s("</tr>\n")
		}
		p.s("</tbody></table></div>\n")
	}
	var absent []string
	for _, st := range aisbench.Stages {
		for _, a := range r.SSE.Stage(st).Absent {
			absent = append(absent, fmt.Sprintf("no %s in %s: %s", a.Name, render.StageTitle(st), a.Reason))
		}
	}
	if len(absent) > 0 {
		p.s("<ul class=\"notes\">\n")
		for _, a := range absent {
			p.w("<li>%s</li>\n", esc(a))
		}
		p.s("</ul>\n")
	}
	if wt := r.SSE.Stable.Windowed; wt != nil {
		p.w("<p><b>WindowedOutputThroughput</b> <span class=\"tag sse\">sseaudit</span> %s %s: %s %s inside the native window of %s ms, from %d requests.",
			esc(unit.Value(unit.TokensPerSecond, wt.PerSecond)), wt.Unit(), strconv.FormatFloat(wt.Count, 'f', -1, 64), esc(wt.Basis),
			esc(unit.Value(unit.Seconds, wt.WindowSeconds)), wt.Requests)
		if v := wt.NativeOutputTokenThroughput; v != nil {
			p.w(" AISBench's native Output Token Throughput, the selected requests' <i>whole</i> output over the window, is %s token/s.", esc(unit.AISBenchNumber(unit.TokensPerSecond, v.Rounded)))
		}
		p.s("</p>\n")
	}
	for _, st := range aisbench.Stages {
		for _, s := range r.SSE.Stage(st).SLOs {
			p.w("<p>SLO <code>%s</code>, %s: %d of %d requests (%s%%)", esc(s.SLO.Text), esc(render.StageTitle(st)), s.Met, s.Denominator, esc(unit.Value(unit.Ratio, s.Fraction*100)))
			if s.Missing > 0 {
				p.w(", %d without a value", s.Missing)
			}
			p.s(".</p>\n")
		}
	}
	p.w("<h3 id=\"%s\">ITL accounting: how many intervals stand behind ITL's N</h3>\n", AnchorITL)
	p.s(p.itlSentence())
	p.plainTable(render.ITLAccountingTable(r), "itl")
	p.s("</section>\n")
}

// itlSentence answers "how many intervals stand behind ITL's N" in words,
// from the ITL accounting.
func (p *page) itlSentence() string {
	var parts []string
	for _, st := range aisbench.Stages {
		a := p.rep.SSE.Stage(st).ITL
		if a == nil {
			continue
		}
		parts = append(parts, fmt.Sprintf("in the %s stage ITL's N is <b>%d</b> (requests with a nonzero interval) while its statistics pool <b>%d intervals</b> (%d of them exactly 0) from %d requests; the pooled mean weighs a request by its number of intervals (%s ms), the mean of per-request means weighs every request the same (%s ms)",
			esc(render.StageTitle(st)), a.AISBenchN, a.Intervals, a.ZeroIntervals, a.RequestsWithIntervals,
			esc(unit.Value(unit.Seconds, a.PooledMeanSeconds)), esc(unit.Value(unit.Seconds, a.PerRequestMeanSeconds))))
	}
	if parts == nil {
		return "<p class=\"explain\">No stage has requests.</p>\n"
	}
	return "<p class=\"explain\">" + capitalize(strings.Join(parts, "; ")) + ".</p>\n"
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// fixed formats x with prec decimals.
func fixed(x float64, prec int) string { return strconv.FormatFloat(x, 'f', prec, 64) }

func (p *page) whatIfSection() {
	p.w("<section id=\"%s\">\n<h2>What if AISBench kept fewer time points <span class=\"tag sse\">sseaudit</span></h2>\n", AnchorWhatIf)
	res := p.opt.WhatIf
	if res == nil {
		note := p.opt.WhatIfNote
		if note == "" {
			note = "not computed"
		}
		p.w("<p class=\"explain\">What-if: %s.</p>\n</section>\n", esc(note))
		return
	}
	p.s("<p class=\"explain\">Each policy drops some events' time points and computes AISBench's figures again with the same code (docs/whatif.md). Deltas are the policy minus AISBench's own figures; a positive tm shift means the request ends earlier. tm moves show on the <a href=\"#" + AnchorTimelines + "\">timelines</a>, ITL on the <a href=\"#" + AnchorIntervals + "\">distributions</a>, the window on the <a href=\"#" + AnchorInFlight + "\">in-flight curve</a>.</p>\n")
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
	p.s("<div class=\"scroll\"><table class=\"num whatif\">\n<thead><tr><th>policy</th><th>stage</th>")
	p.w("<th>time points dropped</th><th>new failures</th><th><a href=\"#%s\">tm moved</a></th><th><a href=\"#%s\">tm shift mean / max, ms</a></th>", AnchorTimelines, AnchorTimelines)
	for _, m := range []metric.Metric{metric.E2EL, metric.TTFT, metric.TPOT, metric.ITL} {
		anchor := AnchorTimelines
		if m == metric.ITL {
			anchor = AnchorIntervals
		}
		p.w("<th><a href=\"#%s\">Δ %s %s, ms</a></th><th>Δ N</th>", anchor, esc(string(m)), esc(statName))
	}
	p.w("<th><a href=\"#%s\">Δ window start / end, s</a></th><th>Δ Output Token Throughput, token/s</th></tr></thead>\n<tbody>\n", AnchorInFlight)
	for _, o := range res.Outcomes[1:] {
		for si, st := range o.Stages {
			p.s("<tr>")
			if si == 0 {
				p.w("<th rowspan=\"%d\" title=\"%s\"><code>%s</code></th>", len(o.Stages), esc(o.Policy.Description()), esc(o.Policy.Name()))
			}
			p.w("<td class=\"unit\">%s</td>", esc(render.StageTitle(st.Stage)))
			if si == 0 {
				p.w("<td rowspan=\"%d\">%d of %d</td><td rowspan=\"%d\">%d</td>", len(o.Stages), o.TimePointsDropped, o.TimePointsKept+o.TimePointsDropped, len(o.Stages), len(o.NewFailures))
			}
			p.w("<td>%d of %d</td>", st.TmMoved, st.Compared)
			if st.TmShift != nil {
				p.w("<td>%s / %s</td>", esc(unit.Value(unit.Seconds, st.TmShift.MeanSeconds)), esc(unit.Value(unit.Seconds, st.TmShift.MaxSeconds)))
			} else {
				p.s("<td>-</td>")
			}
			for _, m := range []metric.Metric{metric.E2EL, metric.TTFT, metric.TPOT, metric.ITL} {
				var md *whatif.MetricDelta
				if st.Delta != nil {
					md = st.Delta.Metric(m)
				}
				if md == nil || stat >= len(md.Stats) {
					p.s("<td>-</td><td>-</td>")
					continue
				}
				p.w("<td>%s</td><td>%s</td>", esc(signedValue(unit.Seconds, md.Stats[stat])), esc(signedCount(md.N)))
			}
			if st.Delta != nil && st.Delta.WindowStartSeconds.Known {
				p.w("<td>%s / %s</td>", esc(signedFixed(st.Delta.WindowStartSeconds, 6)), esc(signedFixed(st.Delta.WindowEndSeconds, 6)))
			} else {
				p.s("<td>-</td>")
			}
			if st.Delta != nil {
				p.w("<td>%s</td>", esc(signedValue(unit.TokensPerSecond, st.Delta.OutputTokenThroughput)))
			} else {
				p.s("<td>-</td>")
			}
			p.s("</tr>\n")
		}
	}
	p.s("</tbody></table></div>\n<ul class=\"notes\">\n")
	for _, o := range res.Outcomes[1:] {
		p.w("<li><code>%s</code>: %s</li>\n", esc(o.Policy.Name()), esc(o.Policy.Description()))
	}
	p.s("</ul>\n</section>\n")
}

func signedValue(u unit.Unit, n whatif.Number) string {
	if !n.Known {
		return "-"
	}
	s := unit.Value(u, n.Value)
	if n.Value > 0 {
		s = "+" + s
	}
	return s
}

func signedFixed(n whatif.Number, prec int) string {
	if !n.Known {
		return "-"
	}
	s := fixed(n.Value, prec)
	if n.Value > 0 {
		s = "+" + s
	}
	return s
}

func signedCount(n whatif.Number) string {
	if !n.Known {
		return "-"
	}
	s := strconv.FormatFloat(n.Value, 'f', -1, 64)
	if n.Value > 0 {
		s = "+" + s
	}
	return s
}

func (p *page) findingsSection() {
	r := p.rep
	p.w("<section id=\"%s\">\n<h2>Findings <span class=\"tag sse\">sseaudit</span></h2>\n", AnchorFindings)
	if len(r.Findings) == 0 {
		p.s("<p>None.</p>\n</section>\n")
		return
	}
	for _, f := range r.Findings {
		where := "run"
		if f.Stage != "" {
			where = render.StageTitle(f.Stage)
		}
		anchor := FindingAnchor(f.Code)
		p.w("<div class=\"finding %s\" id=\"finding-%s-%s\">\n", esc(string(f.Severity)), esc(f.Code), esc(string(f.Stage)))
		p.w("<p><span class=\"sev\">%s</span> <code>%s</code> <span class=\"where\">%s; %s</span> — <a href=\"#%s\">see the %s</a></p>\n",
			esc(string(f.Severity)), esc(f.Code), esc(where), esc(f.Figure), anchor, esc(anchorNames[anchor]))
		p.w("<p>%s</p>\n", esc(f.Message))
		ev := make([]string, len(f.Evidence))
		for i, e := range f.Evidence {
			ev[i] = e.Text()
		}
		p.w("<p class=\"small\">evidence: %s</p>\n", esc(strings.Join(ev, ", ")))
		if len(f.Requests) > 0 {
			ids := f.Requests
			more := ""
			if len(ids) > 8 {
				more = fmt.Sprintf(" and %d more", len(ids)-8)
				ids = ids[:8]
			}
			p.w("<p class=\"small\">requests: %s%s</p>\n", esc(strings.Join(ids, ", ")), more)
		}
		p.s("</div>\n")
	}
	p.s("</section>\n")
}
