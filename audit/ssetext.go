package audit

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// sseNumber shows a value of sseaudit's section: in the display unit, at most
// four decimals (AISBench's resolution), "-" for NaN.
func sseNumber(u Unit, x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return PyFloatRepr(PyRound(x*displayScale(u), 4))
}

// sseUnitLabel is the unit shown for sseaudit's metrics.
func sseUnitLabel(u Unit) string {
	if u == UnitTokensPerEvent {
		return string(u)
	}
	return unitLabel(u)
}

// statHeader marks a statistic AISBench's table lacks.
func (r *Report) statHeader(s string) string {
	if r.InAISBenchTable(s) {
		return s
	}
	return s + "*"
}

// statistic finds a statistic among a metric's Stats and Extra; an absent
// metric (nil) has none.
func (m *MetricResult) statistic(name string) (Statistic, bool) {
	if m == nil {
		return Statistic{}, false
	}
	for _, s := range m.Stats {
		if s.Name == name {
			return s, true
		}
	}
	for _, s := range m.Extra {
		if s.Name == name {
			return s, true
		}
	}
	return Statistic{}, false
}

// writeSSEText writes sseaudit's section: its metrics, AISBench's metrics'
// missing statistics, the ITL accounting, the windowed throughput, SLOs, the
// stable window explained and the findings.
func (r *Report) writeSSEText(b *strings.Builder) {
	r.heading(b, "\n== sseaudit: what the figures above are made of (not AISBench's output; docs/metrics.md) ==\n\n")
	r.writeSSEMetricTable(b)
	r.writeExtraStatsTable(b)
	r.writeITLText(b)
	r.writeWindowedText(b)
	r.writeSLOText(b)
	r.writeWindowText(b)
	r.writeFindingsText(b)
}

func (r *Report) stageHasSSE() bool {
	for _, stage := range Stages {
		if r.Stage(stage).ITL != nil {
			return true
		}
	}
	return false
}

func (r *Report) writeSSEMetricTable(b *strings.Builder) {
	if !r.stageHasSSE() {
		b.WriteString("sseaudit metrics: no stage has requests to measure\n")
		return
	}
	cols := len(r.AllStats) + 2
	header := []string{"sseaudit metric", "Unit"}
	for range Stages {
		for _, s := range r.AllStats {
			header = append(header, r.statHeader(s))
		}
		header = append(header, "N", "samples")
	}
	rows := [][]string{header}
	var notes []string
	for _, m := range SSEMetrics {
		row := []string{string(m), sseUnitLabel(m.Unit())}
		present := false
		var why []string // per stage, "" when present
		for _, stage := range Stages {
			st := r.Stage(stage)
			mr := st.SSEMetric(m)
			if mr == nil {
				for range cols {
					row = append(row, "-")
				}
				reason := "" // a stage without requests says so in its title
				for _, a := range st.SSEAbsent {
					if a.Name == m {
						reason = a.Reason
					}
				}
				why = append(why, reason)
				continue
			}
			present = true
			why = append(why, "")
			for _, s := range mr.Stats {
				row = append(row, sseNumber(mr.Unit, s.Raw))
			}
			row = append(row, strconv.Itoa(mr.N), strconv.Itoa(mr.Samples))
		}
		if present {
			rows = append(rows, row)
		}
		switch {
		case why[0] == why[1] && why[0] != "":
			notes = append(notes, fmt.Sprintf("no %s: %s", m, why[0]))
		default:
			for i, w := range why {
				if w != "" {
					notes = append(notes, fmt.Sprintf("no %s in %s: %s", m, stageTitles[Stages[i]], w))
				}
			}
		}
	}
	if len(rows) > 1 {
		titles := make([]string, len(Stages))
		for i, stage := range Stages {
			titles[i] = stageTitles[stage]
			if r.Stage(stage).ITL == nil {
				titles[i] += ": no requests"
			}
		}
		r.grid(b, rows, 2, cols, titles)
		b.WriteString("N: requests with at least one sample; samples: values behind the statistics (intervals pooled across requests, as ITL).\n")
		if r.hasNonAISBenchStat() {
			b.WriteString("*: a statistic AISBench's table lacks, computed from the same raw samples with numpy's method.\n")
		}
	}
	for _, n := range notes {
		b.WriteString("  - " + n + "\n")
	}
}

func (r *Report) hasNonAISBenchStat() bool {
	for _, s := range r.AllStats {
		if !r.InAISBenchTable(s) {
			return true
		}
	}
	return false
}

