package lag

import (
	"html/template"
	"io"
	"strings"
)

// section is the lag as one <section id="client-lag">: the same lines,
// tables and findings as the text, every string escaped by html/template.
// It is the body of audit lag's page and a section of audit report's.
const section = `<section id="client-lag">
<h2>The client's lag, measured against the wire</h2>
<ul>{{range .Summary}}<li>{{.}}</li>{{end}}</ul>
{{range .Tables}}<h3>{{.Title}}</h3>
<table>
<tr>{{range $i, $c := .Header}}<th{{if $i}} class="v"{{end}}>{{$c}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range $i, $c := .}}<td{{if $i}} class="v"{{end}}>{{$c}}</td>{{end}}</tr>
{{end}}</table>
{{with .Note}}<p>{{.}}</p>{{end}}
{{end}}<h3>Findings</h3>
{{with .Findings}}<ul>{{range .}}<li class="{{.Severity}}"><b>{{.Severity}} {{.Code}}</b>: {{.Message}}</li>{{end}}</ul>{{else}}<p>none</p>{{end}}
</section>
`

// page is audit lag's HTML report: self-contained (no script, no network).
var page = template.Must(template.Must(template.New("section").Parse(section)).New("lag").Parse(`<!DOCTYPE html>
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
<h1>audit lag</h1>
{{template "section" .}}</body>
</html>
`))

func (r *Report) view(src Sources) map[string]any {
	return map[string]any{
		"Wire": src.Wire, "Client": src.Client,
		"Summary": r.summary(src), "Tables": r.tables(), "Findings": r.Findings,
	}
}

// WriteHTML writes the report as one self-contained page.
func (r *Report) WriteHTML(w io.Writer, src Sources) error {
	return page.ExecuteTemplate(w, "lag", r.view(src))
}

// HTMLSection is the report as one <section id="client-lag">, escaped by
// html/template, for another page to hold (audit report's).
func (r *Report) HTMLSection(src Sources) (template.HTML, error) {
	var b strings.Builder
	if err := page.ExecuteTemplate(&b, "section", r.view(src)); err != nil {
		return "", err
	}
	return template.HTML(b.String()), nil
}
