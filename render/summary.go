package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/pynum"
	"github.com/sseaudit/sseaudit/table"
	"github.com/sseaudit/sseaudit/unit"
)

// Summary writes one screen of the report: the figures most people read
// first (as vLLM's bench serve prints them), AISBench's exactly as it prints
// them, for the stages shown, then the findings' codes and where the rest
// is. It computes nothing.
func Summary(w io.Writer, rep *audit.Report, opts Options) error {
	r := newPrinter(rep, opts)
	var b strings.Builder
	fmt.Fprintf(&b, "Requests: %d added, %d succeeded, %d failed. Max concurrency: %s.\n\n",
		r.Requests.Added, r.Requests.Succeeded, r.Requests.Failed, concurrencyText(rep))
	r.grid(&b, r.summaryTable())
	if shown := r.findings(); len(shown) > 0 {
		codes := make([]string, len(shown))
		for i, f := range shown {
			codes[i] = f.Code
		}
		fmt.Fprintf(&b, "\nFindings (%d): %s\n", len(codes), strings.Join(codes, ", "))
	}
	if notes := r.notes(); len(notes) > 0 {
		fmt.Fprintf(&b, "%s, see the full report.\n", unit.Plural(len(notes), "note"))
	}
	b.WriteString("\nThe full report (every statistic, sseaudit's figures, the window, the findings explained): audit report without --summary; every number unrounded: --format json.\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// summaryTable is the summary's figures, a column a stage shown.
func (r *printer) summaryTable() *table.Table {
	header := []string{"", "Unit"}
	for _, st := range r.stages {
		header = append(header, StageTitle(st))
	}
	rows := [][]string{header}
	line := func(name, u string, cell func(st *aisbench.StageResult) string) {
		row := []string{name, u}
		for _, stage := range r.stages {
			st := r.Stage(stage)
			if st.Err != nil {
				row = append(row, "-")
				continue
			}
			row = append(row, cell(st))
		}
		rows = append(rows, row)
	}
	common := func(f func(c *aisbench.CommonMetrics) string) func(st *aisbench.StageResult) string {
		return func(st *aisbench.StageResult) string { return f(&st.Common) }
	}
	line("Successful requests", "", common(func(c *aisbench.CommonMetrics) string { return strconv.Itoa(c.SuccessRequests) }))
	line("Benchmark duration", "ms", common(func(c *aisbench.CommonMetrics) string { return pynum.PyFloatRepr(c.BenchmarkDurationMs) }))
	line("Request throughput", "req/s", common(func(c *aisbench.CommonMetrics) string { return pynum.PyFloatRepr(c.RequestThroughput.Rounded) }))
	line("Output token throughput", "token/s", common(func(c *aisbench.CommonMetrics) string {
		if !c.HasTokenThroughput {
			return "-"
		}
		return pynum.PyFloatRepr(c.OutputTokenThroughput.Rounded)
	}))
	line("Concurrency", "", common(concurrencyCell))
	for _, m := range []metric.Metric{metric.TTFT, metric.TPOT, metric.ITL, metric.E2EL} {
		for _, stat := range []string{"Average", "Median", "P99"} {
			name := stat + " " + string(m)
			if stat == "Average" {
				name = "Mean " + string(m)
			}
			line(name, "ms", func(st *aisbench.StageResult) string {
				s, ok := st.Metric(m).Statistic(stat)
				if !ok {
					return "-"
				}
				return unit.AISBenchNumber(unit.Seconds, s.Rounded)
			})
		}
		if m == metric.ITL {
			line("ITL N (requests) / intervals", "", func(st *aisbench.StageResult) string {
				a := r.SSE.Stage(st.Stage).ITL
				if mr := st.Metric(m); mr != nil && a != nil {
					return strconv.Itoa(mr.N) + " / " + strconv.Itoa(a.Intervals)
				}
				return "-"
			})
		}
	}
	line("Mean ContentUpdateInterval (sseaudit)", "ms", func(st *aisbench.StageResult) string {
		s, ok := r.SSE.Stage(st.Stage).Metric(metric.ContentUpdateInterval).Statistic("Average")
		if !ok {
			return "-"
		}
		return unit.Value(unit.Seconds, s.Raw)
	})
	return &table.Table{Lead: 2, Group: 1, Rows: rows}
}
