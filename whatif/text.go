package whatif

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/table"
)

// RenderOptions choose what the renderers add to the per-stage figures.
type RenderOptions struct {
	// PerRequest adds every request's tm, E2E and TPOT under every policy.
	PerRequest bool
}

// textMetrics are the metrics the text shows (JSON has them all).
var textMetrics = []metric.Metric{metric.E2EL, metric.TTFT, metric.TPOT, metric.ITL}

// WriteText writes the original's figures, then one block per policy with
// its figures and their deltas against the original.
func (r *Result) WriteText(w io.Writer, opt RenderOptions) error {
	var b strings.Builder
	orig := r.Original()
	fmt.Fprintf(&b, "What-if: %d requests, %d succeeded in the original. Max concurrency: %s.\n",
		r.Requests, orig.Report.Requests.Succeeded, concurrencyText(r.MaxConcurrency))
	if r.HasOrigin {
		fmt.Fprintf(&b, "Times in s are after the first successful request's start (t0 = %.6f s).\n", r.OriginSeconds)
	}
	for _, o := range r.Outcomes {
		b.WriteByte('\n')
		r.writeOutcome(&b, o)
	}
	if opt.PerRequest {
		b.WriteByte('\n')
		r.writePerRequest(&b)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func concurrencyText(c int) string {
	if c == 0 {
		return "unknown"
	}
	return strconv.Itoa(c)
}

// row is one line of a block: a label, a unit, and per stage a value and
// (for a policy) its delta.
type row struct {
	label, unit string
	value       func(st *StageOutcome) string
	delta       func(d *StageDelta) string // nil: no delta column entry
	policyOnly  bool
}

func (r *Result) writeOutcome(b *strings.Builder, o *Outcome) {
	original := o.Policy.IsOriginal()
	if original {
		fmt.Fprintf(b, "Original (aisbench): %s.\n  %d time points after t0 in %s.\n",
			o.Policy.Description(), o.TimePointsKept, plural(o.Report.Requests.Succeeded, "successful request"))
	} else {
		fmt.Fprintf(b, "Policy %s: %s.\n  %d of %d time points after t0 dropped, in %s; %s turned into failures. Δ = policy - original.\n",
			o.Policy, o.Policy.Description(), o.TimePointsDropped, o.TimePointsKept+o.TimePointsDropped,
			plural(o.RequestsFiltered, "request"), plural(len(o.NewFailures), "request"))
	}
	rows := r.rows()
	header := []string{"Figure", "Unit"}
	group := 1
	if !original {
		group = 2
	}
	var titles []string
	for _, st := range o.Stages {
		title := st.Stage.Title()
		if st.Result.Err != nil {
			title += ": no result"
		}
		titles = append(titles, title)
		header = append(header, "value")
		if !original {
			header = append(header, "Δ")
		}
	}
	grid := [][]string{header}
	for _, rw := range rows {
		if rw.policyOnly && original {
			continue
		}
		line := []string{rw.label, rw.unit}
		for _, st := range o.Stages {
			v := "-"
			if st.Result.Err == nil {
				v = rw.value(st)
			}
			line = append(line, v)
			if !original {
				d := ""
				if rw.delta != nil {
					d = rw.delta(st.Delta)
				}
				line = append(line, d)
			}
		}
		grid = append(grid, line)
	}
	table.Grid(b, grid, 2, group, titles)
	if notes := outcomeNotes(o); len(notes) > 0 {
		b.WriteString("Notes:\n")
		for _, n := range notes {
			b.WriteString("  - " + n + "\n")
		}
	}
}

// rows lists the figures of a block, in order.
func (r *Result) rows() []row {
	rows := []row{
		{label: "Requests", value: func(st *StageOutcome) string { return strconv.Itoa(len(st.Result.Requests)) },
			delta: func(d *StageDelta) string { return countDelta(d.Requests) }},
		{label: "Requests tm moved", policyOnly: true, value: func(st *StageOutcome) string {
			return fmt.Sprintf("%d of %d", st.TmMoved, st.Compared)
		}},
		{label: "tm shift mean", unit: "ms", policyOnly: true, value: shiftText(func(s *Shift) float64 { return s.MeanSeconds })},
		{label: "tm shift P90", unit: "ms", policyOnly: true, value: shiftText(func(s *Shift) float64 { return s.P90Seconds })},
		{label: "tm shift max", unit: "ms", policyOnly: true, value: shiftText(func(s *Shift) float64 { return s.MaxSeconds })},
		{label: "Duration", unit: "ms", value: func(st *StageOutcome) string { return msText(st.Result.DurationSeconds) },
			delta: func(d *StageDelta) string { return msDelta(d.DurationSeconds) }},
	}
	for _, m := range textMetrics {
		for _, stat := range []struct{ name, label string }{{"Average", "mean"}, {"P90", "P90"}} {
			i := indexOf(r.Stats, stat.name)
			if i < 0 {
				continue
			}
			rows = append(rows, row{label: string(m) + " " + stat.label, unit: "ms",
				value: func(st *StageOutcome) string {
					if mr := st.Result.Metric(m); mr != nil {
						return msText(mr.Stats[i].Raw)
					}
					return "-"
				},
				delta: func(d *StageDelta) string {
					if md := d.Metric(m); md != nil {
						return msDelta(md.Stats[i])
					}
					return "-"
				}})
		}
		rows = append(rows,
			row{label: string(m) + " N", value: func(st *StageOutcome) string {
				if mr := st.Result.Metric(m); mr != nil {
					return strconv.Itoa(mr.N)
				}
				return "-"
			}, delta: func(d *StageDelta) string {
				if md := d.Metric(m); md != nil {
					return countDelta(md.N)
				}
				return "-"
			}},
			row{label: string(m) + " samples", value: func(st *StageOutcome) string {
				if mr := st.Result.Metric(m); mr != nil {
					return strconv.Itoa(mr.Samples)
				}
				return "-"
			}, delta: func(d *StageDelta) string {
				if md := d.Metric(m); md != nil {
					return countDelta(md.Samples)
				}
				return "-"
			}})
	}
	rows = append(rows,
		row{label: "Concurrency", value: func(st *StageOutcome) string {
			c := st.Result.Common
			if c.ConcurrencyCapped {
				return fmt.Sprintf("%.4f (AISBench: %d)", c.Concurrency.Raw, c.MaxConcurrency)
			}
			return fmt.Sprintf("%.4f", c.Concurrency.Raw)
		}, delta: func(d *StageDelta) string { return fixedDelta(d.Concurrency, 4) }},
		row{label: "Output Token Throughput", unit: "token/s", value: func(st *StageOutcome) string {
			if c := st.Result.Common; c.HasTokenThroughput {
				return fmt.Sprintf("%.4f", c.OutputTokenThroughput.Raw)
			}
			return "-"
		}, delta: func(d *StageDelta) string { return fixedDelta(d.OutputTokenThroughput, 4) }},
		row{label: "Window start", unit: "s", value: func(st *StageOutcome) string {
			if w := st.Result.Window; w != nil {
				return fmt.Sprintf("%.6f", w.StartSeconds-r.OriginSeconds)
			}
			return ""
		}, delta: func(d *StageDelta) string {
			return windowDelta(d.WindowStartSeconds, fixedDelta(d.WindowStartSeconds, 6))
		}},
		row{label: "Window end", unit: "s", value: func(st *StageOutcome) string {
			if w := st.Result.Window; w != nil {
				return fmt.Sprintf("%.6f", w.EndSeconds-r.OriginSeconds)
			}
			return ""
		}, delta: func(d *StageDelta) string { return windowDelta(d.WindowEndSeconds, fixedDelta(d.WindowEndSeconds, 6)) }},
		row{label: "Window selected", value: func(st *StageOutcome) string {
			if w := st.Result.Window; w != nil {
				return fmt.Sprintf("%d of %d", w.Selected, w.Of)
			}
			return ""
		}, delta: func(d *StageDelta) string { return windowDelta(d.WindowSelected, countDelta(d.WindowSelected)) }},
	)
	return rows
}

// windowDelta leaves the delta cell of a stage without window empty.
func windowDelta(n Number, text string) string {
	if !n.Known {
		return ""
	}
	return text
}

func indexOf(xs []string, s string) int {
	for i, x := range xs {
		if x == s {
			return i
		}
	}
	return -1
}

func shiftText(f func(*Shift) float64) func(*StageOutcome) string {
	return func(st *StageOutcome) string {
		if st.TmShift == nil {
			return "-"
		}
		return msText(f(st.TmShift))
	}
}

// msText shows seconds as milliseconds with microsecond resolution.
func msText(s float64) string { return fmt.Sprintf("%.3f", s*1000) }

func msDelta(n Number) string {
	if !n.Known {
		return "-"
	}
	return signed(n.Value*1000, 3)
}

func fixedDelta(n Number, prec int) string {
	if !n.Known {
		return "-"
	}
	return signed(n.Value, prec)
}

func countDelta(n Number) string {
	if !n.Known {
		return "-"
	}
	return signed(n.Value, 0)
}

// signed shows a delta with its sign; an exact zero is "0", so that a tiny
// nonzero delta ("+0.000") is not mistaken for none.
func signed(x float64, prec int) string {
	if x == 0 {
		return "0"
	}
	return fmt.Sprintf("%+.*f", prec, x)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// outcomeNotes are a block's footnotes: stage errors, removed rows, the
// failure-index quirk, requests the policy turned into failures.
func outcomeNotes(o *Outcome) []string {
	var notes []string
	if n := len(o.NewFailures); n > 0 {
		ids := make([]string, 0, min(n, 10))
		for _, id := range o.NewFailureIDs[:min(n, 10)] {
			ids = append(ids, strconv.Quote(id))
		}
		more := ""
		if n > 10 {
			more = fmt.Sprintf(" and %d more", n-10)
		}
		notes = append(notes, fmt.Sprintf("%s left with fewer than 2 time points, counted as failed as AISBench would: %s%s",
			plural(n, "request"), strings.Join(ids, ", "), more))
	}
	for _, st := range o.Stages {
		title := st.Stage.Title()
		if err := st.Result.Err; err != nil {
			notes = append(notes, fmt.Sprintf("%s: no result: %v", title, err))
			continue
		}
		for _, m := range st.Result.Removed {
			notes = append(notes, fmt.Sprintf("%s: AISBench leaves out %s: %s", title, m.Name, m.Reason))
		}
		if q := st.Result.Quirk; q.Changed {
			notes = append(notes, fmt.Sprintf("%s: AISBench's failure-index quirk changes its counts (Success %d of %d selected), and so its N",
				title, q.AISBenchSuccess, q.IntendedTotal))
		}
	}
	return notes
}

// writePerRequest lists every request's tm, E2E and TPOT under every policy.
func (r *Result) writePerRequest(b *strings.Builder) {
	b.WriteString("Per request (tm in s after the first successful start; E2E and TPOT in ms, as the total stage computes them):\n")
	header := []string{"#", "request"}
	var titles []string
	for _, o := range r.Outcomes {
		titles = append(titles, o.Policy.Name())
		header = append(header, "tm", "E2E", "TPOT")
	}
	grid := [][]string{header}
	for i := 0; i < r.Requests; i++ {
		line := []string{strconv.Itoa(i), r.Original().PerRequest[i].ID}
		for _, o := range r.Outcomes {
			ro := o.PerRequest[i]
			if !ro.Success {
				line = append(line, "failed", "-", "-")
				continue
			}
			line = append(line, fmt.Sprintf("%.6f", ro.TmAfterOriginSeconds), knownMs(ro.E2ESeconds), knownMs(ro.TPOTSeconds))
		}
		grid = append(grid, line)
	}
	table.Grid(b, grid, 2, 3, titles)
}

func knownMs(n Number) string {
	if !n.Known {
		return "-"
	}
	return msText(n.Value)
}