func (r *Report) writeExtraStatsTable(b *strings.Builder) {
	var extra []string
	for _, s := range r.AllStats {
		if !r.InAISBenchTable(s) {
			extra = append(extra, s)
		}
	}
	if extra == nil {
		return
	}
	header := []string{"AISBench metric", "Unit"}
	for range Stages {
		for _, s := range extra {
			header = append(header, s+"*")
		}
	}
	rows := [][]string{header}
	for _, m := range Metrics {
		row := []string{string(m), unitLabel(m.Unit())}
		present := false
		for _, stage := range Stages {
			mr := r.Stage(stage).Metric(m)
			for _, name := range extra {
				if mr == nil {
					row = append(row, "-")
					continue
				}
				present = true
				s, _ := mr.statistic(name)
				row = append(row, sseNumber(mr.Unit, s.Raw))
			}
		}
		if present {
			rows = append(rows, row)
		}
	}
	if len(rows) == 1 {
		return
	}
	r.heading(b, "\nStatistics AISBench's table lacks, for its own metrics (same raw values):\n")
	titles := make([]string, len(Stages))
	for i, stage := range Stages {
		titles[i] = stageTitles[stage]
	}
	r.grid(b, rows, 2, len(extra), titles)
}

func (r *Report) writeITLText(b *strings.Builder) {
	if !r.stageHasSSE() {
		return
	}
	r.heading(b, "\nITL accounting: what AISBench's ITL row is made of\n")
	r.grid(b, r.ITLAccountingTable(), 2, 1, nil)
}

// ITLAccountingTable is the ITL accounting as the text report shows it: a
// header ("", Unit, one column a stage), then one row a figure; nil when no
// stage has requests.
func (r *Report) ITLAccountingTable() [][]string {
	if !r.stageHasSSE() {
		return nil
	}
	header := []string{"", "Unit"}
	for _, stage := range Stages {
		header = append(header, stageTitles[stage])
	}
	rows := [][]string{header}
	line := func(name, unit string, f func(a *ITLAccounting) string) {
		row := []string{name, unit}
		for _, stage := range Stages {
			a := r.Stage(stage).ITL
			if a == nil {
				row = append(row, "-")
				continue
			}
			row = append(row, f(a))
		}
		rows = append(rows, row)
	}
	line("Requests in the stage", "", func(a *ITLAccounting) string { return strconv.Itoa(a.Requests) })
	line("AISBench's N: requests with a nonzero interval", "", func(a *ITLAccounting) string { return strconv.Itoa(a.AISBenchN) })
	line("Requests with at least one interval", "", func(a *ITLAccounting) string { return strconv.Itoa(a.RequestsWithIntervals) })
	line("Intervals pooled behind the ITL statistics", "", func(a *ITLAccounting) string { return strconv.Itoa(a.Intervals) })
	line("  of which zero (events completed in one read)", "", func(a *ITLAccounting) string { return strconv.Itoa(a.ZeroIntervals) })
	line("Intervals per request: min / median / max", "", func(a *ITLAccounting) string {
		return PyFloatRepr(a.PerRequestMin) + " / " + PyFloatRepr(a.PerRequestMedian) + " / " + PyFloatRepr(a.PerRequestMax)
	})
	line("Pooled mean (AISBench's ITL Average: by event count)", "ms", func(a *ITLAccounting) string { return sseNumber(UnitSeconds, a.PooledMeanSeconds) })
	line("Mean of per-request means (each request the same)", "ms", func(a *ITLAccounting) string { return sseNumber(UnitSeconds, a.PerRequestMeanSeconds) })
	line("ITL row in AISBench's table", "", func(a *ITLAccounting) string {
		if a.InAISBenchTable {
			return "yes"
		}
		return "removed"
	})
	return rows
}

func (r *Report) writeWindowedText(b *strings.Builder) {
	wt := r.Stable.Windowed
	if wt == nil {
		return
	}
	unit := "token/s"
	what := "the output tokens carried by events whose time falls inside the window"
	switch wt.Basis {
	case "output events":
		unit = "event/s"
		what = "output events (text or tool calls) inside the window: per-event token counts are unknown, so events are counted, not tokens"
	case "time points":
		unit = "event/s"
		what = "recorded events (time points) inside the window: the trace has no event bodies, so events are counted, not tokens"
	}
	r.heading(b, "\nOutput throughput of the native (stable) window:\n")
	fmt.Fprintf(b, "  WindowedOutputThroughput          %s %s: %s %s in %s ms, from %s\n",
		sseNumber(UnitTokensPerSecond, wt.PerSecond), unit, strconv.FormatFloat(wt.Count, 'f', -1, 64), wt.Basis, sseNumber(UnitSeconds, wt.WindowSeconds), plural(wt.Requests, "request"))
	fmt.Fprintf(b, "      counts %s\n", what)
	if v := wt.NativeOutputTokenThroughput; v != nil {
		fmt.Fprintf(b, "  AISBench's Output Token Throughput %s token/s: the selected requests' whole output / window\n", PyFloatRepr(v.Rounded))
	}
}

