package whatif

import (
	"encoding/json"
	"io"

	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/internal/ordjson"
	"github.com/sseaudit/sseaudit/unit"
)

// SchemaVersion is the "schema_version" of WriteJSON's output.
const SchemaVersion = "1"

// object and number are the reports' ordered JSON object and Python-spelled
// float.
type (
	object = ordjson.Object
	number = ordjson.Number
)

// known is a Number scaled for display, or null.
func known(n Number, scale float64) any {
	if !n.Known {
		return nil
	}
	return number(n.Value * scale)
}

// WriteJSON writes every policy's figures at full precision, the original
// (aisbench) first: policies.<policy>.stages.<stage> with the tm comparison,
// window, common metrics, metrics (laid out as in the report, times in ms)
// and deltas against the original.
func (r *Result) WriteJSON(w io.Writer, opt RenderOptions) error {
	var doc object
	doc.Set("schema_version", SchemaVersion)
	if r.MaxConcurrency == 0 {
		doc.Set("max_concurrency", nil)
	} else {
		doc.Set("max_concurrency", r.MaxConcurrency)
	}
	doc.Set("stats", r.Stats)
	doc.Set("requests", r.Requests)
	if r.HasOrigin {
		doc.Set("origin_s", number(r.OriginSeconds))
	} else {
		doc.Set("origin_s", nil)
	}
	var policies object
	for _, o := range r.Outcomes {
		policies.Set(o.Policy.Name(), r.outcomeJSON(o, opt))
	}
	doc.Set("policies", policies)
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(out, '\n'))
	return err
}

func (r *Result) outcomeJSON(o *Outcome, opt RenderOptions) object {
	var p object
	p.Set("original", o.Policy.IsOriginal())
	p.Set("description", o.Policy.Description())
	var tp object
	tp.Set("kept", o.TimePointsKept)
	tp.Set("dropped", o.TimePointsDropped)
	p.Set("time_points_after_t0", tp)
	p.Set("requests_filtered", o.RequestsFiltered)
	p.Set("requests_failed_by_policy", len(o.NewFailures))
	ids := o.NewFailureIDs
	if ids == nil {
		ids = []string{}
	}
	p.Set("failed_by_policy", ids)
	var reqs object
	reqs.Set("succeeded", o.Report.Requests.Succeeded)
	reqs.Set("failed", o.Report.Requests.Failed)
	reqs.Set("too_few_time_points", o.Report.Requests.TooFewTimePoints)
	p.Set("requests", reqs)
	var stages object
	for _, st := range o.Stages {
		stages.Set(string(st.Stage), r.stageJSON(st))
	}
	p.Set("stages", stages)
	if opt.PerRequest {
		list := make([]object, 0, len(o.PerRequest))
		for _, ro := range o.PerRequest {
			var q object
			q.Set("index", ro.Index)
			q.Set("request_id", ro.ID)
			q.Set("success", ro.Success)
			if ro.Success {
				q.Set("tm_s", number(ro.TmSeconds))
				q.Set("tm_after_origin_s", number(ro.TmAfterOriginSeconds))
			} else {
				q.Set("tm_s", nil)
				q.Set("tm_after_origin_s", nil)
			}
			q.Set("tm_shift_ms", known(ro.TmShiftSeconds, 1000))
			q.Set("e2e_ms", known(ro.E2ESeconds, 1000))
			q.Set("tpot_ms", known(ro.TPOTSeconds, 1000))
			list = append(list, q)
		}
		p.Set("per_request", list)
	}
	return p
}

