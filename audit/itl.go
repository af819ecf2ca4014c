package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// itlFindings are the findings about what the ITL and TPOT rows are made of.
var itlFindings = []string{FindingITLNCountsRequests, FindingZeroIntervals, FindingTPOTBelowITL, FindingBufferedStream}

// WriteITLText writes the ITL accounting of both stages (`audit itl`):
// AISBench's ITL row, then how many intervals and requests stand behind it,
// then the findings about it.
func (r *Report) WriteITLText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Requests: %d added, %d succeeded, %d failed. Max concurrency: %s.\n\n",
		r.Requests.Added, r.Requests.Succeeded, r.Requests.Failed, r.concurrencyText())
	header := []string{"AISBench's row", "Unit"}
	for range Stages {
		header = append(header, r.Stats...)
		header = append(header, "N")
	}
	row := []string{string(MetricITL), "ms"}
	present := false
	for _, stage := range Stages {
		mr := r.Stage(stage).Metric(MetricITL)
		if mr == nil {
			for range len(r.Stats) + 1 {
				row = append(row, "-")
			}
			continue
		}
		present = true
		for _, s := range mr.Stats {
			row = append(row, aisbenchNumber(mr.Unit, s.Rounded))
		}
		row = append(row, fmt.Sprint(mr.N))
	}
	titles := make([]string, len(Stages))
	for i, stage := range Stages {
		titles[i] = stageTitles[stage]
	}
	if present {
		WriteGrid(&b, [][]string{header, row}, 2, len(r.Stats)+1, titles)
	} else {
		b.WriteString("AISBench prints no ITL row in either stage.\n")
	}
	for _, stage := range Stages {
		st := r.Stage(stage)
		if st.Err != nil {
			fmt.Fprintf(&b, "  - %s: %v\n", stageTitles[stage], st.Err)
		}
		for _, m := range st.Removed {
			if m.Name == MetricITL {
				fmt.Fprintf(&b, "  - %s: AISBench leaves out ITL: %s\n", stageTitles[stage], m.Reason)
			}
		}
	}
	r.writeITLText(&b)
	var fs []Finding
	for _, f := range r.Findings {
		if slices.Contains(itlFindings, f.Code) {
			fs = append(fs, f)
		}
	}
	sub := Report{Findings: fs}
	sub.writeFindingsText(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteITLJSON writes the ITL accounting of both stages:
// stages.<stage>.{aisbench_n, requests_with_intervals, intervals,
// zero_intervals, pooled_mean_ms, per_request_mean_ms, ...}, null for a stage
// without requests, and the findings about ITL.
func (r *Report) WriteITLJSON(w io.Writer) error {
	var doc object
	doc.Set("schema_version", ReportSchemaVersion)
	var stages object
	for _, stage := range Stages {
		st := r.Stage(stage)
		acc := ITLAccountingJSON(st.ITL)
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
	for i, f := range r.findingsJSON() {
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
