package lag

import (
	"html/template"
	"io"
)

// page is the HTML report: self-contained (no script, no network), the
// same lines and tables as the text, every string escaped by html/template.
var page = template.Must(template.New("lag").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>audit lag: {{.Wire}} against {{.Client}}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; }
th, td { padding: 0.3em 0.8em; border-bottom: 1px solid #ddd; }
td.v, th.v { text-align: right; font-variant-numeric: tabular-nums; }
li { margin: 0.3em 0; }
.warning { color: #a15c00; } .error { color: #b00020; }
</style>
</head>
<body>
<section id="client-lag">
<h1>The client's lag, measured against the wire</h1>
<ul>{{range .Summary}}<li>{{.}}</li>{{end}}</ul>
{{range .Tables}}<h2>{{.Title}}</h2>
<table>
<tr>{{range $i, $c := .Header}}<th{{if $i}} class="v"{{end}}>{{$c}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range $i, $c := .}}<td{{if $i}} class="v"{{end}}>{{$c}}</td>{{end}}</tr>
{{end}}</table>
{{with .Note}}<p>{{.}}</p>{{end}}
{{end}}<h2>Findings</h2>
{{with .Findings}}<ul>{{range .}}<li class="{{.Severity}}"><b>{{.Severity}} {{.Code}}</b>: {{.Message}}</li>{{end}}</ul>{{else}}<p>none</p>{{end}}
</section>
</body>
</html>
`))

// WriteHTML writes the report as one self-contained page.
func (r *Report) WriteHTML(w io.Writer, src Sources) error {
	return page.Execute(w, map[string]any{
		"Wire": src.Wire, "Client": src.Client,
		"Summary": r.summary(src), "Tables": r.tables(), "Findings": r.Findings,
	})
}
