package whatif

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"

	"github.com/sseaudit/sseaudit/audit"
)

// SchemaVersion is the "schema_version" of WriteJSON's output.
const SchemaVersion = "1"

// object is a JSON object that keeps its keys in the order they were added.
type object []member

type member struct {
	key   string
	value any
}

func (o *object) set(key string, value any) { *o = append(*o, member{key, value}) }

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(m.value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// number is a float64 whose non-finite values become "NaN", "Infinity" and
// "-Infinity" (the report's spelling).
type number float64

func (n number) MarshalJSON() ([]byte, error) {
	x := float64(n)
	switch {
	case math.IsNaN(x):
		return []byte(`"NaN"`), nil
	case math.IsInf(x, 1):
		return []byte(`"Infinity"`), nil
	case math.IsInf(x, -1):
		return []byte(`"-Infinity"`), nil
	}
	return json.Marshal(x)
}

// known is a Number scaled for display, or null.
func known(n Number, scale float64) any {
	if !n.Known {
		return nil
	}
	return number(n.Value * scale)
}

// scale turns a metric's unit into the report's: seconds to ms.
func scale(u audit.Unit) float64 {
	if u == audit.UnitSeconds {
		return 1000
	}
	return 1
}

// aisbenchStatText is a statistic as AISBench prints it in <ds>.csv (the
// report's "aisbench" values).
func aisbenchStatText(u audit.Unit, rounded float64) string {
	switch u {
	case audit.UnitSeconds:
		return audit.PyFloatRepr(audit.PyRound(rounded*1000, 4)) + " ms"
	case audit.UnitTokensPerSecond:
		return audit.PyFloatRepr(rounded) + " token/s"
	}
	return audit.PyFloatRepr(rounded)
}

func unitLabel(u audit.Unit) string {
	switch u {
	case audit.UnitSeconds:
		return "ms"
	case audit.UnitTokens:
		return "tokens"
	}
	return string(u)
}

// WriteJSON writes every policy's figures at full precision, the original
// (aisbench) first: policies.<policy>.stages.<stage> with the tm comparison,
// window, common metrics, metrics (laid out as in the report, times in ms)
// and deltas against the original.
func (r *Result) WriteJSON(w io.Writer, opt RenderOptions) error {
	var doc object
	doc.set("schema_version", SchemaVersion)
	if r.MaxConcurrency == 0 {
		doc.set("max_concurrency", nil)
	} else {
		doc.set("max_concurrency", r.MaxConcurrency)
	}
	doc.set("stats", r.Stats)
	doc.set("requests", r.Requests)
	if r.HasOrigin {
		doc.set("origin_s", number(r.OriginSeconds))
	} else {
		doc.set("origin_s", nil)
	}
	var policies object
	for _, o := range r.Outcomes {
		policies.set(o.Policy.Name(), r.outcomeJSON(o, opt))
	}
	doc.set("policies", policies)
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(out, '\n'))
	return err
}

func (r *Result) outcomeJSON(o *Outcome, opt RenderOptions) object {
	var p object
	p.set("original", o.Policy.IsOriginal())
	p.set("description", o.Policy.Description())
	var tp object
	tp.set("kept", o.TimePointsKept)
	tp.set("dropped", o.TimePointsDropped)
	p.set("time_points_after_t0", tp)
	p.set("requests_filtered", o.RequestsFiltered)
	p.set("requests_failed_by_policy", len(o.NewFailures))
	ids := o.NewFailureIDs
	if ids == nil {
		ids = []string{}
	}
	p.set("failed_by_policy", ids)
	var reqs object
	reqs.set("succeeded", o.Report.Requests.Succeeded)
	reqs.set("failed", o.Report.Requests.Failed)
	reqs.set("too_few_time_points", o.Report.Requests.TooFewTimePoints)
	p.set("requests", reqs)
	var stages object
	for _, st := range o.Stages {
		stages.set(string(st.Stage), r.stageJSON(st))
	}
	p.set("stages", stages)
	if opt.PerRequest {
		list := make([]object, 0, len(o.PerRequest))
		for _, ro := range o.PerRequest {
			var q object
			q.set("index", ro.Index)
			q.set("request_id", ro.ID)
			q.set("success", ro.Success)
			if ro.Success {
				q.set("tm_s", number(ro.TmSeconds))
				q.set("tm_after_origin_s", number(ro.TmAfterOriginSeconds))
			} else {
				q.set("tm_s", nil)
				q.set("tm_after_origin_s", nil)
			}
			q.set("tm_shift_ms", known(ro.TmShiftSeconds, 1000))
			q.set("e2e_ms", known(ro.E2ESeconds, 1000))
			q.set("tpot_ms", known(ro.TPOTSeconds, 1000))
			list = append(list, q)
		}
		p.set("per_request", list)
	}
	return p
}

