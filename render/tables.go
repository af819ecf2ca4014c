package render

import (
	"fmt"
	"strconv"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/calc/ssemetrics"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/pynum"
	"github.com/sseaudit/sseaudit/table"
	"github.com/sseaudit/sseaudit/unit"
)

// The report's tables, built once each and printed by every renderer as
// they are: text, markdown (and the HTML page's plain tables).

// stageShort is a stage's column prefix in markdown tables.
func stageShort(s aisbench.Stage) string {
	if s == aisbench.StageTotal {
		return "whole"
	}
	return "native"
}

// stagePrefixes are the markdown prefixes of the stage groups.
func (r *printer) stagePrefixes() []string {
	out := make([]string, len(r.stages))
	for i, s := range r.stages {
		out[i] = stageShort(s)
	}
	return out
}

// metricTable is AISBench's table: Metric, Unit, then per stage the
// statistics and N; a metric neither stage has is left out.
func (r *printer) metricTable() *table.Table {
	return r.stageMetricTable([]string{"Metric", "Unit"}, r.Stats, []string{"N"}, metric.AISBench,
		func(stage aisbench.Stage, m metric.Metric) *metric.Result { return r.Stage(stage).Metric(m) },
		func(mr *metric.Result) []string {
			var row []string
			for _, s := range mr.Stats {
				row = append(row, unit.AISBenchNumber(mr.Unit, s.Rounded))
			}
			return append(row, strconv.Itoa(mr.N))
		},
		func(stage aisbench.Stage) string {
			if r.Stage(stage).Err != nil {
				return ": no result (see notes)"
			}
			return ""
		})
}

// sseMetricTable is sseaudit's metrics: per stage every statistic of
// AllStats (marked * where AISBench's table lacks it), N and samples; a
// metric neither stage has is left out.
func (r *printer) sseMetricTable() *table.Table {
	stats := make([]string, len(r.AllStats))
	for i, s := range r.AllStats {
		stats[i] = StatHeader(r.Report, s)
	}
	return r.stageMetricTable([]string{"sseaudit metric", "Unit"}, stats, []string{"N", "samples"}, metric.SSE,
		func(stage aisbench.Stage, m metric.Metric) *metric.Result { return r.sse(stage).Metric(m) },
		func(mr *metric.Result) []string {
			var row []string
			for _, s := range mr.Stats {
				row = append(row, unit.Value(mr.Unit, s.Raw))
			}
			return append(row, strconv.Itoa(mr.N), strconv.Itoa(mr.Samples))
		},
		func(stage aisbench.Stage) string {
			if r.sse(stage).ITL == nil {
				return ": no requests"
			}
			return ""
		})
}

// stageMetricTable is a table of metrics (rows) and, per stage, a group of
// columns: the statistics, then counts; cells gives a metric's cells in a
// stage, "-" where the stage lacks it; a metric no stage has is left out.
// Each group is titled with its stage (and suffix's words).
func (r *printer) stageMetricTable(lead, stats, counts []string, metrics []metric.Metric, result func(aisbench.Stage, metric.Metric) *metric.Result,
	cells func(*metric.Result) []string, suffix func(aisbench.Stage) string) *table.Table {
	cols := len(stats) + len(counts)
	header := lead
	for range r.stages {
		header = append(append(header, stats...), counts...)
	}
	rows := [][]string{header}
	for _, m := range metrics {
		row := []string{string(m), unit.Label(m.Unit())}
		present := false
		for _, stage := range r.stages {
			mr := result(stage, m)
			if mr == nil {
				for range cols {
					row = append(row, "-")
				}
				continue
			}
			present = true
			row = append(row, cells(mr)...)
		}
		if present {
			rows = append(rows, row)
		}
	}
	titles := make([]string, len(r.stages))
	for i, stage := range r.stages {
		titles[i] = StageTitle(stage) + suffix(stage)
	}
	return &table.Table{Lead: len(lead), Group: cols, Titles: titles, Prefixes: r.stagePrefixes(), Rows: rows}
}

// StatHeader is a statistic's column name, marked * when AISBench's table
// lacks it.
func StatHeader(rep *audit.Report, s string) string {
	if rep.InTable(s) {
		return s
	}
	return s + "*"
}

