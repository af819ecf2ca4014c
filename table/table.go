// Package table is the model of every text table sseaudit prints: the rows
// of cells, the leading label columns and the groups of value columns (one
// a stage, say), built once and printed as aligned text (with or without
// colour), GitHub markdown or CSV. A table computes nothing: its cells are
// already spelled (package unit).
package table

import (
	"encoding/csv"
	"io"
	"strings"
	"unicode/utf8"
)

// Table is rows of cells, the header row first.
type Table struct {
	// Lead is how many leading columns are labels, left-aligned; the others
	// are values, right-aligned.
	Lead int
	// Group is how many value columns make a group (a stage's statistics,
	// say): text puts " | " between groups. 0 or 1: every column its own.
	Group int
	// Titles, one a group, go above the header in text; nil for none.
	Titles []string
	// Prefixes, one a group, go before each header cell of the group in
	// markdown ("whole", "native"); nil for none.
	Prefixes []string
	Rows     [][]string
}

// Text writes the table aligned: the first Lead columns left-aligned, the
// rest right-aligned in groups separated by " | ", each group's title on a
// line above the header; with color the titles and the header are bold (the
// escapes go around padded lines, so alignment holds).
func (t *Table) Text(b *strings.Builder, color bool) {
	group := max(t.Group, 1)
	writeGridColor(b, t.Rows, t.Lead, group, t.Titles, color)
}

// TextFit is Text within width columns (0: any): a table of titled groups
// wider than that is written a group at a time instead, each with the label
// columns and its title above, one under the other.
func (t *Table) TextFit(b *strings.Builder, color bool, width int) {
	groups := t.groups()
	if width <= 0 || t.Titles == nil || groups < 2 || t.Width() <= width {
		t.Text(b, color)
		return
	}
	for g := range groups {
		if g > 0 {
			b.WriteByte('\n')
		}
		t.Only(g).Text(b, color)
	}
}

// groups is the number of value groups.
func (t *Table) groups() int {
	if len(t.Rows) == 0 {
		return 0
	}
	return (len(t.Rows[0]) - t.Lead) / max(t.Group, 1)
}

// Width is the widest line Text writes.
func (t *Table) Width() int {
	var b strings.Builder
	t.Text(&b, false)
	w := 0
	for _, line := range strings.Split(b.String(), "\n") {
		w = max(w, utf8.RuneCountInString(line))
	}
	return w
}

// Only is the table of the label columns and group g's columns, with its
// title and prefix.
func (t *Table) Only(g int) *Table {
	group := max(t.Group, 1)
	from, to := t.Lead+g*group, t.Lead+(g+1)*group
	out := &Table{Lead: t.Lead, Group: group}
	if t.Titles != nil {
		out.Titles = []string{t.Titles[g]}
	}
	if t.Prefixes != nil {
		out.Prefixes = []string{t.Prefixes[g]}
	}
	for _, row := range t.Rows {
		out.Rows = append(out.Rows, append(append([]string(nil), row[:t.Lead]...), row[from:to]...))
	}
	return out
}

// Markdown writes the table as a GitHub table: the header's cells after
// their group's prefix, the label columns left-aligned, the rest right-aligned.
func (t *Table) Markdown(b *strings.Builder) {
	if len(t.Rows) == 0 {
		return
	}
	rows := t.Rows
	if t.Prefixes != nil {
		group := max(t.Group, 1)
		header := append([]string(nil), rows[0]...)
		for i := t.Lead; i < len(header); i++ {
			if p := t.Prefixes[(i-t.Lead)/group]; p != "" {
				header[i] = p + " " + header[i]
			}
		}
		rows = append([][]string{header}, rows[1:]...)
	}
	writeMarkdownTable(b, rows, t.Lead)
}

// CSV writes the rows as CSV (encoding/csv: minimal quoting, "\n").
func (t *Table) CSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.WriteAll(t.Rows); err != nil {
		return err
	}
	return cw.Error()
}

// Grid writes rows as Text does: a table of lead label columns and value
// columns in groups of group.
func Grid(b *strings.Builder, rows [][]string, lead, group int, titles []string) {
	writeGridColor(b, rows, lead, group, titles, false)
}

// writeGridColor is Text of the rows.
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
		b.WriteString(Paint(color, Bold, strings.TrimRight(line, " ")) + "\n")
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
			text = Paint(color, Bold, text)
		}
		b.WriteString(text + "\n")
	}
}

// MarkdownEscape escapes the characters markdown would read as markup in a cell or
// a list item.
func MarkdownEscape(s string) string {
	r := strings.NewReplacer("|", "\\|", "*", "\\*", "_", "\\_", "<", "&lt;", ">", "&gt;", "`", "\\`")
	return r.Replace(s)
}

// writeMarkdownTable writes rows (the header first) as a GitHub table: the
// first lead columns left-aligned, the rest right-aligned.
func writeMarkdownTable(b *strings.Builder, rows [][]string, lead int) {
	if len(rows) == 0 {
		return
	}
	line := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			if c == "" {
				c = " "
			}
			b.WriteString(" " + MarkdownEscape(c) + " |")
		}
		b.WriteString("\n")
	}
	line(rows[0])
	b.WriteString("|")
	for i := range rows[0] {
		if i < lead {
			b.WriteString("---|")
		} else {
			b.WriteString("---:|")
		}
	}
	b.WriteString("\n")
	for _, row := range rows[1:] {
		line(row)
	}
}

// The ANSI escapes of coloured text.
const (
	Bold   = "\x1b[1m"
	Red    = "\x1b[1;31m"
	Yellow = "\x1b[1;33m"
	Cyan   = "\x1b[36m"
	reset  = "\x1b[0m"
)

// Paint wraps s in an escape when on is set (and s is not empty).
func Paint(on bool, code, s string) string {
	if !on || s == "" {
		return s
	}
	return code + s + reset
}
