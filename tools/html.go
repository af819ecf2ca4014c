package tools

import (
	"html/template"
	"io"
)

// page is the HTML report: self-contained (no script, no network), the
// same table and sections as the text, every string escaped by
// html/template.
var page = template.Must(template.New("tools").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>audit tools: {{.Trace}}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; }
th, td { padding: 0.3em 0.8em; border-bottom: 1px solid #ddd; }
td.v, th.v { text-align: right; font-variant-numeric: tabular-nums; }
td.na { color: #999; }
li { margin: 0.3em 0; }
</style>
</head>
<body>
<h1>Every tool's numbers from the same bytes</h1>
<p>{{.Heading}}</p>
<table>
<tr>{{range $i, $c := .Header}}<th{{if $i}} class="v"{{end}}>{{$c}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range $i, $c := .}}<td class="{{if $i}}v{{end}}{{if eq $c "n/a"}} na{{end}}">{{$c}}</td>{{end}}</tr>
{{end}}</table>
{{with .Why}}<h2>Why they differ</h2>
<p>Each tool recomputed with one of its rules switched to AISBench's at a time: the quantities that move are that rule's doing.</p>
<ul>{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{with .NotComputed}}<h2>Not computed</h2>
<ul>{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{with .Notes}}<h2>Notes</h2>
<ul>{{range .}}<li>{{.}}</li>{{end}}</ul>{{end}}
<h2>Sources</h2>
<ul>{{range .Sources}}<li>{{.}}</li>{{end}}</ul>
</body>
</html>
`))

// WriteHTML writes the report as one self-contained page.
func (r *Report) WriteHTML(w io.Writer) error {
	t := r.Table()
	return page.Execute(w, map[string]any{
		"Trace": r.Trace, "Heading": r.heading(),
		"Header": t.Rows[0], "Rows": t.Rows[1:],
		"Why": r.WhyLines(), "NotComputed": r.NotComputedLines(), "Notes": r.noteLines(), "Sources": r.sourceLines(),
	})
}
