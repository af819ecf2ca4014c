package render

import (
	"math"

	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/calc/ssemetrics"
	"github.com/sseaudit/sseaudit/findings"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/unit"
)

// nullableNumber is a number, or null for NaN (a mean of nothing).
func nullableNumber(x float64) any {
	if math.IsNaN(x) {
		return nil
	}
	return number(x)
}

// sseMetricsJSON adds sseaudit's metrics to metrics.<Name>.<stage>.
func (r *printer) sseMetricsJSON(metrics *object) {
	for _, m := range metric.SSE {
		var byStage object
		for _, stage := range aisbench.Stages {
			mr := r.sse(stage).Metric(m)
			if mr == nil {
				continue
			}
			var o object
			o.Set("source", "sseaudit")
			o.Set("unit", unit.Label(mr.Unit))
			scale := unit.Scale(mr.Unit)
			extra := []string{}
			for _, s := range mr.Stats {
				o.Set(s.Name, number(s.Raw*scale))
				if !r.InTable(s.Name) {
					extra = append(extra, s.Name)
				}
			}
			o.Set("not_in_aisbench_table", extra)
			o.Set("N", mr.N)
			o.Set("samples", mr.Samples)
			byStage.Set(string(stage), o)
		}
		if len(byStage) > 0 {
			metrics.Set(string(m), byStage)
		}
	}
	if wt := r.SSE.Stable.Windowed; wt != nil {
		var o object
		o.Set("source", "sseaudit")
		o.Set("unit", wt.Unit())
		o.Set("value", nullableNumber(wt.PerSecond))
		o.Set("basis", wt.Basis)
		o.Set("count", number(wt.Count))
		o.Set("window_ms", number(wt.WindowSeconds*1000))
		o.Set("N", wt.Requests)
		o.Set("samples", wt.Events)
		if v := wt.NativeOutputTokenThroughput; v != nil {
			o.Set("aisbench_output_token_throughput_per_s", number(v.Raw))
		} else {
			o.Set("aisbench_output_token_throughput_per_s", nil)
		}
		var byStage object
		byStage.Set(string(aisbench.StageStable), o)
		metrics.Set(string(metric.WindowedOutputThroughput), byStage)
	}
}

// ITLAccountingJSON is one stage's ITL accounting as `audit itl --format json`
// and the report's sseaudit.itl_accounting write it.
func ITLAccountingJSON(a *ssemetrics.ITLAccounting) any {
	if a == nil {
		return nil
	}
	var o object
	o.Set("requests", a.Requests)
	o.Set("aisbench_n", a.AISBenchN)
	o.Set("requests_with_intervals", a.RequestsWithIntervals)
	o.Set("intervals", a.Intervals)
	o.Set("zero_intervals", a.ZeroIntervals)
	o.Set("requests_with_zero_intervals", a.RequestsWithZero)
	var per object
	per.Set("min", number(a.PerRequestMin))
	per.Set("median", number(a.PerRequestMedian))
	per.Set("max", number(a.PerRequestMax))
	o.Set("intervals_per_request", per)
	o.Set("pooled_mean_ms", nullableNumber(a.PooledMeanSeconds*1000))
	o.Set("per_request_mean_ms", nullableNumber(a.PerRequestMeanSeconds*1000))
	o.Set("in_aisbench_table", a.InAISBenchTable)
	return o
}

