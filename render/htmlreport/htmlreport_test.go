package htmlreport

import (
	"encoding/xml"
	"errors"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/unit"
	"github.com/sseaudit/sseaudit/whatif"
)

// build audits a JSONL trace as `audit report` does, with the what-if of the
// default policies.
func build(t *testing.T, path string) (*audit.Report, *whatif.Result) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := trace.Open(path, trace.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c, ok, err := r.Info().Meta.MaxConcurrency()
	if err != nil || !ok {
		t.Fatalf("max concurrency: %v %v", ok, err)
	}
	var policies []whatif.Policy
	for _, n := range whatif.DefaultPolicies {
		p, err := whatif.ParsePolicy(n)
		if err != nil {
			t.Fatal(err)
		}
		policies = append(policies, p)
	}
	wb, err := whatif.NewBuilder(whatif.Config{MaxConcurrency: c, Policies: policies})
	if err != nil {
		t.Fatal(err)
	}
	b := audit.NewBuilder(audit.Config{MaxConcurrency: c})
	err = record.Each(r, record.Options{Framer: replay.AISBench, Spec: true}, func(rr *record.Replayed) error {
		b.Add(rr.Record)
		wb.Add(rr.Record)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := b.Finalize()
	if err != nil {
		t.Fatal(err)
	}
	res, err := wb.Finalize()
	if err != nil {
		t.Fatal(err)
	}
	return rep, res
}

func renderPage(t *testing.T, rep *audit.Report, opt Options) string {
	t.Helper()
	var b strings.Builder
	if err := Write(&b, rep, opt); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The page is self-contained: no script, no URL to fetch, no external style,
// font or image.
func TestSelfContained(t *testing.T) {
	rep, res := build(t, "../../testdata/traces/basic.jsonl")
	page := renderPage(t, rep, Options{Title: "basic.jsonl", WhatIf: res})
	for _, bad := range []string{"<script", "http://", "https://", "src=", "@import", "url(", "<link", "<img", "<iframe", "@font-face"} {
		if strings.Contains(strings.ToLower(page), bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
}

// Every in-page link lands on an element of the page, every finding links
// to its figure, and the charts are there.
func TestLinksAndSections(t *testing.T) {
	for _, name := range []string{"basic", "findings/usage_tail", "findings/no_window", "findings/tpot_below_itl"} {
		t.Run(name, func(t *testing.T) {
			rep, res := build(t, "../../testdata/traces/"+name+".jsonl")
			page := renderPage(t, rep, Options{WhatIf: res})
			ids := map[string]bool{}
			for _, m := range regexp.MustCompile(` id="([^"]+)"`).FindAllStringSubmatch(page, -1) {
				if ids[m[1]] {
					t.Errorf("id %q twice", m[1])
				}
				ids[m[1]] = true
			}
			for _, m := range regexp.MustCompile(`href="#([^"]+)"`).FindAllStringSubmatch(page, -1) {
				if !ids[m[1]] {
					t.Errorf("link to #%s, which the page lacks", m[1])
				}
			}
			for _, id := range []string{AnchorAISBench, AnchorSSEAudit, AnchorITL, AnchorInFlight, AnchorTimelines, AnchorIntervals, AnchorWhatIf, AnchorFindings, "svg-inflight", "svg-timelines"} {
				if !ids[id] {
					t.Errorf("no element with id %q", id)
				}
			}
			for _, f := range rep.Findings {
				re := regexp.MustCompile(`id="finding-` + regexp.QuoteMeta(f.Code) + `-` + string(f.Stage) + `">\n<p>.*?<a href="#` + FindingAnchor(f.Code) + `">`)
				if !re.MatchString(page) {
					t.Errorf("finding %s (%s) does not link to #%s", f.Code, f.Stage, FindingAnchor(f.Code))
				}
			}
			// The stages one under the other: a row a metric in each stage
			// with a result.
			for _, st := range aisbench.Stages {
				want := len(rep.Stage(st).Metrics)
				if rep.Stage(st).Err != nil {
					want = 0
				}
				if n := strings.Count(page, `<tr id="row-`+string(st)+`-`); n != want {
					t.Errorf("%d AISBench rows in %s, the stage has %d metrics", n, st, want)
				}
			}
		})
	}
}

// Each SVG is well-formed XML: a browser drops a malformed one silently.
func TestSVGWellFormed(t *testing.T) {
	rep, res := build(t, "../../testdata/traces/findings/zero_intervals.jsonl")
	page := renderPage(t, rep, Options{WhatIf: res})
	svgs := regexp.MustCompile(`(?s)<svg .*?</svg>`).FindAllString(page, -1)
	if len(svgs) < 3 {
		t.Fatalf("%d charts, want at least 3", len(svgs))
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

// The numbers in the page are the report's: AISBench's table cell for cell,
// the ITL accounting's interval count, the window's bounds.
func TestNumbersFromReport(t *testing.T) {
	rep, res := build(t, "../../testdata/traces/basic.jsonl")
	page := renderPage(t, rep, Options{WhatIf: res})
	for _, m := range rep.Total.Metrics {
		for _, st := range aisbench.Stages {
			re := regexp.MustCompile(`<tr id="row-` + string(st) + `-` + string(m.Name) + `">(.*?)</tr>`)
			row := re.FindStringSubmatch(page)
			if row == nil {
				t.Fatalf("no row %s of %s", m.Name, st)
			}
			cells := regexp.MustCompile(`<td[^>]*>([^<]*)</td>`).FindAllStringSubmatch(row[1], -1)
			var got []string
			for _, c := range cells[1:] { // the unit first
				got = append(got, c[1])
			}
			var want []string
			mr := rep.Stage(st).Metric(m.Name)
			for _, s := range mr.Stats {
				want = append(want, unit.AISBenchNumber(mr.Unit, s.Rounded))
			}
			want = append(want, itoa(mr.N), itoa(mr.Samples))
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("%s %s: page %v, report %v", st, m.Name, got, want)
			}
		}
	}
	a := rep.SSE.Total.ITL
	if !strings.Contains(page, "ITL's N is <b>"+itoa(a.AISBenchN)+"</b> (requests with a nonzero interval) while its statistics pool <b>"+itoa(a.Intervals)+" intervals</b>") {
		t.Error("the ITL sentence does not carry the accounting's N and interval count")
	}
	w := rep.Stable.Window
	if !strings.Contains(page, "<b>"+fixed(w.StartSeconds-w.OffsetSeconds, 6)+" s</b>") || !strings.Contains(page, "<b>"+fixed(w.EndSeconds-w.OffsetSeconds, 6)+" s</b>") {
		t.Error("the window sentence does not carry the window's bounds")
	}
	tm := rep.Figures.TmSetBy[0]
	if !strings.Contains(page, "<b>tm is set by</b> a <b>"+tm.Class+"</b> event in "+itoa(tm.Requests)+" of "+itoa(rep.Requests.Succeeded)+" requests") {
		t.Error("the timelines do not say which events set tm")
	}
	if !strings.Contains(page, "<code>no-usage-tail</code>") {
		t.Error("no what-if row for no-usage-tail")
	}
}

// Same report, same bytes.
func TestDeterministic(t *testing.T) {
	rep, res := build(t, "../../testdata/traces/basic.jsonl")
	a := renderPage(t, rep, Options{WhatIf: res})
	rep2, res2 := build(t, "../../testdata/traces/basic.jsonl")
	if b := renderPage(t, rep2, Options{WhatIf: res2}); a != b {
		t.Error("two renderings of the same trace differ")
	}
}

// Without what-if, the section says why.
func TestWhatIfNote(t *testing.T) {
	rep, _ := build(t, "../../testdata/traces/basic.jsonl")
	page := renderPage(t, rep, Options{WhatIfNote: "not available: no events"})
	if !strings.Contains(page, "What-if: not available: no events.") {
		t.Error("the what-if note is missing")
	}
}

func TestNiceTicks(t *testing.T) {
	got := niceTicks(0, 2.012, 10)
	if len(got) != 5 || got[0] != 0 || got[4] != 2 || tickLabel(got[1], got) != "0.5" || tickLabel(got[2], got) != "1.0" {
		t.Errorf("ticks %v", got)
	}
	if n := num(-0.001); n != "0" {
		t.Errorf("num(-0.001) = %q", n)
	}
}

func itoa(n int) string { return fixed(float64(n), 0) }
