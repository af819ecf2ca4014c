package audit

import "math"

// nullableNumber is a number, or null for NaN (a mean of nothing).
func nullableNumber(x float64) any {
	if math.IsNaN(x) {
		return nil
	}
	return number(x)
}

// sseMetricsJSON adds sseaudit's metrics to metrics.<Name>.<stage>.
func (r *Report) sseMetricsJSON(metrics *object) {
	for _, m := range SSEMetrics {
		var byStage object
		for _, stage := range Stages {
			mr := r.Stage(stage).SSEMetric(m)
			if mr == nil {
				continue
			}
			var o object
			o.set("source", "sseaudit")
			o.set("unit", sseUnitLabel(mr.Unit))
			scale := displayScale(mr.Unit)
			extra := []string{}
			for _, s := range mr.Stats {
				o.set(s.Name, number(s.Raw*scale))
				if !r.InAISBenchTable(s.Name) {
					extra = append(extra, s.Name)
				}
			}
			o.set("not_in_aisbench_table", extra)
			o.set("N", mr.N)
			o.set("samples", len(mr.Values))
			byStage.set(string(stage), o)
		}
		if len(byStage) > 0 {
			metrics.set(string(m), byStage)
		}
	}
	if wt := r.Stable.Windowed; wt != nil {
		var o object
		o.set("source", "sseaudit")
		unit := "token/s"
		if wt.Basis != "tokens" {
			unit = "event/s"
		}
		o.set("unit", unit)
		o.set("value", nullableNumber(wt.PerSecond))
		o.set("basis", wt.Basis)
		o.set("count", number(wt.Count))
		o.set("window_ms", number(wt.WindowSeconds*1000))
		o.set("N", wt.Requests)
		o.set("samples", wt.Events)
		if v := wt.NativeOutputTokenThroughput; v != nil {
			o.set("aisbench_output_token_throughput_per_s", number(v.Raw))
		} else {
			o.set("aisbench_output_token_throughput_per_s", nil)
		}
		var byStage object
		byStage.set(string(StageStable), o)
		metrics.set(string(MetricWindowedOutputThroughput), byStage)
	}
}

// ITLAccountingJSON is one stage's ITL accounting as `audit itl --format json`
// and the report's sseaudit.itl_accounting write it.
func ITLAccountingJSON(a *ITLAccounting) any {
	if a == nil {
		return nil
	}
	var o object
	o.set("requests", a.Requests)
	o.set("aisbench_n", a.AISBenchN)
	o.set("requests_with_intervals", a.RequestsWithIntervals)
	o.set("intervals", a.Intervals)
	o.set("zero_intervals", a.ZeroIntervals)
	o.set("requests_with_zero_intervals", a.RequestsWithZero)
	var per object
	per.set("min", number(a.PerRequestMin))
	per.set("median", number(a.PerRequestMedian))
	per.set("max", number(a.PerRequestMax))
	o.set("intervals_per_request", per)
	o.set("pooled_mean_ms", nullableNumber(a.PooledMeanSeconds*1000))
	o.set("per_request_mean_ms", nullableNumber(a.PerRequestMeanSeconds*1000))
	o.set("in_aisbench_table", a.InAISBenchTable)
	return o
}

