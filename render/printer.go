// Package render writes a finalized audit.Report as text (with or without
// colour), GitHub markdown, CSV and JSON, and the ITL accounting of `audit
// itl`. It formats what the report holds, through one table model (package
// table) and one way of spelling numbers (package unit), and computes no
// figure of its own.
package render

import (
	"io"
	"strings"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/calc/ssemetrics"
	"github.com/sseaudit/sseaudit/findings"
	"github.com/sseaudit/sseaudit/table"
)

// printer is a report being rendered, in a colour mode.
type printer struct {
	*audit.Report
	color bool // ANSI colour: text only
}

// sse is sseaudit's figures of a stage.
func (r *printer) sse(stage aisbench.Stage) *ssemetrics.StageResult { return r.SSE.Stage(stage) }

// StageTitle is the article's name of a stage with AISBench's: "whole
// (total)", "native (stable)".
func StageTitle(s aisbench.Stage) string { return s.Title() }

// severityColor is a finding severity's colour: error red, warning yellow,
// info cyan.
func severityColor(s findings.Severity) string {
	switch s {
	case findings.SeverityError:
		return table.Red
	case findings.SeverityWarning:
		return table.Yellow
	}
	return table.Cyan
}

// Text writes the report as AISBench's table with both stages side by
// side, their common metrics, the stable window, and notes, then sseaudit's
// figures.
func Text(w io.Writer, rep *audit.Report) error { return (&printer{Report: rep}).text(w) }

// TextColor writes Text's report with ANSI colour: headings, table titles
// and header rows in bold, finding severities coloured. The characters
// between the escapes are Text's, byte for byte; the caller decides when
// colour is wanted (a terminal, NO_COLOR unset).
func TextColor(w io.Writer, rep *audit.Report) error {
	return (&printer{Report: rep, color: true}).text(w)
}

// heading writes a heading line (leading and trailing newlines kept outside
// the escapes).
func (r *printer) heading(b *strings.Builder, s string) { heading(b, r.color, s) }

// heading writes a heading line, in bold with color.
func heading(b *strings.Builder, color bool, s string) {
	if !color {
		b.WriteString(s)
		return
	}
	body := strings.TrimLeft(s, "\n")
	b.WriteString(s[:len(s)-len(body)])
	text := strings.TrimRight(body, "\n")
	b.WriteString(table.Paint(true, table.Bold, text))
	b.WriteString(body[len(text):])
}

// grid writes a table in the report's colour mode.
func (r *printer) grid(b *strings.Builder, t *table.Table) { t.Text(b, r.color) }
