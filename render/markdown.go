package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/table"
)

// Markdown writes the report as GitHub-flavoured markdown, for a pull
// request comment: AISBench's table and common metrics (both stages side by
// side), then sseaudit's section (its metrics, the ITL accounting, the
// windowed throughput, SLOs, the stable window explained and the findings).
// Every cell is the text report's.
func Markdown(w io.Writer, rep *audit.Report) error { return MarkdownWith(w, rep, Options{}) }

// MarkdownWith is Markdown with the stages of opts.
func MarkdownWith(w io.Writer, rep *audit.Report, opts Options) error {
	r := newPrinter(rep, opts)
	var b strings.Builder
	fmt.Fprintf(&b, "**Requests:** %d added, %d succeeded, %d failed. **Max concurrency:** %s.\n\n",
		r.Requests.Added, r.Requests.Succeeded, r.Requests.Failed, concurrencyText(rep))
	b.WriteString("### AISBench's table (exact)\n\n")
	if t := r.metricTable(); len(t.Rows) > 1 {
		t.Markdown(&b)
	} else {
		b.WriteString("(no metrics: neither stage has a result)\n")
	}
	b.WriteString("\nwhole = `total` (every successful request); native = `stable` (requests starting inside the stable window). N is AISBench's N.\n\n")
	r.commonTable().Markdown(&b)
	if s := strings.TrimSpace(r.stageLines()); s != "" {
		b.WriteString("\n")
		for _, l := range strings.Split(s, "\n") {
			b.WriteString("- " + table.MarkdownEscape(l) + "\n")
		}
	}
	if notes := r.notes(); len(notes) > 0 {
		b.WriteString("\n**Notes**\n\n")
		for _, n := range notes {
			b.WriteString("- " + table.MarkdownEscape(n) + "\n")
		}
	}

	b.WriteString("\n### sseaudit: what the figures above are made of (not AISBench's output)\n\n")
	if r.hasSSE() {
		if t := r.sseMetricTable(); len(t.Rows) > 1 {
			t.Markdown(&b)
			b.WriteString("\n")
		}
		for _, stage := range r.stages {
			for _, a := range r.sse(stage).Absent {
				fmt.Fprintf(&b, "- no %s in %s: %s\n", a.Name, StageTitle(stage), table.MarkdownEscape(a.Reason))
			}
		}
		b.WriteString("\n**ITL accounting: what AISBench's ITL row is made of**\n\n")
		r.itlAccountingTable().Markdown(&b)
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
	if shown := r.findings(); len(shown) == 0 {
		b.WriteString("\n**Findings:** none.\n")
	} else {
		fmt.Fprintf(&b, "\n**Findings (%d)**\n\n", len(shown))
		for _, f := range shown {
			where := "run"
			if f.Stage != "" {
				where = StageTitle(f.Stage)
			}
			parts := make([]string, len(f.Evidence))
			for i, e := range f.Evidence {
				parts[i] = e.Text()
			}
			fmt.Fprintf(&b, "- **%s** `%s` (%s; %s): %s. Evidence: %s.\n", f.Severity, f.Code, where, table.MarkdownEscape(f.Figure), table.MarkdownEscape(strings.TrimRight(f.Message, ".")), table.MarkdownEscape(strings.Join(parts, ", ")))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
