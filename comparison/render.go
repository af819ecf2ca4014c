package comparison

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/sseaudit/sseaudit/pynum"
	"github.com/sseaudit/sseaudit/table"
	"github.com/sseaudit/sseaudit/unit"
)

// The comparison's cells, spelled once for text, markdown and the fail-on
// lines (CSV and JSON keep full precision).

// label is a unit as the tables show it.
func label(u unit.Unit) string {
	if u == unit.Fraction {
		return "%"
	}
	return unit.Label(u)
}

// valueText is a value in its display unit: ms for times, percent for
// fractions; "-" for NaN.
func valueText(u unit.Unit, x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	if u == unit.Fraction {
		return pynum.PyFloatRepr(pynum.PyRound(x*100, 4))
	}
	return unit.Value(u, x)
}

// withUnit is valueText with the unit: "20.1 ms", "99.5%", "12 tokens".
func withUnit(u unit.Unit, x float64) string {
	switch {
	case math.IsNaN(x):
		return "-"
	case u == unit.Fraction:
		return valueText(u, x) + "%"
	}
	return valueText(u, x) + " " + label(u)
}

// pctText is a signed percentage at two decimals.
func pctText(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%+.2f%%", x)
}

// pText is a p-value as benchstat prints it.
func pText(p float64) string { return fmt.Sprintf("p=%.3f", p) }

// deltaCell is the change column: "~" when the test finds no significant
// change, as benchstat prints it.
func deltaCell(m *MetricComparison) string {
	if m.Test != "" && !m.Significant {
		return "~"
	}
	return pctText(m.DeltaPct)
}

func ciCell(m *MetricComparison) string {
	if math.IsNaN(m.CI95[0]) {
		return ""
	}
	return "[" + pctText(m.CI95[0]) + ", " + pctText(m.CI95[1]) + "]"
}

func pCell(m *MetricComparison) string {
	switch {
	case m.Test != "":
		return pText(m.PValue)
	case !m.PerRequest:
		return "(no test)"
	}
	return "-"
}

// stageTable is a stage's metrics as a table: the label columns, then A's
// and B's median, Average and n, then the change, its interval and p.
func (c *Comparison) stageTable(sc *StageComparison) *table.Table {
	rows := [][]string{{sc.Stage.Title(), "unit", "median", "Average", "n", "median", "Average", "n", "Δ", "95% CI", "p"}}
	for i := range sc.Metrics {
		m := &sc.Metrics[i]
		row := []string{string(m.Name), label(m.Unit)}
		for _, x := range []Center{m.A, m.B} {
			row = append(row, valueText(m.Unit, x.Median), valueText(m.Unit, x.Mean), strconv.Itoa(x.N))
		}
		rows = append(rows, append(row, deltaCell(m), ciCell(m), pCell(m)))
	}
	return &table.Table{Lead: 2, Group: 3, Titles: []string{"A", "B", "B vs A"}, Prefixes: []string{"A", "B", ""}, Rows: rows}
}

// runLine describes a run: "A: name: 100 requests, 98 succeeded, 2 failed, C 4".
func runLine(side string, r RunSummary) string {
	s := fmt.Sprintf("%s: %s: %s, %d succeeded", side, r.Name, unit.Plural(r.Requests.Added, "request"), r.Requests.Succeeded)
	if r.Requests.Failed > 0 {
		s += fmt.Sprintf(", %d failed", r.Requests.Failed)
	}
	if r.MaxConcurrency > 0 {
		s += fmt.Sprintf(", C %d", r.MaxConcurrency)
	} else {
		s += ", C unknown"
	}
	return s
}

// method says how the runs were tested.
func (c *Comparison) method() string {
	if p := c.Pairing; p.By != "" {
		return fmt.Sprintf("Paired by %s (%s): Wilcoxon signed-rank test on each pair's values (scipy.stats.wilcoxon).", p.By, unit.Plural(len(p.Pairs), "pair"))
	}
	return fmt.Sprintf("Unpaired (%s): Mann-Whitney U test, two-sided (scipy.stats.mannwhitneyu).", c.Pairing.Why)
}

// legend explains the columns.
func (c *Comparison) legend() string {
	return fmt.Sprintf("Δ: B's median against A's, with its 95%% bootstrap interval (%d resamples, seed %d); ~: no significant change (p ≥ %s).",
		c.Resamples, c.Seed, strconv.FormatFloat(c.Alpha, 'g', -1, 64))
}

// perRequestNote says what one value of ITL and ContentUpdateInterval is.
const perRequestNote = "median, n and the test: one value a request (ITL, ContentUpdateInterval: the mean of its intervals, as pooled intervals are not independent samples); Average: the report's (pooled for those two)."

