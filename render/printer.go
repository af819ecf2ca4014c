// Package render writes a finalized audit.Report as text (with or without
// colour), GitHub markdown, CSV and JSON, and the ITL accounting of `audit
// itl`. It formats what the report holds, through one table model (package
// table) and one way of spelling numbers (package unit), and computes no
// figure of its own.
package render

import (
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/calc/ssemetrics"
	"github.com/sseaudit/sseaudit/findings"
	"github.com/sseaudit/sseaudit/table"
)

// Options choose what a text or markdown report shows.
type Options struct {
	// Stage shows one stage only ("": both).
	Stage aisbench.Stage
	// Width is the widest line text may take: a table of both stages wider
	// than that shows one stage under the other (0: no limit).
	Width int
	// Color is ANSI colour (text only).
	Color bool
}

// DefaultWidth is the text report's width unless the caller says otherwise.
const DefaultWidth = 120

// printer is a report being rendered, in a colour mode.
type printer struct {
	*audit.Report
	color  bool // ANSI colour: text only
	stages []aisbench.Stage
	width  int
}

func newPrinter(rep *audit.Report, opts Options) *printer {
	r := &printer{Report: rep, color: opts.Color, stages: aisbench.Stages, width: opts.Width}
	if opts.Stage != "" {
		r.stages = []aisbench.Stage{opts.Stage}
	}
	return r
}

// shows says whether the stage is shown.
func (r *printer) shows(s aisbench.Stage) bool { return slices.Contains(r.stages, s) }

// findings are the findings about the run and the stages shown.
func (r *printer) findings() []findings.Finding {
	var shown []findings.Finding
	for _, f := range r.Findings {
		if f.Stage == "" || r.shows(f.Stage) {
			shown = append(shown, f)
		}
	}
	return shown
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
func Text(w io.Writer, rep *audit.Report) error { return TextWith(w, rep, Options{}) }

// TextWith is Text with opts: one stage, a width, colour.
func TextWith(w io.Writer, rep *audit.Report, opts Options) error {
	return newPrinter(rep, opts).text(w)
}

// TextColor writes Text's report with ANSI colour: headings, table titles
// and header rows in bold, finding severities coloured. The characters
// between the escapes are Text's, byte for byte; the caller decides when
// colour is wanted (a terminal, NO_COLOR unset).
func TextColor(w io.Writer, rep *audit.Report) error { return TextWith(w, rep, Options{Color: true}) }

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
func (r *printer) grid(b *strings.Builder, t *table.Table) { t.TextFit(b, r.color, r.width) }

// wrap is text as lines of at most width runes (0: one line), broken at
// spaces: the first line after first, the others after rest; a word longer
// than a line stands alone. Each line ends in a newline.
func wrap(width int, first, rest, text string) string {
	if width <= 0 || utf8.RuneCountInString(first+text) <= width {
		return first + text + "\n"
	}
	var b strings.Builder
	line, n := first, utf8.RuneCountInString(first)
	empty := true
	for _, word := range strings.Fields(text) {
		w := utf8.RuneCountInString(word)
		if !empty && n+1+w > width {
			b.WriteString(line + "\n")
			line, n, empty = rest, utf8.RuneCountInString(rest), true
		}
		if !empty {
			line += " "
			n++
		}
		line += word
		n += w
		empty = false
	}
	b.WriteString(line + "\n")
	return b.String()
}