func (r *printer) sseJSON() object {
	var o object
	o.Set("stats", r.AllStats)
	extra := []string{}
	for _, s := range r.AllStats {
		if !r.InTable(s) {
			extra = append(extra, s)
		}
	}
	o.Set("not_in_aisbench_table", extra)
	var th object
	th.Set("min_window_ms", number(r.Thresholds.MinWindowSeconds*1000))
	th.Set("min_window_requests", r.Thresholds.MinWindowRequests)
	th.Set("itl_intervals_per_n", number(r.Thresholds.ITLIntervalsPerN))
	th.Set("tpot_over_itl", number(r.Thresholds.TPOTOverITL))
	o.Set("thresholds", th)
	var itl, slo, absent object
	for _, stage := range aisbench.Stages {
		st := r.sse(stage)
		itl.Set(string(stage), ITLAccountingJSON(st.ITL))
		slos := make([]object, 0, len(st.SLOs))
		for _, s := range st.SLOs {
			var so object
			so.Set("slo", s.SLO.Text)
			so.Set("metric", string(s.SLO.Metric))
			so.Set("op", s.SLO.Op)
			if s.SLO.Metric.Unit() == unit.Seconds {
				so.Set("threshold_ms", number(s.SLO.Threshold*1000))
			} else {
				so.Set("threshold", number(s.SLO.Threshold))
			}
			so.Set("met", s.Met)
			so.Set("denominator", s.Denominator)
			so.Set("missing", s.Missing)
			so.Set("fraction", number(s.Fraction))
			slos = append(slos, so)
		}
		slo.Set(string(stage), slos)
		ab := make([]object, 0, len(st.Absent))
		for _, a := range st.Absent {
			var ao object
			ao.Set("metric", string(a.Name))
			ao.Set("reason", a.Reason)
			ab = append(ab, ao)
		}
		absent.Set(string(stage), ab)
	}
	o.Set("itl_accounting", itl)
	o.Set("slo", slo)
	o.Set("absent_metrics", absent)
	o.Set("stable_window", r.windowJSON())
	return o
}

func windowEventJSON(e *aisbench.WindowEvent) any {
	if e == nil {
		return nil
	}
	var o object
	kind := "end"
	if e.Start {
		kind = "start"
	}
	o.Set("kind", kind)
	o.Set("t_s", number(e.Seconds))
	o.Set("request_id", e.ID)
	o.Set("trace_index", e.Request)
	o.Set("in_flight", e.InFlight)
	return o
}

func (r *printer) windowJSON() any {
	wa := r.Window
	if wa == nil {
		return nil
	}
	var o object
	o.Set("max_concurrency", wa.MaxConcurrency)
	o.Set("successful_requests", wa.Successful)
	o.Set("first_start_s", number(wa.FirstStartSeconds))
	o.Set("starts_reaching_c", wa.ReachesAtStart)
	o.Set("peak_in_flight", wa.PeakInFlight)
	o.Set("peak_at", windowEventJSON(&wa.PeakAt))
	o.Set("run_ms", number(wa.RunSeconds*1000))
	o.Set("share_at_or_above_90pct_of_c", number(wa.AtOrAbove90Share))
	o.Set("share_at_c", number(wa.AtCShare))
	o.Set("first_reach", windowEventJSON(wa.FirstReach))
	o.Set("window_start", windowEventJSON(wa.Start))
	o.Set("window_end", windowEventJSON(wa.End))
	sels := make([]object, 0, len(wa.Selectors))
	for _, s := range wa.Selectors {
		var so object
		so.Set("name", s.Name)
		so.Set("commit", s.Commit)
		so.Set("description", s.Description)
		if s.Stage == nil {
			so.Set("error", errorJSON(s.Err))
			sels = append(sels, so)
			continue
		}
		so.Set("error", nil)
		so.Set("start_s", number(s.StartSeconds))
		so.Set("end_s", number(s.EndSeconds))
		so.Set("duration_ms", number((s.EndSeconds-s.StartSeconds)*1000))
		so.Set("selected", s.Stage.Window.Selected)
		so.Set("trace_indices", s.Stage.Requests)
		so.Set("stage", r.stageJSON(s.Stage))
		sels = append(sels, so)
	}
	o.Set("selectors", sels)
	return o
}

func findingsJSON(found []findings.Finding) []object {
	out := make([]object, 0, len(found))
	for _, f := range found {
		var o object
		o.Set("code", f.Code)
		o.Set("severity", string(f.Severity))
		if f.Stage == "" {
			o.Set("stage", nil)
		} else {
			o.Set("stage", string(f.Stage))
		}
		o.Set("figure", f.Figure)
		o.Set("message", f.Message)
		evs := make([]object, 0, len(f.Evidence))
		for _, e := range f.Evidence {
			var eo object
			eo.Set("name", e.Name)
			eo.Set("value", number(e.Value*unit.Scale(e.Unit)))
			eo.Set("unit", unit.Label(e.Unit))
			evs = append(evs, eo)
		}
		o.Set("evidence", evs)
		ids := f.Requests
		if ids == nil {
			ids = []string{}
		}
		o.Set("requests", ids)
		out = append(out, o)
	}
	return out
}
