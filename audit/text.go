package audit

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// stageTitles are the article's names for the two stages, with AISBench's.
var stageTitles = map[Stage]string{StageTotal: "whole (total)", StageStable: "native (stable)"}

// unitLabel is how a metric's AISBench values are shown: times in ms.
func unitLabel(u Unit) string {
	switch u {
	case UnitSeconds:
		return "ms"
	case UnitTokens:
		return "tokens"
	}
	return string(u)
}

// aisbenchNumber is the number AISBench prints for a statistic, without unit.
func aisbenchNumber(u Unit, rounded float64) string {
	if u == UnitSeconds {
		return PyFloatRepr(PyRound(rounded*1000, 4))
	}
	return PyFloatRepr(rounded)
}

// WriteText writes the report as AISBench's table with both stages side by
// side, their common metrics, the stable window, and notes.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Requests: %d added, %d succeeded, %d failed. Max concurrency: %s.\n\n",
		r.Requests.Added, r.Requests.Succeeded, r.Requests.Failed, r.concurrencyText())
	r.writeMetricTable(&b)
	b.WriteByte('\n')
	r.writeCommonTable(&b)
	var stageLines strings.Builder
	r.writeStageLines(&stageLines)
	if stageLines.Len() > 0 {
		b.WriteString("\n" + stageLines.String())
	}
	if notes := r.notes(); len(notes) > 0 {
		r.heading(&b, "\nNotes:\n")
		for _, n := range notes {
			b.WriteString("  - " + n + "\n")
		}
	}
	r.writeSSEText(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

func (r *Report) concurrencyText() string {
	if r.MaxConcurrency == 0 {
		return "unknown"
	}
	return strconv.Itoa(r.MaxConcurrency)
}

// writeMetricTable: Metric, Unit, then per stage the statistics and N.
func (r *Report) writeMetricTable(b *strings.Builder) {
	cols := len(r.Stats) + 1 // statistics and N
	header := []string{"Metric", "Unit"}
	for range Stages {
		header = append(header, r.Stats...)
		header = append(header, "N")
	}
	rows := [][]string{header}
	for _, m := range Metrics {
		row := []string{string(m), unitLabel(m.Unit())}
		present := false
		for _, stage := range Stages {
			st := r.Stage(stage)
			mr := st.Metric(m)
			if mr == nil {
				for range cols {
					row = append(row, "-")
				}
				continue
			}
			present = true
			for _, s := range mr.Stats {
				row = append(row, aisbenchNumber(mr.Unit, s.Rounded))
			}
			row = append(row, strconv.Itoa(mr.N))
		}
		if present {
			rows = append(rows, row)
		}
	}
	titles := make([]string, len(Stages))
	for i, stage := range Stages {
		titles[i] = stageTitles[stage]
		if r.Stage(stage).Err != nil {
			titles[i] += ": no result (see notes)"
		}
	}
	r.grid(b, rows, 2, cols, titles)
	if len(rows) == 1 {
		b.WriteString("(no metrics: neither stage has a result)\n")
	}
}

// plural is "1 request", "2 requests".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// writeCommonTable: one row a common metric, one column a stage.
func (r *Report) writeCommonTable(b *strings.Builder) {
	r.grid(b, r.CommonTable(), 2, 1, nil)
}

// CommonTable is the common metrics as the text report shows them: a header
// (Common Metric, Unit, one column a stage), then one row a metric, "-" for a
// stage without result. Every renderer takes these cells as they are.
func (r *Report) CommonTable() [][]string {
	header := []string{"Common Metric", "Unit"}
	for _, stage := range Stages {
		header = append(header, stageTitles[stage])
	}
	rows := [][]string{header}
	type line struct {
		name, unit string
		value      func(c *CommonMetrics) string
	}
	tokenRate := func(v func(c *CommonMetrics) Value) func(c *CommonMetrics) string {
		return func(c *CommonMetrics) string {
			if !c.HasTokenThroughput {
				return "-"
			}
			return PyFloatRepr(v(c).Rounded)
		}
	}
	lines := []line{
		{"Benchmark Duration", "ms", func(c *CommonMetrics) string { return PyFloatRepr(c.BenchmarkDurationMs) }},
		{"Total Requests", "", func(c *CommonMetrics) string { return strconv.Itoa(c.TotalRequests) }},
		{"Failed Requests", "", func(c *CommonMetrics) string { return strconv.Itoa(c.FailedRequests) }},
		{"Success Requests", "", func(c *CommonMetrics) string { return strconv.Itoa(c.SuccessRequests) }},
		{"Concurrency", "", func(c *CommonMetrics) string {
			if c.ConcurrencyCapped {
				return fmt.Sprintf("%d (capped from %s)", c.MaxConcurrency, PyFloatRepr(c.Concurrency.Rounded))
			}
			return PyFloatRepr(c.Concurrency.Rounded)
		}},
		{"Max Concurrency", "", func(c *CommonMetrics) string { return r.concurrencyText() }},
		{"Request Throughput", "req/s", func(c *CommonMetrics) string { return PyFloatRepr(c.RequestThroughput.Rounded) }},
		{"Total Input Tokens", "tokens", func(c *CommonMetrics) string { return strconv.FormatInt(c.TotalInputTokens, 10) }},
		{"Total Generated Tokens", "tokens", func(c *CommonMetrics) string { return strconv.FormatInt(c.TotalGeneratedTokens, 10) }},
		{"Input Token Throughput", "token/s", tokenRate(func(c *CommonMetrics) Value { return c.InputTokenThroughput })},
		{"Output Token Throughput", "token/s", tokenRate(func(c *CommonMetrics) Value { return c.OutputTokenThroughput })},
		{"Total Token Throughput", "token/s", tokenRate(func(c *CommonMetrics) Value { return c.TotalTokenThroughput })},
	}
	for _, l := range lines {
		row := []string{l.name, l.unit}
		for _, stage := range Stages {
			st := r.Stage(stage)
			if st.Err != nil {
				row = append(row, "-")
				continue
			}
			row = append(row, l.value(&st.Common))
		}
		rows = append(rows, row)
	}
	return rows
}

func (r *Report) writeStageLines(b *strings.Builder) {
	for _, stage := range Stages {
		st := r.Stage(stage)
		if st.Err != nil {
			continue
		}
		fmt.Fprintf(b, "Stage duration, %s: %.6f s, %s\n", stageTitles[stage], st.DurationSeconds, plural(len(st.Requests), "request"))
	}
	if w := r.Stable.Window; w != nil {
		fmt.Fprintf(b, "Stable window: %.6f s to %.6f s after the first request's start (%.6f s), %d of %d successful requests selected\n",
			w.StartSeconds-w.OffsetSeconds, w.EndSeconds-w.OffsetSeconds, w.DurationSeconds, w.Selected, w.Of)
	}
}

// Notes are the report's footnotes as the text report prints them: stage
// errors, removed rows, the failure-index quirk, statistics warnings.
func (r *Report) Notes() []string { return r.notes() }

// notes are the report's footnotes: errors, removed rows, the quirk, warnings.
func (r *Report) notes() []string {
	var notes []string
	for _, stage := range Stages {
		st := r.Stage(stage)
		if st.Err != nil {
			notes = append(notes, fmt.Sprintf("%s: %v", stageTitles[stage], st.Err))
			continue
		}
		for _, m := range st.Removed {
			notes = append(notes, fmt.Sprintf("%s: AISBench leaves out %s: %s", stageTitles[stage], m.Name, m.Reason))
		}
	}
	if q := r.Stable.Quirk; q.Changed {
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

// WriteGrid aligns rows: the first `lead` columns left-aligned, the rest
// right-aligned in groups of `group` columns separated by " | ". With titles,
// a line above the header puts each group's title over it. Every text table
// of sseaudit's is laid out by it (the what-if tables too).
func WriteGrid(b *strings.Builder, rows [][]string, lead, group int, titles []string) {
	writeGridColor(b, rows, lead, group, titles, false)
}

// writeGridColor is writeGrid, with the titles and header row in bold when
// color is set (the escapes go around padded lines, so alignment holds).
func writeGridColor(b *strings.Builder, rows [][]string, lead, group int, titles []string, color bool) {
	width := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, cell := range row {
			width[i] = max(width[i], utf8.RuneCountInString(cell))
		}
	}
	groups := (len(width) - lead) / group
	groupWidth := func(g int) int {
		w := 0
		for i := range group {
			w += width[lead+g*group+i]
		}
		return w + 2*(group-1)
	}
	if titles != nil {
		// Widen a group's last column when its title is wider than the group.
		for g := range groups {
			if extra := utf8.RuneCountInString(titles[g]) - groupWidth(g); extra > 0 {
				width[lead+g*group+group-1] += extra
			}
		}
	}
	pad := func(s string, w int, right bool) string {
		n := w - utf8.RuneCountInString(s)
		if n <= 0 {
			return s
		}
		if right {
			return strings.Repeat(" ", n) + s
		}
		return s + strings.Repeat(" ", n)
	}
	leadWidth := 0
	for i := range lead {
		leadWidth += width[i] + 2
	}
	if titles != nil {
		line := strings.Repeat(" ", leadWidth)
		for g := range groups {
			if g > 0 {
				line += " | "
			}
			line += pad(titles[g], groupWidth(g), false)
		}
		b.WriteString(paint(color, ansiBold, strings.TrimRight(line, " ")) + "\n")
	}
	for ri, row := range rows {
		var line strings.Builder
		for i, cell := range row {
			switch {
			case i < lead:
				line.WriteString(pad(cell, width[i], false) + "  ")
			case (i-lead)%group == 0:
				if i > lead {
					line.WriteString(" | ")
				}
				line.WriteString(pad(cell, width[i], true))
			default:
				line.WriteString("  " + pad(cell, width[i], true))
			}
		}
		text := strings.TrimRight(line.String(), " ")
		if ri == 0 {
			text = paint(color, ansiBold, text)
		}
		b.WriteString(text + "\n")
	}
}
