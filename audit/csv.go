package audit

import (
	"encoding/csv"
	"io"
	"math"
	"strconv"
)

// csvNumber is a full-precision number for CSV; NaN and infinities are
// spelled as Python's float() reads them.
func csvNumber(x float64) string {
	switch {
	case math.IsNaN(x):
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// WriteCSV writes every metric of both stages, AISBench's and sseaudit's,
// one row a metric and stage: metric, source (aisbench or sseaudit), stage,
// unit (ms for times), N, samples, value (single-valued metrics only), then
// Report.AllStats unrounded. It is not AISBench's <ds>.csv (WriteAISBenchCSV).
func (r *Report) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	header := []string{"metric", "source", "stage", "unit", "N", "samples", "value"}
	header = append(header, r.AllStats...)
	if err := cw.Write(header); err != nil {
		return err
	}
	row := func(m *MetricResult, source string, stage Stage) []string {
		unit := unitLabel(m.Unit)
		if source == "sseaudit" {
			unit = sseUnitLabel(m.Unit)
		}
		out := []string{string(m.Name), source, string(stage), unit, strconv.Itoa(m.N), strconv.Itoa(m.Samples), ""}
		for _, name := range r.AllStats {
			s, ok := m.statistic(name)
			if !ok {
				out = append(out, "")
				continue
			}
			out = append(out, csvNumber(s.Raw*displayScale(m.Unit)))
		}
		return out
	}
	for _, m := range Metrics {
		for _, stage := range Stages {
			if mr := r.Stage(stage).Metric(m); mr != nil {
				if err := cw.Write(row(mr, "aisbench", stage)); err != nil {
					return err
				}
			}
		}
	}
	for _, m := range SSEMetrics {
		for _, stage := range Stages {
			if mr := r.Stage(stage).SSEMetric(m); mr != nil {
				if err := cw.Write(row(mr, "sseaudit", stage)); err != nil {
					return err
				}
			}
		}
	}
	if wt := r.Stable.Windowed; wt != nil {
		unit := "token/s"
		if wt.Basis != "tokens" {
			unit = "event/s"
		}
		out := []string{string(MetricWindowedOutputThroughput), "sseaudit", string(StageStable), unit,
			strconv.Itoa(wt.Requests), strconv.Itoa(wt.Events), csvNumber(wt.PerSecond)}
		for range r.AllStats {
			out = append(out, "")
		}
		if err := cw.Write(out); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
