package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/findings"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/pynum"
	"github.com/sseaudit/sseaudit/table"
	"github.com/sseaudit/sseaudit/unit"
)

// writeSSEText writes sseaudit's section: its metrics, AISBench's metrics'
// missing statistics, the ITL accounting, the windowed throughput, SLOs, the
// stable window explained and the findings.
func (r *printer) writeSSEText(b *strings.Builder) {
	r.heading(b, "\n== sseaudit: what the figures above are made of (not AISBench's output; docs/metrics.md) ==\n\n")
	r.writeSSEMetricTable(b)
	r.writeExtraStatsTable(b)
	r.writeITLText(b)
	r.writeWindowedText(b)
	r.writeSLOText(b)
	r.writeWindowText(b)
	writeFindingsText(b, r.findings(), r.color, r.width)
}

func (r *printer) writeSSEMetricTable(b *strings.Builder) {
	if !r.hasSSE() {
		b.WriteString("sseaudit metrics: no stage has requests to measure\n")
		return
	}
	if t := r.sseMetricTable(); len(t.Rows) > 1 {
		r.grid(b, t)
		b.WriteString(wrap(r.width, "", "   ", "N: requests with at least one sample; samples: values behind the statistics (intervals pooled across requests, as ITL)."))
		if r.hasNonAISBenchStat() {
			b.WriteString(wrap(r.width, "", "   ", "*: a statistic AISBench's table lacks, computed from the same raw samples with numpy's method."))
		}
	}
	for _, n := range r.absentNotes() {
		b.WriteString(wrap(r.width, "  - ", "    ", n))
	}
}

// absentNotes say why a metric of sseaudit's has no samples: once when both
// stages have none for the same reason, else per stage (a stage without
// requests says so in its title).
func (r *printer) absentNotes() []string {
	var notes []string
	for _, m := range metric.SSE {
		var why []string // per stage, "" when present
		for _, stage := range r.stages {
			reason := ""
			for _, a := range r.sse(stage).Absent {
				if a.Name == m {
					reason = a.Reason
				}
			}
			why = append(why, reason)
		}
		switch {
		case len(why) == 2 && why[0] == why[1] && why[0] != "":
			notes = append(notes, fmt.Sprintf("no %s: %s", m, why[0]))
		default:
			for i, w := range why {
				if w != "" {
					notes = append(notes, fmt.Sprintf("no %s in %s: %s", m, StageTitle(r.stages[i]), w))
				}
			}
		}
	}
	return notes
}

func (r *printer) hasNonAISBenchStat() bool {
	for _, s := range r.AllStats {
		if !r.InTable(s) {
			return true
		}
	}
	return false
}

func (r *printer) writeExtraStatsTable(b *strings.Builder) {
	if t := r.extraStatsTable(); t != nil {
		r.heading(b, "\nStatistics AISBench's table lacks, for its own metrics (same raw values):\n")
		r.grid(b, t)
	}
}

func (r *printer) writeITLText(b *strings.Builder) {
	if t := r.itlAccountingTable(); t != nil {
		r.heading(b, "\nITL accounting: what AISBench's ITL row is made of\n")
		r.grid(b, t)
	}
}

func (r *printer) writeWindowedText(b *strings.Builder) {
	wt := r.SSE.Stable.Windowed
	if wt == nil || !r.shows(aisbench.StageStable) {
		return
	}
	what := "the output tokens carried by events whose time falls inside the window"
	switch wt.Basis {
	case "output events":
		what = "output events (text or tool calls) inside the window: per-event token counts are unknown, so events are counted, not tokens"
	case "time points":
		what = "recorded events (time points) inside the window: the trace has no event bodies, so events are counted, not tokens"
	}
	r.heading(b, "\nOutput throughput of the native (stable) window:\n")
	fmt.Fprintf(b, "  WindowedOutputThroughput          %s %s: %s %s in %s ms, from %s\n",
		unit.Value(unit.TokensPerSecond, wt.PerSecond), wt.Unit(), strconv.FormatFloat(wt.Count, 'f', -1, 64), wt.Basis, unit.Value(unit.Seconds, wt.WindowSeconds), unit.Plural(wt.Requests, "request"))
	b.WriteString(wrap(r.width, "      counts ", "      ", what))
	if v := wt.NativeOutputTokenThroughput; v != nil {
		fmt.Fprintf(b, "  AISBench's Output Token Throughput %s token/s: the selected requests' whole output / window\n", pynum.PyFloatRepr(v.Rounded))
	}
}

