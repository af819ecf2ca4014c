package render

import (
	"io"
	"math"
	"strconv"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/pynum"
	"github.com/sseaudit/sseaudit/table"
	"github.com/sseaudit/sseaudit/unit"
)

// csvNumber is a full-precision number for CSV; NaN and infinities are
// spelled as Python's float() reads them.
func csvNumber(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return pynum.PyFloatRepr(x) // nan, inf, -inf
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// CSV writes every metric of both stages, AISBench's and sseaudit's, one
// row a metric and stage: metric, source (aisbench or sseaudit), stage, unit
// (ms for times), N, samples, value (single-valued metrics only), then
// Report.AllStats unrounded. It is not AISBench's <ds>.csv
// (aisbench.Result.WriteStageCSV).
func CSV(w io.Writer, rep *audit.Report) error { return csvTable(rep).CSV(w) }

// csvTable is CSV's rows.
func csvTable(rep *audit.Report) *table.Table {
	header := []string{"metric", "source", "stage", "unit", "N", "samples", "value"}
	rows := [][]string{append(header, rep.AllStats...)}
	row := func(m *metric.Result, source string, stage aisbench.Stage) []string {
		out := []string{string(m.Name), source, string(stage), unit.Label(m.Unit), strconv.Itoa(m.N), strconv.Itoa(m.Samples), ""}
		for _, name := range rep.AllStats {
			s, ok := m.Statistic(name)
			if !ok {
				out = append(out, "")
				continue
			}
			out = append(out, csvNumber(s.Raw*unit.Scale(m.Unit)))
		}
		return out
	}
	for _, m := range metric.AISBench {
		for _, stage := range aisbench.Stages {
			if mr := rep.Stage(stage).Metric(m); mr != nil {
				rows = append(rows, row(mr, "aisbench", stage))
			}
		}
	}
	for _, m := range metric.SSE {
		for _, stage := range aisbench.Stages {
			if mr := rep.SSE.Stage(stage).Metric(m); mr != nil {
				rows = append(rows, row(mr, "sseaudit", stage))
			}
		}
	}
	if wt := rep.SSE.Stable.Windowed; wt != nil {
		out := []string{string(metric.WindowedOutputThroughput), "sseaudit", string(aisbench.StageStable), wt.Unit(),
			strconv.Itoa(wt.Requests), strconv.Itoa(wt.Events), csvNumber(wt.PerSecond)}
		for range rep.AllStats {
			out = append(out, "")
		}
		rows = append(rows, out)
	}
	return &table.Table{Rows: rows}
}
