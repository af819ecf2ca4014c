package audit

import (
	"io"
	"strings"
)

// ANSI escapes of the coloured text report.
const (
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[1;31m"
	ansiYellow = "\x1b[1;33m"
	ansiCyan   = "\x1b[36m"
	ansiReset  = "\x1b[0m"
)

// paint wraps s in an escape when on is set.
func paint(on bool, code, s string) string {
	if !on || s == "" {
		return s
	}
	return code + s + ansiReset
}

// severityColor is a finding severity's colour: error red, warning yellow,
// info cyan.
func severityColor(s Severity) string {
	switch s {
	case SeverityError:
		return ansiRed
	case SeverityWarning:
		return ansiYellow
	}
	return ansiCyan
}

// WriteTextColor writes WriteText's report with ANSI colour: headings, table
// titles and header rows in bold, finding severities coloured. The characters
// between the escapes are WriteText's, byte for byte; the caller decides when
// colour is wanted (a terminal, NO_COLOR unset).
func (r *Report) WriteTextColor(w io.Writer) error {
	cp := *r
	cp.color = true
	return cp.WriteText(w)
}

// heading writes a heading line (leading and trailing newlines kept outside
// the escapes).
func (r *Report) heading(b *strings.Builder, s string) {
	if !r.color {
		b.WriteString(s)
		return
	}
	body := strings.TrimLeft(s, "\n")
	b.WriteString(s[:len(s)-len(body)])
	text := strings.TrimRight(body, "\n")
	b.WriteString(paint(true, ansiBold, text))
	b.WriteString(body[len(text):])
}

// grid is writeGrid in the report's colour mode.
func (r *Report) grid(b *strings.Builder, rows [][]string, lead, group int, titles []string) {
	writeGridColor(b, rows, lead, group, titles, r.color)
}
