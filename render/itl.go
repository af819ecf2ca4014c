package render

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/findings"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/table"
	"github.com/sseaudit/sseaudit/unit"
)

// itlFindings are the findings about what the ITL and TPOT rows are made of.
var itlFindings = []string{findings.ITLNCountsRequests, findings.ZeroIntervals, findings.TPOTBelowITL, findings.BufferedStream}

// ITLText writes the ITL accounting of both stages (`audit itl`):
// AISBench's ITL row, then how many intervals and requests stand behind it,
// then the findings about it.
func ITLText(w io.Writer, rep *audit.Report) error {
	r := newPrinter(rep, Options{})
	var b strings.Builder
	fmt.Fprintf(&b, "Requests: %d added, %d succeeded, %d failed. Max concurrency: %s.\n\n",
		r.Requests.Added, r.Requests.Succeeded, r.Requests.Failed, concurrencyText(rep))
	header := []string{"AISBench's row", "Unit"}
	for range aisbench.Stages {
		header = append(header, r.Stats...)
		header = append(header, "N")
	}
	row := []string{string(metric.ITL), "ms"}
	present := false
	for _, stage := range aisbench.Stages {
		mr := r.Stage(stage).Metric(metric.ITL)
		if mr == nil {
			for range len(r.Stats) + 1 {
				row = append(row, "-")
			}
			continue
		}
		present = true
		for _, s := range mr.Stats {
			row = append(row, unit.AISBenchNumber(mr.Unit, s.Rounded))
		}
		row = append(row, fmt.Sprint(mr.N))
	}
	titles := make([]string, len(aisbench.Stages))
	for i, stage := range aisbench.Stages {
		titles[i] = StageTitle(stage)
	}
	if present {
		table.Grid(&b, [][]string{header, row}, 2, len(r.Stats)+1, titles)
	} else {
		b.WriteString("AISBench prints no ITL row in either stage.\n")
	}
	for _, stage := range aisbench.Stages {
		st := r.Stage(stage)
		if st.Err != nil {
			fmt.Fprintf(&b, "  - %s: %v\n", StageTitle(stage), st.Err)
		}
		for _, m := range st.Removed {
			if m.Name == metric.ITL {
				fmt.Fprintf(&b, "  - %s: AISBench leaves out ITL: %s\n", StageTitle(stage), m.Reason)
			}
		}
	}
	r.writeITLText(&b)
	var fs []findings.Finding
	for _, f := range r.Findings {
		if slices.Contains(itlFindings, f.Code) {
			fs = append(fs, f)
		}
	}
	writeFindingsText(&b, fs, false, r.width)
	_, err := io.WriteString(w, b.String())
	return err
}

// ITLJSON writes the ITL accounting of both stages:
// stages.<stage>.{aisbench_n, requests_with_intervals, intervals,
// zero_intervals, pooled_mean_ms, per_request_mean_ms, ...}, null for a stage
// without requests, and the findings about ITL.
func ITLJSON(w io.Writer, rep *audit.Report) error {
	r := newPrinter(rep, Options{})
	var doc object
	doc.Set("schema_version", SchemaVersion)
	var stages object
	for _, stage := range aisbench.Stages {
		st := r.Stage(stage)
		acc := ITLAccountingJSON(r.sse(stage).ITL)
		if acc == nil {
			stages.Set(string(stage), nil)
			continue
		}
		o := acc.(object)
		if st.Err != nil {
			o.Set("aisbench_error", st.Err.Error())
		} else {
			o.Set("aisbench_error", nil)
		}
		stages.Set(string(stage), o)
	}
	doc.Set("stages", stages)
	var fs []object
	for i, f := range findingsJSON(r.Findings) {
		if slices.Contains(itlFindings, r.Findings[i].Code) {
			fs = append(fs, f)
		}
	}
	if fs == nil {
		fs = []object{}
	}
	doc.Set("findings", fs)
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(out, '\n'))
	return err
}