// extraStatsTable is the statistics AISBench's table lacks, for its own
// metrics; nil when none was asked for or no metric has them.
func (r *printer) extraStatsTable() *table.Table {
	var extra []string
	for _, s := range r.AllStats {
		if !r.InTable(s) {
			extra = append(extra, s)
		}
	}
	if extra == nil {
		return nil
	}
	header := []string{"AISBench metric", "Unit"}
	for range r.stages {
		for _, s := range extra {
			header = append(header, s+"*")
		}
	}
	rows := [][]string{header}
	for _, m := range metric.AISBench {
		row := []string{string(m), unit.Label(m.Unit())}
		present := false
		for _, stage := range r.stages {
			mr := r.Stage(stage).Metric(m)
			for _, name := range extra {
				if mr == nil {
					row = append(row, "-")
					continue
				}
				present = true
				s, _ := mr.Statistic(name)
				row = append(row, unit.Value(mr.Unit, s.Raw))
			}
		}
		if present {
			rows = append(rows, row)
		}
	}
	if len(rows) == 1 {
		return nil
	}
	titles := make([]string, len(r.stages))
	for i, stage := range r.stages {
		titles[i] = StageTitle(stage)
	}
	return &table.Table{Lead: 2, Group: len(extra), Titles: titles, Rows: rows}
}

// CommonTable is the common metrics: a header (Common Metric, Unit, one
// column a stage), then one row a metric, "-" for a stage without result.
func CommonTable(rep *audit.Report) *table.Table { return newPrinter(rep, Options{}).commonTable() }

func (r *printer) commonTable() *table.Table {
	rep := r.Report
	header := []string{"Common Metric", "Unit"}
	for _, stage := range r.stages {
		header = append(header, StageTitle(stage))
	}
	rows := [][]string{header}
	type line struct {
		name, unit string
		value      func(c *aisbench.CommonMetrics) string
	}
	tokenRate := func(v func(c *aisbench.CommonMetrics) aisbench.Value) func(c *aisbench.CommonMetrics) string {
		return func(c *aisbench.CommonMetrics) string {
			if !c.HasTokenThroughput {
				return "-"
			}
			return pynum.PyFloatRepr(v(c).Rounded)
		}
	}
	lines := []line{
		{"Benchmark Duration", "ms", func(c *aisbench.CommonMetrics) string { return pynum.PyFloatRepr(c.BenchmarkDurationMs) }},
		{"Total Requests", "", func(c *aisbench.CommonMetrics) string { return strconv.Itoa(c.TotalRequests) }},
		{"Failed Requests", "", func(c *aisbench.CommonMetrics) string { return strconv.Itoa(c.FailedRequests) }},
		{"Success Requests", "", func(c *aisbench.CommonMetrics) string { return strconv.Itoa(c.SuccessRequests) }},
		{"Concurrency", "", concurrencyCell},
		{"Max Concurrency", "", func(c *aisbench.CommonMetrics) string { return concurrencyText(rep) }},
		{"Request Throughput", "req/s", func(c *aisbench.CommonMetrics) string { return pynum.PyFloatRepr(c.RequestThroughput.Rounded) }},
		{"Total Input Tokens", "tokens", func(c *aisbench.CommonMetrics) string { return strconv.FormatInt(c.TotalInputTokens, 10) }},
		{"Total Generated Tokens", "tokens", func(c *aisbench.CommonMetrics) string { return strconv.FormatInt(c.TotalGeneratedTokens, 10) }},
		{"Input Token Throughput", "token/s", tokenRate(func(c *aisbench.CommonMetrics) aisbench.Value { return c.InputTokenThroughput })},
		{"Output Token Throughput", "token/s", tokenRate(func(c *aisbench.CommonMetrics) aisbench.Value { return c.OutputTokenThroughput })},
		{"Total Token Throughput", "token/s", tokenRate(func(c *aisbench.CommonMetrics) aisbench.Value { return c.TotalTokenThroughput })},
	}
	for _, l := range lines {
		row := []string{l.name, l.unit}
		for _, stage := range r.stages {
			st := rep.Stage(stage)
			if st.Err != nil {
				row = append(row, "-")
				continue
			}
			row = append(row, l.value(&st.Common))
		}
		rows = append(rows, row)
	}
	return &table.Table{Lead: 2, Group: 1, Rows: rows}
}

