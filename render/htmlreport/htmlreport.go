// Package htmlreport renders a finalized audit.Report (and optionally the
// what-if result of the same run) as one self-contained HTML page: AISBench's
// table beside sseaudit's figures, the in-flight concurrency curve with the
// stable window, per-request timelines, the ITL and ContentUpdateInterval
// distributions, the what-if deltas and the findings, each linked to its
// figure.
//
// The page has no script, no external style sheet, font or image: the charts
// are inline SVG. The page is html/template's (templates/*.tmpl), which
// escapes every value in its context; the Go code here only prepares what
// the templates print (view structs of strings and numbers: table cells,
// sentences' values, SVG coordinates), scaling what audit.Report.Figures
// holds, and computes no figure of its own.
package htmlreport

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io"
	"strconv"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/findings"
	"github.com/sseaudit/sseaudit/whatif"
)

// Options are what the page shows besides the report.
type Options struct {
	// Title names the run, e.g. the trace's path.
	Title string
	// WhatIf is the what-if result of the same records (its default policies);
	// nil leaves the section out, saying WhatIfNote.
	WhatIf     *whatif.Result
	WhatIfNote string
	// Lag is the client's lag against this trace, the wire (package lag's
	// HTMLSection, escaped by it); empty leaves the section out.
	Lag template.HTML
}

// Section and figure anchors, stable: findings and the what-if link to them.
const (
	AnchorAISBench  = "aisbench"
	AnchorSSEAudit  = "sseaudit-metrics"
	AnchorITL       = "itl-accounting"
	AnchorInFlight  = "fig-inflight"
	AnchorTimelines = "fig-timelines"
	AnchorIntervals = "fig-intervals"
	AnchorWhatIf    = "whatif"
	AnchorLag       = "client-lag"
	AnchorFindings  = "findings"
)

// FindingAnchor is the figure a finding concerns.
func FindingAnchor(code string) string {
	switch code {
	case findings.CommentInBlock, findings.FieldLines, findings.MultiLineData,
		findings.BufferedStream, findings.RoleOnlySetsTTFT, findings.UsageTailSetsEnd:
		return AnchorTimelines
	case findings.ITLNCountsRequests:
		return AnchorITL
	case findings.TPOTBelowITL, findings.ZeroIntervals:
		return AnchorIntervals
	case findings.ConcurrencyBelowC, findings.NoStableWindow, findings.ShortStableWindow:
		return AnchorInFlight
	}
	return AnchorAISBench
}

var anchorNames = map[string]string{
	AnchorAISBench: "AISBench's table", AnchorITL: "ITL accounting", AnchorInFlight: "in-flight curve",
	AnchorTimelines: "request timelines", AnchorIntervals: "interval distributions",
}

// anchors are the anchors by the names the templates give them:
// {{anchor "InFlight"}}.
var anchors = map[string]string{
	"AISBench": AnchorAISBench, "SSEAudit": AnchorSSEAudit, "ITL": AnchorITL, "InFlight": AnchorInFlight,
	"Timelines": AnchorTimelines, "Intervals": AnchorIntervals, "WhatIf": AnchorWhatIf, "Lag": AnchorLag, "Findings": AnchorFindings,
}

func anchor(name string) (string, error) {
	a, ok := anchors[name]
	if !ok {
		return "", fmt.Errorf("htmlreport: no anchor %q", name)
	}
	return a, nil
}

//go:embed style.css
var styleCSS string

//go:embed templates/*.tmpl
var templateFS embed.FS

// templates are the page's: page.html.tmpl the document, the others its
// sections, tables and charts.
var templates = template.Must(template.New("").Funcs(template.FuncMap{"anchor": anchor}).ParseFS(templateFS, "templates/*.tmpl"))

// pageView is what page.html.tmpl prints.
type pageView struct {
	Title string
	// Style is the page's own style sheet (style.css), trusted as CSS.
	Style                              template.CSS
	Added, Succeeded, Failed, Findings int
	C                                  string // max concurrency, or "unknown"
	RunSeconds                         string // "" without figures
	AISBench                           aisbenchView
	SSE                                sseView
	InFlight                           *inFlightView  // nil: nothing to draw
	Timelines                          *timelinesView // nil: nothing to draw
	Intervals                          *intervalsView // nil: nothing to draw
	WhatIf                             *whatIfView    // nil: WhatIfNote
	WhatIfNote                         string
	Lag                                template.HTML // "": no section
	FindingList                        []findingView
}

// Write renders the report as one HTML document.
func Write(w io.Writer, rep *audit.Report, opt Options) error {
	v := pageView{
		Title: "sseaudit report", Style: template.CSS(styleCSS),
		Added: rep.Requests.Added, Succeeded: rep.Requests.Succeeded, Failed: rep.Requests.Failed,
		Findings: len(rep.Findings), C: "unknown",
		AISBench: newAISBenchView(rep), SSE: newSSEView(rep),
		InFlight: newInFlightView(rep), Timelines: newTimelinesView(rep), Intervals: newIntervalsView(rep),
		WhatIf: newWhatIfView(opt.WhatIf), WhatIfNote: opt.WhatIfNote, Lag: opt.Lag, FindingList: newFindingViews(rep),
	}
	if opt.Title != "" {
		v.Title += ": " + opt.Title
	}
	if rep.MaxConcurrency > 0 {
		v.C = strconv.Itoa(rep.MaxConcurrency)
	}
	if f := rep.Figures; f != nil {
		v.RunSeconds = fixed(f.RunSeconds, 6)
	}
	if v.WhatIfNote == "" {
		v.WhatIfNote = "not computed"
	}
	var b bytes.Buffer
	if err := templates.ExecuteTemplate(&b, "page", v); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// fixed formats x with prec decimals.
func fixed(x float64, prec int) string { return strconv.FormatFloat(x, 'f', prec, 64) }