func (r *Result) stageJSON(st *StageOutcome) object {
	var o object
	res := st.Result
	if res.Err != nil {
		o.set("error", errorJSON(res.Err))
	} else {
		o.set("error", nil)
	}
	o.set("requests", len(res.Requests))
	o.set("requests_compared", st.Compared)
	o.set("requests_tm_moved", st.TmMoved)
	if s := st.TmShift; s != nil {
		var sh object
		sh.set("mean", number(s.MeanSeconds*1000))
		sh.set("p90", number(s.P90Seconds*1000))
		sh.set("max", number(s.MaxSeconds*1000))
		o.set("tm_shift_ms", sh)
	} else {
		o.set("tm_shift_ms", nil)
	}
	if res.Err != nil {
		o.set("duration_ms", nil)
	} else {
		o.set("duration_ms", number(res.DurationSeconds*1000))
	}
	if w := res.Window; w != nil {
		var win object
		win.set("start_s", number(w.StartSeconds))
		win.set("end_s", number(w.EndSeconds))
		win.set("start_after_origin_s", number(w.StartSeconds-r.OriginSeconds))
		win.set("end_after_origin_s", number(w.EndSeconds-r.OriginSeconds))
		win.set("duration_ms", number(w.DurationSeconds*1000))
		win.set("selected", w.Selected)
		win.set("of", w.Of)
		win.set("trace_indices", res.Requests)
		o.set("window", win)
	} else {
		o.set("window", nil)
	}
	if res.Err != nil {
		o.set("common", nil)
	} else {
		c := res.Common
		var common object
		common.set("benchmark_duration_ms", number(c.BenchmarkDurationMs))
		common.set("total_requests", c.TotalRequests)
		common.set("failed_requests", c.FailedRequests)
		common.set("success_requests", c.SuccessRequests)
		common.set("concurrency", number(c.Concurrency.Raw))
		if c.ConcurrencyCapped {
			common.set("concurrency_aisbench", c.MaxConcurrency)
		} else {
			common.set("concurrency_aisbench", number(c.Concurrency.Rounded))
		}
		common.set("concurrency_capped", c.ConcurrencyCapped)
		common.set("request_throughput_per_s", number(c.RequestThroughput.Raw))
		common.set("total_generated_tokens", c.TotalGeneratedTokens)
		if c.HasTokenThroughput {
			common.set("output_token_throughput_per_s", number(c.OutputTokenThroughput.Raw))
		} else {
			common.set("output_token_throughput_per_s", nil)
		}
		o.set("common", common)
	}
	var metrics object
	for _, m := range res.Metrics {
		var mo object
		mo.set("unit", unitLabel(m.Unit))
		for _, s := range m.Stats {
			mo.set(s.Name, number(s.Raw*scale(m.Unit)))
		}
		mo.set("N", m.N)
		mo.set("samples", len(m.Values))
		var printed object
		for _, s := range m.Stats {
			printed.set(s.Name, aisbenchStatText(m.Unit, s.Rounded))
		}
		mo.set("aisbench", printed)
		metrics.set(string(m.Name), mo)
	}
	o.set("metrics", metrics)
	removed := make([]object, 0, len(res.Removed))
	for _, m := range res.Removed {
		var rm object
		rm.set("metric", string(m.Name))
		rm.set("reason", m.Reason)
		removed = append(removed, rm)
	}
	o.set("removed_metrics", removed)
	if d := st.Delta; d != nil {
		o.set("delta", deltaJSON(d, r.Stats))
	} else {
		o.set("delta", nil)
	}
	return o
}

func deltaJSON(d *StageDelta, stats []string) object {
	var o object
	o.set("requests", known(d.Requests, 1))
	o.set("duration_ms", known(d.DurationSeconds, 1000))
	o.set("concurrency", known(d.Concurrency, 1))
	o.set("output_token_throughput_per_s", known(d.OutputTokenThroughput, 1))
	o.set("window_start_s", known(d.WindowStartSeconds, 1))
	o.set("window_end_s", known(d.WindowEndSeconds, 1))
	o.set("window_selected", known(d.WindowSelected, 1))
	var metrics object
	for _, md := range d.Metrics {
		var mo object
		sc := scale(md.Name.Unit())
		for i, s := range md.Stats {
			mo.set(stats[i], known(s, sc))
		}
		mo.set("N", known(md.N, 1))
		mo.set("samples", known(md.Samples, 1))
		metrics.set(string(md.Name), mo)
	}
	o.set("metrics", metrics)
	return o
}

// errorJSON says what stopped a stage, and whether AISBench itself stops there.
func errorJSON(err error) object {
	var o object
	o.set("message", err.Error())
	var ais *audit.AISBenchError
	if errors.As(err, &ais) {
		o.set("kind", "aisbench")
		o.set("code", ais.RealCode)
	} else {
		o.set("kind", "inexact")
		o.set("code", nil)
	}
	return o
}