// concurrencyCell is a stage's Concurrency as AISBench prints it, the
// computed value beside C when AISBench prints C instead.
func concurrencyCell(c *aisbench.CommonMetrics) string {
	if c.ConcurrencyCapped {
		return fmt.Sprintf("%d (capped from %s)", c.MaxConcurrency, pynum.PyFloatRepr(c.Concurrency.Rounded))
	}
	return pynum.PyFloatRepr(c.Concurrency.Rounded)
}

// concurrencyText is C, or "unknown".
func concurrencyText(rep *audit.Report) string {
	if rep.MaxConcurrency == 0 {
		return "unknown"
	}
	return strconv.Itoa(rep.MaxConcurrency)
}

// hasSSE says whether a stage shown has requests to measure (sseaudit's
// figures).
func (r *printer) hasSSE() bool {
	for _, stage := range r.stages {
		if r.SSE.Stage(stage).ITL != nil {
			return true
		}
	}
	return false
}

// ITLAccountingTable is the ITL accounting: a header ("", Unit, one column a
// stage), then one row a figure; nil when no stage has requests.
func ITLAccountingTable(rep *audit.Report) *table.Table {
	return newPrinter(rep, Options{}).itlAccountingTable()
}

func (r *printer) itlAccountingTable() *table.Table {
	rep := r.Report
	if !r.hasSSE() {
		return nil
	}
	header := []string{"", "Unit"}
	for _, stage := range r.stages {
		header = append(header, StageTitle(stage))
	}
	rows := [][]string{header}
	line := func(name, unit string, f func(a *ssemetrics.ITLAccounting) string) {
		row := []string{name, unit}
		for _, stage := range r.stages {
			a := rep.SSE.Stage(stage).ITL
			if a == nil {
				row = append(row, "-")
				continue
			}
			row = append(row, f(a))
		}
		rows = append(rows, row)
	}
	line("Requests in the stage", "", func(a *ssemetrics.ITLAccounting) string { return strconv.Itoa(a.Requests) })
	line("AISBench's N: requests with a nonzero interval", "", func(a *ssemetrics.ITLAccounting) string { return strconv.Itoa(a.AISBenchN) })
	line("Requests with at least one interval", "", func(a *ssemetrics.ITLAccounting) string { return strconv.Itoa(a.RequestsWithIntervals) })
	line("Intervals pooled behind the ITL statistics", "", func(a *ssemetrics.ITLAccounting) string { return strconv.Itoa(a.Intervals) })
	line("  of which zero (events completed in one read)", "", func(a *ssemetrics.ITLAccounting) string { return strconv.Itoa(a.ZeroIntervals) })
	line("Intervals per request: min / median / max", "", func(a *ssemetrics.ITLAccounting) string {
		return pynum.PyFloatRepr(a.PerRequestMin) + " / " + pynum.PyFloatRepr(a.PerRequestMedian) + " / " + pynum.PyFloatRepr(a.PerRequestMax)
	})
	line("Pooled mean (AISBench's ITL Average: by event count)", "ms", func(a *ssemetrics.ITLAccounting) string { return unit.Value(unit.Seconds, a.PooledMeanSeconds) })
	line("Mean of per-request means (each request the same)", "ms", func(a *ssemetrics.ITLAccounting) string { return unit.Value(unit.Seconds, a.PerRequestMeanSeconds) })
	line("ITL row in AISBench's table", "", func(a *ssemetrics.ITLAccounting) string {
		if a.InAISBenchTable {
			return "yes"
		}
		return "removed"
	})
	return &table.Table{Lead: 2, Group: 1, Rows: rows}
}

