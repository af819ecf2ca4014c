package htmlreport

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/calc/ssemetrics"
	"github.com/sseaudit/sseaudit/findings"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/unit"
)

// hostile is a text value that breaks the page wherever it is printed
// unescaped: in text, in an attribute, in an SVG <title> or <text>.
func hostile(field string) string {
	return `<script>alert("` + field + `")</script>'&</svg>+`
}

// escaped is s as html/template writes it in text and quoted attributes.
var escaped = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "+", "&#43;").Replace

// Every text value of the page goes through the template's escaping: a
// title, request id, finding, note, selector, SLO or chart label holding
// markup comes out as text, in every place it is printed, and the charts
// stay well-formed SVG.
func TestHostileTextEscaped(t *testing.T) {
	rep, res := build(t, "../../testdata/traces/basic.jsonl")
	f := rep.Figures
	if f == nil || f.InFlight == nil || f.InFlight.FirstReach == nil || f.InFlight.WindowStart == nil || f.InFlight.WindowEnd == nil ||
		f.Timelines == nil || len(f.Timelines.Requests) < 2 || len(f.TmSetBy) == 0 || len(f.Distributions) == 0 ||
		rep.Window == nil || len(rep.Window.Selectors) == 0 || rep.SSE.Stable.Windowed == nil || rep.Stable.Window == nil {
		t.Fatal("basic.jsonl no longer has every figure this test fills with hostile text")
	}
	// want: every hostile value set below, and the (escaped) text it must
	// show up in.
	want := map[string]string{}
	set := func(field string) string {
		h := hostile(field)
		want[field] = escaped(h)
		return h
	}
	opt := Options{Title: set("title"), WhatIf: res}
	rep.StatsWarnings = append(rep.StatsWarnings, set("note"))
	rep.SSE.Total.Absent = append(rep.SSE.Total.Absent, metric.Removed{Name: metric.Metric(set("absent-name")), Reason: set("absent-reason")})
	rep.SSE.Total.SLOs = append(rep.SSE.Total.SLOs, ssemetrics.SLOResult{SLO: ssemetrics.SLO{Text: set("slo")}, Met: 1, Denominator: 2, Fraction: 0.5})
	rep.SSE.Stable.Windowed.Basis = set("basis")
	for i := range rep.Window.Selectors {
		s := &rep.Window.Selectors[i]
		s.Name, s.Description, s.Commit = set(fmt.Sprint("selector-name-", i)), set(fmt.Sprint("selector-description-", i)), hostile("commit")
	}
	want["commit"] = escaped(hostile("commit")[:12])
	c := f.InFlight
	for i, m := range []*struct{ label, id *string }{{&c.FirstReach.Label, &c.FirstReach.ID}, {&c.WindowStart.Label, &c.WindowStart.ID}, {&c.WindowEnd.Label, &c.WindowEnd.ID}} {
		*m.label, *m.id = set(fmt.Sprint("mark-label-", i)), set(fmt.Sprint("mark-id-", i))
	}
	tl := f.Timelines
	tl.Rule = set("rule")
	tl.Of++ // a sample: the rule is printed
	for i := range tl.Requests {
		r := &tl.Requests[i]
		r.ID, r.Why, r.TmClass = set(fmt.Sprint("request-id-", i)), []string{set(fmt.Sprint("why-", i))}, set(fmt.Sprint("tm-class-", i))
		if i == 0 {
			r.Stable = true
		}
	}
	f.TmSetBy[0].Class, f.TTFTSetBy[0].Class = set("tm-set-by"), set("ttft-set-by")
	for i, d := range f.Distributions {
		d.ITL.Metric = metric.Metric(set(fmt.Sprint("distribution-metric-", i)))
	}
	res.Stats = []string{set("whatif-stat")}
	rep.Findings = append(rep.Findings, findings.Finding{
		Code: set("finding-code"), Severity: findings.Severity(set("finding-severity")), Stage: aisbench.Stage(set("finding-stage")),
		Figure: set("finding-figure"), Message: set("finding-message"),
		Evidence: []findings.Evidence{{Name: set("evidence"), Value: 1, Unit: unit.Count}},
		Requests: []string{set("finding-request-0"), set("finding-request-1")},
	})

	page := renderPage(t, rep, opt)
	noteless := renderPage(t, rep, Options{Title: opt.Title, WhatIfNote: set("whatif-note")})
	for _, p := range []string{page, noteless} {
		for _, raw := range []string{"<script", "alert(\"", "'&<", "&</svg>"} {
			if i := strings.Index(p, raw); i >= 0 {
				t.Errorf("the page prints %q unescaped: …%s…", raw, p[max(0, i-120):min(len(p), i+120)])
			}
		}
	}
	for field, text := range want {
		if !strings.Contains(page, text) && !strings.Contains(noteless, text) {
			t.Errorf("%s: the page does not show %q", field, text)
		}
	}
	// In attributes too: the finding's anchor, the timeline's <title>.
	for _, s := range []string{`class="finding ` + want["finding-severity"] + `" id="finding-` + want["finding-code"] + `-` + want["finding-stage"] + `"`,
		`<title>` + want["request-id-0"] + ` (` + want["why-0"] + `)</title>`, `<title>sseaudit report: ` + want["title"] + `</title>`, `<h1>sseaudit report: ` + want["title"] + `</h1>`,
		`★ ` + escaped(fit(hostile("request-id-0"), labelW-12-fontRID.width("★ "), fontRID)) + `</text>`} {
		if !strings.Contains(page, s) {
			t.Errorf("the page lacks %s", s)
		}
	}
	svgs := regexp.MustCompile(`(?s)<svg .*?</svg>`).FindAllString(page, -1)
	if n := strings.Count(page, "<svg "); len(svgs) != n || n < 3 {
		t.Fatalf("%d charts, %d closed", n, len(svgs))
	}
	for _, s := range svgs {
		d := xml.NewDecoder(strings.NewReader(s))
		for {
			_, err := d.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("chart is not well-formed XML: %v\n%.300s", err, s)
			}
		}
	}
}