// failOnLine is an expression's verdict with its evidence in each stage.
func failOnLine(r *FailOnResult) string {
	verdict := "ok"
	if r.Violated {
		verdict = "VIOLATED"
	}
	var parts []string
	u := def(r.Metric).Unit
	for _, e := range r.Stages {
		var measured string
		switch r.Kind {
		case Relative:
			measured = pctText(e.Measured)
		case Absolute:
			measured = signedValue(u, e.Measured)
		}
		s := fmt.Sprintf("%s: A %s, B %s", e.Stage.Title(), withUnit(u, e.A), withUnit(u, e.B))
		if measured != "" {
			s += ", " + measured
		}
		if e.Tested {
			if e.Significant {
				s += " (significant)"
			} else {
				s += " (not significant)"
			}
		}
		if e.Violated {
			s += ": violated"
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		parts = append(parts, "the metric is not compared in any stage")
	}
	return fmt.Sprintf("%s: %s: %s", r.Text, verdict, strings.Join(parts, "; "))
}

// signedValue is a change in the metric's unit with its sign.
func signedValue(u unit.Unit, x float64) string {
	s := withUnit(u, x)
	if !math.IsNaN(x) && x >= 0 {
		s = "+" + s
	}
	return s
}

// WriteText writes the comparison as aligned text, benchstat's shape: the
// runs, how they were tested, a table a stage, the attribution and the
// --fail-on verdicts.
func (c *Comparison) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString(runLine("A", c.A) + "\n" + runLine("B", c.B) + "\n")
	b.WriteString(c.method() + "\n" + c.legend() + "\n")
	for i := range c.Stages {
		sc := &c.Stages[i]
		b.WriteString("\n")
		c.stageTable(sc).Text(&b, false)
		for _, n := range sc.Notes {
			b.WriteString("  - " + n + "\n")
		}
	}
	b.WriteString("\n" + perRequestNote + "\n")
	b.WriteString("\nAttribution: what changed in the streams themselves\n")
	if len(c.Attribution) == 0 {
		b.WriteString("  nothing: the same events a request by class, first and last events, token sources, framing and failures\n")
	}
	for _, a := range c.Attribution {
		b.WriteString("  - " + a.Text + movesText(a) + "\n")
	}
	if len(c.FailOn) > 0 {
		b.WriteString("\nFail-on:\n")
		for i := range c.FailOn {
			b.WriteString("  " + failOnLine(&c.FailOn[i]) + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// movesText names the figures an attribution moves.
func movesText(a Attribution) string {
	if len(a.Metrics) == 0 {
		return ""
	}
	names := make([]string, len(a.Metrics))
	for i, m := range a.Metrics {
		names[i] = string(m)
	}
	return " (moves " + strings.Join(names, ", ") + ")"
}

// WriteMarkdown writes the comparison as GitHub markdown, for a pull
// request comment: the text's tables and lists.
func (c *Comparison) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s**  \n**%s**\n\n", table.MarkdownEscape(runLine("A", c.A)), table.MarkdownEscape(runLine("B", c.B)))
	b.WriteString(table.MarkdownEscape(c.method()) + " " + table.MarkdownEscape(c.legend()) + "\n")
	for i := range c.Stages {
		sc := &c.Stages[i]
		fmt.Fprintf(&b, "\n### %s\n\n", sc.Stage.Title())
		t := c.stageTable(sc)
		t.Rows[0][0] = "metric" // the stage is the heading
		t.Markdown(&b)
		if len(sc.Notes) > 0 {
			b.WriteString("\n")
		}
		for _, n := range sc.Notes {
			b.WriteString("- " + table.MarkdownEscape(n) + "\n")
		}
	}
	b.WriteString("\n" + table.MarkdownEscape(perRequestNote) + "\n\n**Attribution: what changed in the streams themselves**\n\n")
	if len(c.Attribution) == 0 {
		b.WriteString("Nothing: the same events a request by class, first and last events, token sources, framing and failures.\n")
	}
	for _, a := range c.Attribution {
		b.WriteString("- " + table.MarkdownEscape(a.Text+movesText(a)) + "\n")
	}
	if len(c.FailOn) > 0 {
		b.WriteString("\n**Fail-on**\n\n")
		for i := range c.FailOn {
			b.WriteString("- " + table.MarkdownEscape(failOnLine(&c.FailOn[i])) + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// csvNumber is a full-precision number in the display unit; "" for NaN.
func csvNumber(u unit.Unit, x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	if u == unit.Fraction {
		u = ""
	}
	return strconv.FormatFloat(x*unit.Scale(u), 'g', -1, 64)
}

// plainNumber is x at full precision, "" for NaN.
func plainNumber(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// WriteCSV writes one row a stage and metric, full precision, times in ms
// and SuccessRate as a fraction.
func (c *Comparison) WriteCSV(w io.Writer) error {
	rows := [][]string{{"stage", "metric", "unit", "source", "a_median", "a_mean", "a_n", "b_median", "b_mean", "b_n",
		"delta_pct", "ci95_lo_pct", "ci95_hi_pct", "test", "method", "statistic", "p_value", "significant", "pairs"}}
	for _, sc := range c.Stages {
		for _, m := range sc.Metrics {
			u := unit.Label(m.Unit)
			rows = append(rows, []string{string(sc.Stage), string(m.Name), u, m.Source,
				csvNumber(m.Unit, m.A.Median), csvNumber(m.Unit, m.A.Mean), strconv.Itoa(m.A.N),
				csvNumber(m.Unit, m.B.Median), csvNumber(m.Unit, m.B.Mean), strconv.Itoa(m.B.N),
				plainNumber(m.DeltaPct), plainNumber(m.CI95[0]), plainNumber(m.CI95[1]),
				m.Test, string(m.Method), plainNumber(m.Statistic), plainNumber(m.PValue), strconv.FormatBool(m.Significant), strconv.Itoa(m.Pairs)})
		}
	}
	t := &table.Table{Rows: rows}
	return t.CSV(w)
}