// SelectorTable is the native stage under each of AISBench's window
// selectors: a header ("", Unit, one column a selector), then one row a
// figure (times after the first request's start); nil when there is no
// window analysis.
func SelectorTable(rep *audit.Report) *table.Table {
	wa := rep.Window
	if wa == nil {
		return nil
	}
	off := wa.FirstStartSeconds
	header := []string{"", "Unit"}
	for _, s := range wa.Selectors {
		header = append(header, s.Name)
	}
	rows := [][]string{header}
	line := func(name, unit string, f func(st *aisbench.StageResult, s aisbench.SelectorResult) string) {
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
	line("Window start", "s", func(_ *aisbench.StageResult, s aisbench.SelectorResult) string { return fixed(s.StartSeconds - off) })
	line("Window end", "s", func(_ *aisbench.StageResult, s aisbench.SelectorResult) string { return fixed(s.EndSeconds - off) })
	line("Selected requests", "", func(st *aisbench.StageResult, _ aisbench.SelectorResult) string {
		return strconv.Itoa(st.Window.Selected)
	})
	common := func(f func(c *aisbench.CommonMetrics) string) func(st *aisbench.StageResult, _ aisbench.SelectorResult) string {
		return func(st *aisbench.StageResult, _ aisbench.SelectorResult) string {
			if st.Err != nil {
				return "-"
			}
			return f(&st.Common)
		}
	}
	line("Benchmark Duration", "ms", common(func(c *aisbench.CommonMetrics) string { return pynum.PyFloatRepr(c.BenchmarkDurationMs) }))
	line("Success Requests", "", common(func(c *aisbench.CommonMetrics) string { return strconv.Itoa(c.SuccessRequests) }))
	line("Concurrency", "", common(func(c *aisbench.CommonMetrics) string {
		if c.ConcurrencyCapped {
			return fmt.Sprintf("%d (capped)", c.MaxConcurrency)
		}
		return pynum.PyFloatRepr(c.Concurrency.Rounded)
	}))
	line("Request Throughput", "req/s", common(func(c *aisbench.CommonMetrics) string { return pynum.PyFloatRepr(c.RequestThroughput.Rounded) }))
	line("Output Token Throughput", "token/s", common(func(c *aisbench.CommonMetrics) string {
		if !c.HasTokenThroughput {
			return "-"
		}
		return pynum.PyFloatRepr(c.OutputTokenThroughput.Rounded)
	}))
	for _, m := range []metric.Metric{metric.E2EL, metric.TTFT, metric.TPOT, metric.ITL} {
		line(string(m)+" "+rep.Stats[0], "ms", func(st *aisbench.StageResult, _ aisbench.SelectorResult) string {
			if mr := st.Metric(m); mr != nil && len(mr.Stats) > 0 {
				return unit.AISBenchNumber(mr.Unit, mr.Stats[0].Rounded)
			}
			return "-"
		})
	}
	return &table.Table{Lead: 2, Group: 1, Rows: rows}
}

// sloTable is SLO attainment: one row an objective, one column a stage;
// nil when no stage has one.
func (r *printer) sloTable() *table.Table {
	var any bool
	for _, stage := range r.stages {
		if len(r.sse(stage).SLOs) > 0 {
			any = true
		}
	}
	if !any {
		return nil
	}
	header := []string{"SLO", ""}
	for _, stage := range r.stages {
		header = append(header, StageTitle(stage))
	}
	rows := [][]string{header}
	var slos []ssemetrics.SLO
	for _, stage := range r.stages {
		for _, s := range r.sse(stage).SLOs {
			if !containsSLO(slos, s.SLO) {
				slos = append(slos, s.SLO)
			}
		}
	}
	for _, slo := range slos {
		row := []string{slo.Text, ""}
		for _, stage := range r.stages {
			cell := "-"
			for _, s := range r.sse(stage).SLOs {
				if s.SLO == slo {
					cell = fmt.Sprintf("%d of %d (%s%%)", s.Met, s.Denominator, pynum.PyFloatRepr(pynum.PyRound(s.Fraction*100, 1)))
					if s.Missing > 0 {
						cell += fmt.Sprintf(", %d without a value", s.Missing)
					}
				}
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	return &table.Table{Lead: 2, Group: 1, Rows: rows}
}

func containsSLO(xs []ssemetrics.SLO, s ssemetrics.SLO) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