func (r *Report) sseJSON() object {
	var o object
	o.set("stats", r.AllStats)
	extra := []string{}
	for _, s := range r.AllStats {
		if !r.InAISBenchTable(s) {
			extra = append(extra, s)
		}
	}
	o.set("not_in_aisbench_table", extra)
	var th object
	th.set("min_window_ms", number(r.Thresholds.MinWindowSeconds*1000))
	th.set("min_window_requests", r.Thresholds.MinWindowRequests)
	th.set("itl_intervals_per_n", number(r.Thresholds.ITLIntervalsPerN))
	th.set("tpot_over_itl", number(r.Thresholds.TPOTOverITL))
	o.set("thresholds", th)
	var itl, slo, absent object
	for _, stage := range Stages {
		st := r.Stage(stage)
		itl.set(string(stage), ITLAccountingJSON(st.ITL))
		slos := make([]object, 0, len(st.SLOs))
		for _, s := range st.SLOs {
			var so object
			so.set("slo", s.SLO.Text)
			so.set("metric", string(s.SLO.Metric))
			so.set("op", s.SLO.Op)
			if s.SLO.Metric.Unit() == UnitSeconds {
				so.set("threshold_ms", number(s.SLO.Threshold*1000))
			} else {
				so.set("threshold", number(s.SLO.Threshold))
			}
			so.set("met", s.Met)
			so.set("denominator", s.Denominator)
			so.set("missing", s.Missing)
			so.set("fraction", number(s.Fraction))
			slos = append(slos, so)
		}
		slo.set(string(stage), slos)
		ab := make([]object, 0, len(st.SSEAbsent))
		for _, a := range st.SSEAbsent {
			var ao object
			ao.set("metric", string(a.Name))
			ao.set("reason", a.Reason)
			ab = append(ab, ao)
		}
		absent.set(string(stage), ab)
	}
	o.set("itl_accounting", itl)
	o.set("slo", slo)
	o.set("absent_metrics", absent)
	o.set("stable_window", r.windowJSON())
	return o
}

func windowEventJSON(e *WindowEvent) any {
	if e == nil {
		return nil
	}
	var o object
	kind := "end"
	if e.Start {
		kind = "start"
	}
	o.set("kind", kind)
	o.set("t_s", number(e.Seconds))
	o.set("request_id", e.ID)
	o.set("trace_index", e.Request)
	o.set("in_flight", e.InFlight)
	return o
}

func (r *Report) windowJSON() any {
	wa := r.Window
	if wa == nil {
		return nil
	}
	var o object
	o.set("max_concurrency", wa.MaxConcurrency)
	o.set("successful_requests", wa.Successful)
	o.set("first_start_s", number(wa.FirstStartSeconds))
	o.set("starts_reaching_c", wa.ReachesAtStart)
	o.set("peak_in_flight", wa.PeakInFlight)
	o.set("peak_at", windowEventJSON(&wa.PeakAt))
	o.set("run_ms", number(wa.RunSeconds*1000))
	o.set("share_at_or_above_90pct_of_c", number(wa.AtOrAbove90Share))
	o.set("share_at_c", number(wa.AtCShare))
	o.set("first_reach", windowEventJSON(wa.FirstReach))
	o.set("window_start", windowEventJSON(wa.Start))
	o.set("window_end", windowEventJSON(wa.End))
	sels := make([]object, 0, len(wa.Selectors))
	for _, s := range wa.Selectors {
		var so object
		so.set("name", s.Name)
		so.set("commit", s.Commit)
		so.set("description", s.Description)
		if s.Stage == nil {
			so.set("error", errorJSON(s.Err))
			sels = append(sels, so)
			continue
		}
		so.set("error", nil)
		so.set("start_s", number(s.StartSeconds))
		so.set("end_s", number(s.EndSeconds))
		so.set("duration_ms", number((s.EndSeconds-s.StartSeconds)*1000))
		so.set("selected", s.Stage.Window.Selected)
		so.set("trace_indices", s.Stage.Requests)
		so.set("stage", r.stageJSON(s.Stage))
		sels = append(sels, so)
	}
	o.set("selectors", sels)
	return o
}

func (r *Report) findingsJSON() []object {
	out := make([]object, 0, len(r.Findings))
	for _, f := range r.Findings {
		var o object
		o.set("code", f.Code)
		o.set("severity", string(f.Severity))
		if f.Stage == "" {
			o.set("stage", nil)
		} else {
			o.set("stage", string(f.Stage))
		}
		o.set("figure", f.Figure)
		o.set("message", f.Message)
		evs := make([]object, 0, len(f.Evidence))
		for _, e := range f.Evidence {
			var eo object
			eo.set("name", e.Name)
			unit := sseUnitLabel(e.Unit)
			eo.set("value", number(e.Value*displayScale(e.Unit)))
			eo.set("unit", unit)
			evs = append(evs, eo)
		}
		o.set("evidence", evs)
		ids := f.Requests
		if ids == nil {
			ids = []string{}
		}
		o.set("requests", ids)
		out = append(out, o)
	}
	return out
}