func (r *printer) writeSLOText(b *strings.Builder) {
	if t := r.sloTable(); t != nil {
		r.heading(b, "\nSLO attainment (requests meeting it / the stage's requests; a request without a value misses):\n")
		r.grid(b, t)
	}
}

func (r *printer) describeEvent(e *aisbench.WindowEvent, off float64) string {
	kind := "end"
	if e.Start {
		kind = "start"
	}
	return fmt.Sprintf("%s of %q at %.6f s, %d in flight", kind, e.ID, e.Seconds-off, e.InFlight)
}

func (r *printer) writeWindowText(b *strings.Builder) {
	wa := r.Window
	if wa == nil {
		return
	}
	off := wa.FirstStartSeconds
	r.heading(b, "\nThe stable window explained (times after the first request's start):\n")
	fmt.Fprint(b, wrap(r.width, "  ", "    ", fmt.Sprintf("In flight: peak %d of C = %d; %s reached C; %s%% of the run (%s s) had >= 90%% of C in flight, %s%% had C.",
		wa.PeakInFlight, wa.MaxConcurrency, unit.Plural(wa.ReachesAtStart, "start"),
		pynum.PyFloatRepr(pynum.PyRound(wa.AtOrAbove90Share*100, 1)), strconv.FormatFloat(wa.RunSeconds, 'f', 6, 64), pynum.PyFloatRepr(pynum.PyRound(wa.AtCShare*100, 1)))))
	if wa.FirstReach != nil {
		fmt.Fprintf(b, "  1st start reaching C (warm-up, not in the window): %s\n", r.describeEvent(wa.FirstReach, off))
	}
	if wa.Start != nil {
		fmt.Fprintf(b, "  AISBench's window starts at the 2nd:              %s\n", r.describeEvent(wa.Start, off))
	} else {
		fmt.Fprint(b, wrap(r.width, "  ", "    ", fmt.Sprintf("AISBench finds no window: it needs a 2nd start reaching C; the closest the run came is %s in flight (%s).",
			strconv.Itoa(wa.PeakInFlight), r.describeEvent(&wa.PeakAt, off))))
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
			b.WriteString(wrap(r.width, "    ", "      ", fmt.Sprintf("%s (AISBench commit %s): %s", s.Name, s.Commit[:12], s.Description)))
		}
		return
	}
	b.WriteString("\n  The same run under AISBench's window selectors, current and earlier (native figures as each would print them;\n  the figures below are computed alike in all three releases, only the window differs):\n")
	r.grid(b, SelectorTable(r.Report))
	for _, s := range wa.Selectors {
		b.WriteString(wrap(r.width, "  ", "    ", fmt.Sprintf("%s (AISBench commit %s): %s", s.Name, s.Commit[:12], s.Description)))
	}
}

const maxIDsShown = 5

func writeFindingsText(b *strings.Builder, found []findings.Finding, color bool, width int) {
	if len(found) == 0 {
		heading(b, color, "\nFindings: none.\n")
		return
	}
	heading(b, color, fmt.Sprintf("\nFindings (%d):\n", len(found)))
	for _, f := range found {
		where := "run"
		if f.Stage != "" {
			where = StageTitle(f.Stage)
		}
		fmt.Fprintf(b, "  %s %s [%s; %s]\n", table.Paint(color, severityColor(f.Severity), fmt.Sprintf("%-7s", f.Severity)), table.Paint(color, table.Bold, f.Code), where, f.Figure)
		b.WriteString(wrap(width, "          ", "          ", f.Message))
		parts := make([]string, len(f.Evidence))
		for i, e := range f.Evidence {
			parts[i] = e.Text()
		}
		b.WriteString(wrap(width, "          evidence: ", "            ", strings.Join(parts, ", ")))
		if len(f.Requests) > 0 {
			ids := f.Requests
			more := ""
			if len(ids) > maxIDsShown {
				more = fmt.Sprintf(" and %d more", len(ids)-maxIDsShown)
				ids = ids[:maxIDsShown]
			}
			b.WriteString(wrap(width, "          requests: ", "            ", strings.Join(ids, ", ")+more))
		}
	}
}