func (r *Result) stageJSON(st *StageOutcome) object {
	var o object
	res := st.Result
	if res.Err != nil {
		o.Set("error", errorJSON(res.Err))
	} else {
		o.Set("error", nil)
	}
	o.Set("requests", len(res.Requests))
	o.Set("requests_compared", st.Compared)
	o.Set("requests_tm_moved", st.TmMoved)
	if s := st.TmShift; s != nil {
		var sh object
		sh.Set("mean", number(s.MeanSeconds*1000))
		sh.Set("p90", number(s.P90Seconds*1000))
		sh.Set("max", number(s.MaxSeconds*1000))
		o.Set("tm_shift_ms", sh)
	} else {
		o.Set("tm_shift_ms", nil)
	}
	if res.Err != nil {
		o.Set("duration_ms", nil)
	} else {
		o.Set("duration_ms", number(res.DurationSeconds*1000))
	}
	if w := res.Window; w != nil {
		var win object
		win.Set("start_s", number(w.StartSeconds))
		win.Set("end_s", number(w.EndSeconds))
		win.Set("start_after_origin_s", number(w.StartSeconds-r.OriginSeconds))
		win.Set("end_after_origin_s", number(w.EndSeconds-r.OriginSeconds))
		win.Set("duration_ms", number(w.DurationSeconds*1000))
		win.Set("selected", w.Selected)
		win.Set("of", w.Of)
		win.Set("trace_indices", res.Requests)
		o.Set("window", win)
	} else {
		o.Set("window", nil)
	}
	if res.Err != nil {
		o.Set("common", nil)
	} else {
		c := res.Common
		var common object
		common.Set("benchmark_duration_ms", number(c.BenchmarkDurationMs))
		common.Set("total_requests", c.TotalRequests)
		common.Set("failed_requests", c.FailedRequests)
		common.Set("success_requests", c.SuccessRequests)
		common.Set("concurrency", number(c.Concurrency.Raw))
		if c.ConcurrencyCapped {
			common.Set("concurrency_aisbench", c.MaxConcurrency)
		} else {
			common.Set("concurrency_aisbench", number(c.Concurrency.Rounded))
		}
		common.Set("concurrency_capped", c.ConcurrencyCapped)
		common.Set("request_throughput_per_s", number(c.RequestThroughput.Raw))
		common.Set("total_generated_tokens", c.TotalGeneratedTokens)
		if c.HasTokenThroughput {
			common.Set("output_token_throughput_per_s", number(c.OutputTokenThroughput.Raw))
		} else {
			common.Set("output_token_throughput_per_s", nil)
		}
		o.Set("common", common)
	}
	var metrics object
	for _, m := range res.Metrics {
		var mo object
		mo.Set("unit", unit.Label(m.Unit))
		for _, s := range m.Stats {
			mo.Set(s.Name, number(s.Raw*unit.Scale(m.Unit)))
		}
		mo.Set("N", m.N)
		mo.Set("samples", m.Samples)
		var printed object
		for _, s := range m.Stats {
			printed.Set(s.Name, unit.AISBenchText(m.Unit, s.Rounded))
		}
		mo.Set("aisbench", printed)
		metrics.Set(string(m.Name), mo)
	}
	o.Set("metrics", metrics)
	removed := make([]object, 0, len(res.Removed))
	for _, m := range res.Removed {
		var rm object
		rm.Set("metric", string(m.Name))
		rm.Set("reason", m.Reason)
		removed = append(removed, rm)
	}
	o.Set("removed_metrics", removed)
	if d := st.Delta; d != nil {
		o.Set("delta", deltaJSON(d, r.Stats))
	} else {
		o.Set("delta", nil)
	}
	return o
}

func deltaJSON(d *StageDelta, stats []string) object {
	var o object
	o.Set("requests", known(d.Requests, 1))
	o.Set("duration_ms", known(d.DurationSeconds, 1000))
	o.Set("concurrency", known(d.Concurrency, 1))
	o.Set("output_token_throughput_per_s", known(d.OutputTokenThroughput, 1))
	o.Set("window_start_s", known(d.WindowStartSeconds, 1))
	o.Set("window_end_s", known(d.WindowEndSeconds, 1))
	o.Set("window_selected", known(d.WindowSelected, 1))
	var metrics object
	for _, md := range d.Metrics {
		var mo object
		sc := unit.Scale(md.Name.Unit())
		for i, s := range md.Stats {
			mo.Set(stats[i], known(s, sc))
		}
		mo.Set("N", known(md.N, 1))
		mo.Set("samples", known(md.Samples, 1))
		metrics.Set(string(md.Name), mo)
	}
	o.Set("metrics", metrics)
	return o
}

// errorJSON says what stopped a stage, and whether AISBench itself stops there.
func errorJSON(err error) object {
	var o object
	o.Set("message", err.Error())
	kind, code := aisbench.ErrorKind(err)
	o.Set("kind", kind)
	if code != nil {
		o.Set("code", *code)
	} else {
		o.Set("code", nil)
	}
	return o
}
