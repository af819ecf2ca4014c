package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
)

// ReportSchemaVersion is the "schema_version" of WriteJSON's output; the schema
// is schemas/report/v1.schema.json.
const ReportSchemaVersion = "1"

// object is a JSON object that keeps its keys in the order they were added, so
// the report reads in AISBench's order and is byte-stable.
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

// number is a float64 that JSON cannot always hold: non-finite values become
// the strings "Infinity", "-Infinity" and "NaN" (Python's spelling).
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

// displayScale turns a metric's kept unit into the report's: seconds to ms.
func displayScale(u Unit) float64 {
	if u == UnitSeconds {
		return 1000
	}
	return 1
}

// WriteJSON writes the full-precision report (schema_version "1"): every
// metric at metrics.<Name>.<stage> with unrounded statistics (times in ms), N,
// samples and AISBench's printed values; per stage its common metrics, window
// and error. Keys come in a fixed order; nothing depends on the clock.
func (r *Report) WriteJSON(w io.Writer) error {
	var doc object
	doc.set("schema_version", ReportSchemaVersion)
	if r.MaxConcurrency == 0 {
		doc.set("max_concurrency", nil)
	} else {
		doc.set("max_concurrency", r.MaxConcurrency)
	}
	doc.set("stats", r.Stats)
	var reqs object
	reqs.set("added", r.Requests.Added)
	reqs.set("succeeded", r.Requests.Succeeded)
	reqs.set("failed", r.Requests.Failed)
	reqs.set("too_few_time_points", r.Requests.TooFewTimePoints)
	doc.set("requests", reqs)

	var stages object
	for _, stage := range Stages {
		stages.set(string(stage), r.stageJSON(r.Stage(stage)))
	}
	doc.set("stages", stages)

	var metrics object
	for _, m := range Metrics {
		var byStage object
		for _, stage := range Stages {
			if mr := r.Stage(stage).Metric(m); mr != nil {
				byStage.set(string(stage), metricJSON(mr))
			}
		}
		if len(byStage) > 0 {
			metrics.set(string(m), byStage)
		}
	}
	r.sseMetricsJSON(&metrics)
	doc.set("metrics", metrics)
	warnings := r.StatsWarnings
	if warnings == nil {
		warnings = []string{}
	}
	doc.set("warnings", warnings)
	doc.set("sseaudit", r.sseJSON())
	doc.set("findings", r.findingsJSON())

	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(out, '\n'))
	return err
}

func metricJSON(m *MetricResult) object {
	var o object
	o.set("source", "aisbench")
	o.set("unit", unitLabel(m.Unit))
	scale := displayScale(m.Unit)
	for _, s := range m.Stats {
		o.set(s.Name, number(s.Raw*scale))
	}
	extra := make([]string, 0, len(m.Extra))
	for _, s := range m.Extra {
		o.set(s.Name, number(s.Raw*scale))
		extra = append(extra, s.Name)
	}
	o.set("not_in_aisbench_table", extra)
	o.set("N", m.N)
	o.set("samples", len(m.Values))
	var printed object
	for _, s := range m.Stats {
		printed.set(s.Name, aisbenchStatText(m.Unit, s.Rounded))
	}
	o.set("aisbench", printed)
	return o
}

func (r *Report) stageJSON(st *StageResult) object {
	var o object
	if st.Err != nil {
		o.set("error", errorJSON(st.Err))
		return o
	}
	o.set("error", nil)
	o.set("requests", len(st.Requests))
	o.set("duration_ms", number(st.DurationSeconds*1000))
	c := st.Common
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
	if r.MaxConcurrency == 0 {
		common.set("max_concurrency", nil)
	} else {
		common.set("max_concurrency", c.MaxConcurrency)
	}
	common.set("request_throughput_per_s", number(c.RequestThroughput.Raw))
	common.set("total_input_tokens", c.TotalInputTokens)
	common.set("total_generated_tokens", c.TotalGeneratedTokens)
	if c.HasTokenThroughput {
		common.set("input_token_throughput_per_s", number(c.InputTokenThroughput.Raw))
		common.set("output_token_throughput_per_s", number(c.OutputTokenThroughput.Raw))
		common.set("total_token_throughput_per_s", number(c.TotalTokenThroughput.Raw))
	} else {
		common.set("input_token_throughput_per_s", nil)
		common.set("output_token_throughput_per_s", nil)
		common.set("total_token_throughput_per_s", nil)
	}
	o.set("common", common)
	removed := make([]object, 0, len(st.Removed))
	for _, m := range st.Removed {
		var rm object
		rm.set("metric", string(m.Name))
		rm.set("reason", m.Reason)
		removed = append(removed, rm)
	}
	o.set("removed_metrics", removed)
	if st.Stage == StageStable {
		var win object
		w := st.Window
		win.set("start_s", number(w.StartSeconds))
		win.set("end_s", number(w.EndSeconds))
		win.set("duration_ms", number(w.DurationSeconds*1000))
		win.set("start_after_first_request_s", number(w.StartSeconds-w.OffsetSeconds))
		win.set("end_after_first_request_s", number(w.EndSeconds-w.OffsetSeconds))
		win.set("selected", w.Selected)
		win.set("of", w.Of)
		win.set("trace_indices", st.Requests)
		o.set("window", win)
		q := st.Quirk
		var quirk object
		quirk.set("changed_counts", q.Changed)
		var ais, intended object
		ais.set("total_requests", q.AISBenchTotal)
		ais.set("success_requests", q.AISBenchSuccess)
		ais.set("failed_requests", q.AISBenchFailed)
		intended.set("total_requests", q.IntendedTotal)
		intended.set("success_requests", q.IntendedSuccess)
		intended.set("failed_requests", q.IntendedFailed)
		quirk.set("aisbench", ais)
		quirk.set("intended", intended)
		o.set("failure_index_quirk", quirk)
	}
	return o
}

// errorJSON says what stopped a stage, and whether AISBench itself stops there.
func errorJSON(err error) object {
	var o object
	o.set("message", err.Error())
	var ais *AISBenchError
	if errors.As(err, &ais) {
		o.set("kind", "aisbench")
		o.set("code", ais.RealCode)
	} else {
		o.set("kind", "inexact")
		o.set("code", nil)
	}
	return o
}