func (r *Report) writeSLOText(b *strings.Builder) {
	var any bool
	for _, stage := range Stages {
		if len(r.Stage(stage).SLOs) > 0 {
			any = true
		}
	}
	if !any {
		return
	}
	r.heading(b, "\nSLO attainment (requests meeting it / the stage's requests; a request without a value misses):\n")
	header := []string{"SLO", ""}
	for _, stage := range Stages {
		header = append(header, stageTitles[stage])
	}
	rows := [][]string{header}
	var slos []SLO
	for _, stage := range Stages {
		for _, s := range r.Stage(stage).SLOs {
			if !containsSLO(slos, s.SLO) {
				slos = append(slos, s.SLO)
			}
		}
	}
	for _, slo := range slos {
		row := []string{slo.Text, ""}
		for _, stage := range Stages {
			cell := "-"
			for _, s := range r.Stage(stage).SLOs {
				if s.SLO == slo {
					cell = fmt.Sprintf("%d of %d (%s%%)", s.Met, s.Denominator, PyFloatRepr(PyRound(s.Fraction*100, 1)))
					if s.Missing > 0 {
						cell += fmt.Sprintf(", %d without a value", s.Missing)
					}
				}
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	r.grid(b, rows, 2, 1, nil)
}

func containsSLO(xs []SLO, s SLO) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func (r *Report) describeEvent(e *WindowEvent, off float64) string {
	kind := "end"
	if e.Start {
		kind = "start"
	}
	return fmt.Sprintf("%s of %q at %.6f s, %d in flight", kind, e.ID, e.Seconds-off, e.InFlight)
}

func (r *Report) writeWindowText(b *strings.Builder) {
	wa := r.Window
	if wa == nil {
		return
	}
	off := wa.FirstStartSeconds
	r.heading(b, "\nThe stable window explained (times after the first request's start):\n")
	fmt.Fprintf(b, "  In flight: peak %d of C = %d; %s reached C; %s%% of the run (%s s) had >= 90%% of C in flight, %s%% had C.\n",
		wa.PeakInFlight, wa.MaxConcurrency, plural(wa.ReachesAtStart, "start"),
		PyFloatRepr(PyRound(wa.AtOrAbove90Share*100, 1)), strconv.FormatFloat(wa.RunSeconds, 'f', 6, 64), PyFloatRepr(PyRound(wa.AtCShare*100, 1)))
	if wa.FirstReach != nil {
		fmt.Fprintf(b, "  1st start reaching C (warm-up, not in the window): %s\n", r.describeEvent(wa.FirstReach, off))
	}
	if wa.Start != nil {
		fmt.Fprintf(b, "  AISBench's window starts at the 2nd:              %s\n", r.describeEvent(wa.Start, off))
	} else {
		fmt.Fprintf(b, "  AISBench finds no window: it needs a 2nd start reaching C; the closest the run came is %s in flight (%s).\n",
			strconv.Itoa(wa.PeakInFlight), r.describeEvent(&wa.PeakAt, off))
	}
	if wa.End != nil {
		fmt.Fprintf(b, "  and ends at the last event leaving C in flight:   %s\n", r.describeEvent(wa.End, off))
	}
	found := false
	for _, s := range wa.Selectors {
		if s.Stage != nil {
			found = true
		}
	}
	if !found {
		b.WriteString("  None of AISBench's window selectors, current or earlier, finds a window in this run:\n")
		for _, s := range wa.Selectors {
			fmt.Fprintf(b, "    %s (AISBench commit %s): %s\n", s.Name, s.Commit[:12], s.Description)
		}
		return
	}
	b.WriteString("\n  The same run under AISBench's window selectors, current and earlier (native figures as each would print them;\n  the figures below are computed alike in all three releases, only the window differs):\n")
	r.grid(b, r.SelectorTable(), 2, 1, nil)
	for _, s := range wa.Selectors {
		fmt.Fprintf(b, "  %s (AISBench commit %s): %s\n", s.Name, s.Commit[:12], s.Description)
	}
}

// SelectorTable is the native stage under each of AISBench's window selectors
// as the text report shows it: a header ("", Unit, one column a selector),
// then one row a figure (times after the first request's start); nil when
// there is no window analysis.
func (r *Report) SelectorTable() [][]string {
	wa := r.Window
	if wa == nil {
		return nil
	}
	off := wa.FirstStartSeconds
	header := []string{"", "Unit"}
	for _, s := range wa.Selectors {
		header = append(header, s.Name)
	}
	rows := [][]string{header}
	line := func(name, unit string, f func(st *StageResult, s SelectorResult) string) {
		row := []string{name, unit}
		for _, s := range wa.Selectors {
			switch {
			case s.Stage == nil:
				row = append(row, "no window")
			case s.Stage.Err != nil && f == nil:
				row = append(row, "-")
			default:
				row = append(row, f(s.Stage, s))
			}
		}
		rows = append(rows, row)
	}
	fixed := func(x float64) string { return strconv.FormatFloat(x, 'f', 6, 64) }
	line("Window start", "s", func(_ *StageResult, s SelectorResult) string { return fixed(s.StartSeconds - off) })
	line("Window end", "s", func(_ *StageResult, s SelectorResult) string { return fixed(s.EndSeconds - off) })
	line("Selected requests", "", func(st *StageResult, _ SelectorResult) string { return strconv.Itoa(st.Window.Selected) })
	common := func(f func(c *CommonMetrics) string) func(st *StageResult, _ SelectorResult) string {
		return func(st *StageResult, _ SelectorResult) string {
			if st.Err != nil {
				return "-"
			}
			return f(&st.Common)
		}
	}
	line("Benchmark Duration", "ms", common(func(c *CommonMetrics) string { return PyFloatRepr(c.BenchmarkDurationMs) }))
	line("Success Requests", "", common(func(c *CommonMetrics) string { return strconv.Itoa(c.SuccessRequests) }))
	line("Concurrency", "", common(func(c *CommonMetrics) string {
		if c.ConcurrencyCapped {
			return fmt.Sprintf("%d (capped)", c.MaxConcurrency)
		}
		return PyFloatRepr(c.Concurrency.Rounded)
	}))
	line("Request Throughput", "req/s", common(func(c *CommonMetrics) string { return PyFloatRepr(c.RequestThroughput.Rounded) }))
	line("Output Token Throughput", "token/s", common(func(c *CommonMetrics) string {
		if !c.HasTokenThroughput {
			return "-"
		}
		return PyFloatRepr(c.OutputTokenThroughput.Rounded)
	}))
	for _, m := range []Metric{MetricE2EL, MetricTTFT, MetricTPOT, MetricITL} {
		line(string(m)+" "+r.Stats[0], "ms", func(st *StageResult, _ SelectorResult) string {
			if mr := st.Metric(m); mr != nil && len(mr.Stats) > 0 {
				return aisbenchNumber(mr.Unit, mr.Stats[0].Rounded)
			}
			return "-"
		})
	}
	return rows
}

// evidenceText renders one piece of evidence in its display unit.
func evidenceText(e Evidence) string {
	switch e.Unit {
	case UnitCount:
		return e.Name + " " + strconv.FormatFloat(e.Value, 'f', -1, 64)
	case UnitFraction:
		return e.Name + " " + PyFloatRepr(PyRound(e.Value*100, 1)) + "%"
	case UnitRatio:
		return e.Name + " " + sseNumber(e.Unit, e.Value)
	}
	return e.Name + " " + sseNumber(e.Unit, e.Value) + " " + sseUnitLabel(e.Unit)
}

const maxIDsShown = 5

func (r *Report) writeFindingsText(b *strings.Builder) {
	if len(r.Findings) == 0 {
		r.heading(b, "\nFindings: none.\n")
		return
	}
	r.heading(b, fmt.Sprintf("\nFindings (%d):\n", len(r.Findings)))
	for _, f := range r.Findings {
		where := "run"
		if f.Stage != "" {
			where = stageTitles[f.Stage]
		}
		fmt.Fprintf(b, "  %s %s [%s; %s]\n", paint(r.color, severityColor(f.Severity), fmt.Sprintf("%-7s", f.Severity)), paint(r.color, ansiBold, f.Code), where, f.Figure)
		fmt.Fprintf(b, "          %s\n", f.Message)
		parts := make([]string, len(f.Evidence))
		for i, e := range f.Evidence {
			parts[i] = evidenceText(e)
		}
		fmt.Fprintf(b, "          evidence: %s\n", strings.Join(parts, ", "))
		if len(f.Requests) > 0 {
			ids := f.Requests
			more := ""
			if len(ids) > maxIDsShown {
				more = fmt.Sprintf(" and %d more", len(ids)-maxIDsShown)
				ids = ids[:maxIDsShown]
			}
			fmt.Fprintf(b, "          requests: %s%s\n", strings.Join(ids, ", "), more)
		}
	}
}
