package tools

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/sseaudit/sseaudit/table"
	"github.com/sseaudit/sseaudit/unit"
)

// spell is a value in its row's display unit, "n/a" when unknown.
func spell(q Quantity, v Value) string {
	if !v.Known {
		return "n/a"
	}
	switch q.Unit() {
	case unit.Count, unit.Tokens:
		return strconv.FormatFloat(v.X, 'f', -1, 64)
	}
	return unit.Value(q.Unit(), v.X)
}

// rowLabel is the row's name with its display unit.
func rowLabel(q Quantity) string {
	switch q.Unit() {
	case unit.Count, unit.Tokens:
		return q.Label()
	}
	return q.Label() + " (" + unit.Label(q.Unit()) + ")"
}

// Table is the table across tools: a row a quantity, a column a tool.
func (r *Report) Table() *table.Table {
	header := []string{"quantity"}
	for _, t := range r.Tools {
		header = append(header, t.Tool.Title)
	}
	t := &table.Table{Lead: 1, Group: len(r.Tools), Rows: [][]string{header}}
	for _, q := range Quantities {
		row := []string{rowLabel(q)}
		for _, tr := range r.Tools {
			row = append(row, spell(q, tr.Summary[q]))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// deltaText is how a quantity moves under a rule: "-9 (-1 a request)",
// "+2.1162 ms", "n/a → 12.3 ms".
func deltaText(q Quantity, d Delta, perRequest int) string {
	var s string
	switch {
	case d.Own.Known && d.Switched.Known:
		diff := d.Own.X - d.Switched.X
		sign := "+"
		if diff < 0 || math.Signbit(diff) {
			sign = "-"
		}
		s = sign + spell(q, Value{X: math.Abs(diff), Known: true})
		if u := unit.Label(q.Unit()); q.Unit() != unit.Count && q.Unit() != unit.Tokens {
			s += " " + u
		}
		if perRequest != 0 {
			s += fmt.Sprintf(" (%+d a request)", perRequest)
		}
	default:
		s = spell(q, d.Switched) + " → " + spell(q, d.Own)
	}
	return q.Label() + " " + s
}

// WhyLines are the attributions as sentences: "vLLM: ITL samples -9 (-1 a
// request), ITL mean +2.1162 ms: vLLM times only a message with choices
// (AISBench times every event it parses)".
func (r *Report) WhyLines() []string {
	var lines []string
	for _, a := range r.Why {
		var parts []string
		for _, d := range a.Deltas {
			parts = append(parts, deltaText(d.Quantity, d, a.PerRequest[d.Quantity]))
		}
		lines = append(lines, fmt.Sprintf("%s: %s: %s %s; AISBench %s", a.Tool.Title, strings.Join(parts, ", "),
			a.Tool.Title, a.Rule.Own, a.Rule.AISBench))
	}
	for _, res := range r.Residual {
		if len(res.Deltas) == 0 {
			lines = append(lines, fmt.Sprintf("%s with every rule switched to AISBench's: equal to AISBench on every row", res.Tool.Title))
			continue
		}
		var parts []string
		for _, d := range res.Deltas {
			p := fmt.Sprintf("%s %s against AISBench's %s", d.Quantity.Label(), spell(d.Quantity, d.Switched), spell(d.Quantity, d.Own))
			if !d.Own.Known {
				p += " (" + d.Own.Why + ")"
			}
			parts = append(parts, p)
		}
		lines = append(lines, fmt.Sprintf("%s with every rule switched to AISBench's: still %s", res.Tool.Title, strings.Join(parts, ", ")))
	}
	return lines
}

// NotComputedLines are each tool's keys the bytes cannot give, grouped by
// reason: "vLLM total_input_tokens, total_token_throughput: needs ...".
func (r *Report) NotComputedLines() []string {
	var lines []string
	for _, tr := range r.Tools {
		if tr.Err != "" {
			lines = append(lines, fmt.Sprintf("%s: nothing: %s", tr.Tool.Title, tr.Err))
			continue
		}
		var reasons []string
		keys := map[string][]string{}
		for _, k := range tr.Keys {
			if k.NotComputed == "" {
				continue
			}
			if _, ok := keys[k.NotComputed]; !ok {
				reasons = append(reasons, k.NotComputed)
			}
			keys[k.NotComputed] = append(keys[k.NotComputed], k.Name)
		}
		for _, why := range reasons {
			lines = append(lines, fmt.Sprintf("%s %s: %s", tr.Tool.Title, strings.Join(keys[why], ", "), why))
		}
	}
	return lines
}

func (r *Report) heading() string {
	return fmt.Sprintf("Every tool's numbers from the same bytes: %s, %s, %s API (%s), span %s ms",
		r.Trace, unit.Plural(r.Requests, "request"), r.API, apiFromText(r.APIFrom), unit.Value(unit.Seconds, r.SpanS))
}

func apiFromText(from string) string {
	switch from {
	case "--api":
		return "--api"
	case "metadata":
		return "from the trace's metadata"
	case "payload":
		return "from the payloads"
	}
	return "by default"
}

// WriteText writes the table, why the tools differ, what the bytes cannot
// give each tool, and the code each reproduces.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	b.WriteString(r.heading() + "\n\n")
	r.Table().Text(&b, false)
	section := func(title string, lines []string) {
		if len(lines) == 0 {
			return
		}
		b.WriteString("\n" + title + "\n")
		for _, l := range lines {
			b.WriteString("  " + l + "\n")
		}
	}
	section("Why they differ (each tool recomputed with one of its rules switched to AISBench's):", r.WhyLines())
	section("Not computed (what the bytes lack):", r.NotComputedLines())
	section("Notes:", r.noteLines())
	section("Sources:", r.sourceLines())
	_, err := io.WriteString(w, b.String())
	return err
}

func (r *Report) noteLines() []string {
	var lines []string
	for _, tr := range r.Tools {
		for _, n := range tr.Notes {
			lines = append(lines, tr.Tool.Title+": "+n)
		}
	}
	return lines
}

func (r *Report) sourceLines() []string {
	var lines []string
	for _, tr := range r.Tools {
		s := tr.Tool.Source
		proof := "goldened from its own code"
		if s.Proof == "documented" {
			proof = "pinned by its documented definitions"
		}
		lines = append(lines, fmt.Sprintf("%s: %s@%s %s (%s)", tr.Tool.Title, s.Repo, short(s.Commit), strings.Join(s.Files, ", "), proof))
	}
	return lines
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

// WriteMarkdown writes the same as WriteText as GitHub markdown.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("### " + table.MarkdownEscape(r.heading()) + "\n\n")
	r.Table().Markdown(&b)
	section := func(title string, lines []string) {
		if len(lines) == 0 {
			return
		}
		b.WriteString("\n**" + title + "**\n\n")
		for _, l := range lines {
			b.WriteString("- " + table.MarkdownEscape(l) + "\n")
		}
	}
	section("Why they differ", r.WhyLines())
	section("Not computed", r.NotComputedLines())
	section("Notes", r.noteLines())
	section("Sources", r.sourceLines())
	_, err := io.WriteString(w, b.String())
	return err
}
