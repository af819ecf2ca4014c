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
// (ms for times), N, samples, value (single-valued metrics: the common
// metrics, WindowedOutputThroughput), then Report.AllStats unrounded. It is
// not AISBench's <ds>.csv (aisbench.Result.WriteStageCSV).
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
	for _, stage := range aisbench.Stages {
		if st := rep.Stage(stage); st.Err == nil {
			for _, c := range commonValues(rep, st) {
				row := []string{c.name, "aisbench", string(stage), c.unit, "", "", csvNumber(c.value)}
				rows = append(rows, append(row, make([]string, len(rep.AllStats))...))
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

// commonValue is a common metric of a stage at full precision.
type commonValue struct {
	name, unit string
	value      float64
}

// commonValues are a computed stage's common metrics, named as AISBench's
// <ds>.json names them, unrounded (the stage duration T itself, the
// quotients before AISBench rounds them).
func commonValues(rep *audit.Report, st *aisbench.StageResult) []commonValue {
	c := &st.Common
	out := []commonValue{
		{"Benchmark Duration", "ms", st.DurationSeconds * 1000},
		{"Total Requests", "", float64(c.TotalRequests)},
		{"Failed Requests", "", float64(c.FailedRequests)},
		{"Success Requests", "", float64(c.SuccessRequests)},
		{"Concurrency", "", c.Concurrency.Raw},
	}
	if rep.MaxConcurrency != 0 {
		out = append(out, commonValue{"Max Concurrency", "", float64(c.MaxConcurrency)})
	}
	out = append(out,
		commonValue{"Request Throughput", "req/s", c.RequestThroughput.Raw},
		commonValue{"Total Input Tokens", "tokens", float64(c.TotalInputTokens)},
		commonValue{"Total Generated Tokens", "tokens", float64(c.TotalGeneratedTokens)})
	if c.HasTokenThroughput {
		out = append(out,
			commonValue{"Input Token Throughput", "token/s", c.InputTokenThroughput.Raw},
			commonValue{"Output Token Throughput", "token/s", c.OutputTokenThroughput.Raw},
			commonValue{"Total Token Throughput", "token/s", c.TotalTokenThroughput.Raw})
	}
	return out
}
