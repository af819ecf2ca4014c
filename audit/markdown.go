package audit

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WriteMarkdown writes the report as GitHub-flavoured markdown, for a pull
// request comment: AISBench's table and common metrics (both stages side by
// side), then sseaudit's section (its metrics, the ITL accounting, the
// windowed throughput, SLOs, the stable window explained and the findings).
// Every cell is the text report's.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "**Requests:** %d added, %d succeeded, %d failed. **Max concurrency:** %s.\n\n",
		r.Requests.Added, r.Requests.Succeeded, r.Requests.Failed, r.concurrencyText())
	b.WriteString("### AISBench's table (exact)\n\n")
	cols := len(r.Stats) + 1
	header := []string{"Metric", "Unit"}
	for _, stage := range Stages {
		for _, s := range r.Stats {
			header = append(header, stageShort(stage)+" "+s)
		}
		header = append(header, stageShort(stage)+" N")
	}
	rows := [][]string{header}
	for _, m := range Metrics {
		row := []string{string(m), unitLabel(m.Unit())}
		present := false
		for _, stage := range Stages {
			mr := r.Stage(stage).Metric(m)
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
	if len(rows) > 1 {
		writeMarkdownTable(&b, rows, 2)
	} else {
		b.WriteString("(no metrics: neither stage has a result)\n")
	}
	b.WriteString("\nwhole = `total` (every successful request); native = `stable` (requests starting inside the stable window). N is AISBench's N.\n\n")
	writeMarkdownTable(&b, r.CommonTable(), 2)
	var stageLines strings.Builder
	r.writeStageLines(&stageLines)
	if s := strings.TrimSpace(stageLines.String()); s != "" {
		b.WriteString("\n")
		for _, l := range strings.Split(s, "\n") {
			b.WriteString("- " + mdEscape(l) + "\n")
		}
	}
	if notes := r.notes(); len(notes) > 0 {
		b.WriteString("\n**Notes**\n\n")
		for _, n := range notes {
			b.WriteString("- " + mdEscape(n) + "\n")
		}
	}

	b.WriteString("\n### sseaudit: what the figures above are made of (not AISBench's output)\n\n")
	if r.stageHasSSE() {
		header := []string{"sseaudit metric", "Unit"}
		for _, stage := range Stages {
			for _, s := range r.AllStats {
				header = append(header, stageShort(stage)+" "+r.statHeader(s))
			}
			header = append(header, stageShort(stage)+" N", stageShort(stage)+" samples")
		}
		rows := [][]string{header}
		for _, m := range SSEMetrics {
			row := []string{string(m), sseUnitLabel(m.Unit())}
			present := false
			for _, stage := range Stages {
				mr := r.Stage(stage).SSEMetric(m)
				if mr == nil {
					for range len(r.AllStats) + 2 {
						row = append(row, "-")
					}
					continue
				}
				present = true
				for _, s := range mr.Stats {
					row = append(row, sseNumber(mr.Unit, s.Raw))
				}
				row = append(row, strconv.Itoa(mr.N), strconv.Itoa(mr.Samples))
			}
			if present {
				rows = append(rows, row)
			}
		}
		if len(rows) > 1 {
			writeMarkdownTable(&b, rows, 2)
			b.WriteString("\n")
		}
		for _, stage := range Stages {
			for _, a := range r.Stage(stage).SSEAbsent {
				fmt.Fprintf(&b, "- no %s in %s: %s\n", a.Name, stageTitles[stage], mdEscape(a.Reason))
			}
		}
		b.WriteString("\n**ITL accounting: what AISBench's ITL row is made of**\n\n")
		writeMarkdownTable(&b, r.ITLAccountingTable(), 2)
	} else {
		b.WriteString("sseaudit metrics: no stage has requests to measure\n")
	}
	var rest strings.Builder
	r.writeWindowedText(&rest)
	r.writeSLOText(&rest)
	r.writeWindowText(&rest)
	if s := strings.Trim(rest.String(), "\n"); s != "" {
		b.WriteString("\n<details><summary>Windowed throughput, SLOs and the stable window explained</summary>\n\n```text\n" + s + "\n```\n\n</details>\n")
	}
	if len(r.Findings) == 0 {
		b.WriteString("\n**Findings:** none.\n")
	} else {
		fmt.Fprintf(&b, "\n**Findings (%d)**\n\n", len(r.Findings))
		for _, f := range r.Findings {
			where := "run"
			if f.Stage != "" {
				where = stageTitles[f.Stage]
			}
			parts := make([]string, len(f.Evidence))
			for i, e := range f.Evidence {
				parts[i] = evidenceText(e)
			}
			fmt.Fprintf(&b, "- **%s** `%s` (%s; %s): %s. Evidence: %s.\n", f.Severity, f.Code, where, mdEscape(f.Figure), mdEscape(strings.TrimRight(f.Message, ".")), mdEscape(strings.Join(parts, ", ")))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// stageShort is a stage's column prefix in markdown tables.
func stageShort(s Stage) string {
	if s == StageTotal {
		return "whole"
	}
	return "native"
}

// mdEscape escapes the characters markdown would read as markup in a cell or
// a list item.
func mdEscape(s string) string {
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
			b.WriteString(" " + mdEscape(c) + " |")
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
