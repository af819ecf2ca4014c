package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/unit"
)

// text writes the report: AISBench's tables, then sseaudit's figures.
func (r *printer) text(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Requests: %d added, %d succeeded, %d failed. Max concurrency: %s.\n\n",
		r.Requests.Added, r.Requests.Succeeded, r.Requests.Failed, concurrencyText(r.Report))
	metrics := r.metricTable()
	r.grid(&b, metrics)
	if len(metrics.Rows) == 1 {
		b.WriteString("(no metrics: neither stage has a result)\n")
	}
	b.WriteByte('\n')
	r.grid(&b, r.commonTable())
	if lines := r.stageLines(); lines != "" {
		b.WriteString("\n" + lines)
	}
	if notes := r.notes(); len(notes) > 0 {
		r.heading(&b, "\nNotes:\n")
		for _, n := range notes {
			b.WriteString(wrap(r.width, "  - ", "    ", n))
		}
	}
	r.writeSSEText(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

// StageLines are the stages' durations and the stable window, a line each.
func StageLines(rep *audit.Report) string { return newPrinter(rep, Options{}).stageLines() }

func (r *printer) stageLines() string {
	var b strings.Builder
	for _, stage := range r.stages {
		st := r.Stage(stage)
		if st.Err != nil {
			continue
		}
		fmt.Fprintf(&b, "Stage duration, %s: %.6f s, %s\n", StageTitle(stage), st.DurationSeconds, unit.Plural(len(st.Requests), "request"))
	}
	if w := r.Stable.Window; w != nil && r.shows(aisbench.StageStable) {
		b.WriteString(wrap(r.width, "", "  ", fmt.Sprintf("Stable window: %.6f s to %.6f s after the first request's start (%.6f s), %d of %d successful requests selected",
			w.StartSeconds-w.OffsetSeconds, w.EndSeconds-w.OffsetSeconds, w.DurationSeconds, w.Selected, w.Of)))
	}
	return b.String()
}

// Notes are the report's footnotes as the text report prints them: stage
// errors, removed rows, the failure-index quirk, statistics warnings.
func Notes(rep *audit.Report) []string { return newPrinter(rep, Options{}).notes() }

func (r *printer) notes() []string {
	var notes []string
	for _, stage := range r.stages {
		st := r.Stage(stage)
		if st.Err != nil {
			notes = append(notes, fmt.Sprintf("%s: %v", StageTitle(stage), st.Err))
			continue
		}
		for _, m := range st.Removed {
			notes = append(notes, fmt.Sprintf("%s: AISBench leaves out %s: %s", StageTitle(stage), m.Name, m.Reason))
		}
		if r.NoTimeline != "" {
			notes = append(notes, fmt.Sprintf("%s: Benchmark Duration, Concurrency and the throughputs are computed as if every request started at 0, not the run's: the trace has no send times (finding no-timeline)", StageTitle(stage)))
		}
	}
	if q := r.Stable.Quirk; q.Changed && r.shows(aisbench.StageStable) {
		notes = append(notes, fmt.Sprintf("native (stable): AISBench's failure-index quirk changes its counts: it prints Total %d, Success %d, Failed %d (and N %d) for %d selected requests that all succeeded",
			q.AISBenchTotal, q.AISBenchSuccess, q.AISBenchFailed, q.AISBenchSuccess, q.IntendedTotal))
	}
	if n := r.Requests.TooFewTimePoints; n > 0 {
		notes = append(notes, fmt.Sprintf("%d requests marked successful have fewer than 2 time points: AISBench counts them as failed", n))
	}
	for _, w := range r.StatsWarnings {
		notes = append(notes, "statistics: "+w)
	}
	return notes
}
