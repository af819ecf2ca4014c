package render

import (
	"encoding/json"
	"io"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/internal/ordjson"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/unit"
)

// SchemaVersion is the "schema_version" of JSON's output; the schema is
// schemas/report/v1.schema.json.
const SchemaVersion = "1"

// object and number are the reports' ordered JSON object and Python-spelled
// float.
type (
	object = ordjson.Object
	number = ordjson.Number
)

// JSON writes the full-precision report (schema_version "1"): every metric
// at metrics.<Name>.<stage> with unrounded statistics (times in ms), N,
// samples and AISBench's printed values; per stage its common metrics, window
// and error. Keys come in a fixed order; nothing depends on the clock.
func JSON(w io.Writer, rep *audit.Report) error {
	r := newPrinter(rep, Options{})
	var doc object
	doc.Set("schema_version", SchemaVersion)
	if r.MaxConcurrency == 0 {
		doc.Set("max_concurrency", nil)
	} else {
		doc.Set("max_concurrency", r.MaxConcurrency)
	}
	doc.Set("stats", r.Stats)
	var reqs object
	reqs.Set("added", r.Requests.Added)
	reqs.Set("succeeded", r.Requests.Succeeded)
	reqs.Set("failed", r.Requests.Failed)
	reqs.Set("too_few_time_points", r.Requests.TooFewTimePoints)
	doc.Set("requests", reqs)

	var stages object
	for _, stage := range aisbench.Stages {
		stages.Set(string(stage), r.stageJSON(r.Stage(stage)))
	}
	doc.Set("stages", stages)

	var metrics object
	for _, m := range metric.AISBench {
		var byStage object
		for _, stage := range aisbench.Stages {
			if mr := r.Stage(stage).Metric(m); mr != nil {
				byStage.Set(string(stage), metricJSON(mr))
			}
		}
		if len(byStage) > 0 {
			metrics.Set(string(m), byStage)
		}
	}
	r.sseMetricsJSON(&metrics)
	doc.Set("metrics", metrics)
	warnings := r.StatsWarnings
	if warnings == nil {
		warnings = []string{}
	}
	doc.Set("warnings", warnings)
	doc.Set("sseaudit", r.sseJSON())
	doc.Set("findings", findingsJSON(r.Findings))

	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(out, '\n'))
	return err
}

func metricJSON(m *metric.Result) object {
	var o object
	o.Set("source", "aisbench")
	o.Set("unit", unit.Label(m.Unit))
	scale := unit.Scale(m.Unit)
	for _, s := range m.Stats {
		o.Set(s.Name, number(s.Raw*scale))
	}
	extra := make([]string, 0, len(m.Extra))
	for _, s := range m.Extra {
		o.Set(s.Name, number(s.Raw*scale))
		extra = append(extra, s.Name)
	}
	o.Set("not_in_aisbench_table", extra)
	o.Set("N", m.N)
	o.Set("samples", m.Samples)
	var printed object
	for _, s := range m.Stats {
		printed.Set(s.Name, unit.AISBenchText(m.Unit, s.Rounded))
	}
	o.Set("aisbench", printed)
	return o
}

func (r *printer) stageJSON(st *aisbench.StageResult) object {
	var o object
	if st.Err != nil {
		o.Set("error", errorJSON(st.Err))
		return o
	}
	o.Set("error", nil)
	o.Set("requests", len(st.Requests))
	o.Set("duration_ms", number(st.DurationSeconds*1000))
	c := st.Common
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
	if r.MaxConcurrency == 0 {
		common.Set("max_concurrency", nil)
	} else {
		common.Set("max_concurrency", c.MaxConcurrency)
	}
	common.Set("request_throughput_per_s", number(c.RequestThroughput.Raw))
	common.Set("total_input_tokens", c.TotalInputTokens)
	common.Set("total_generated_tokens", c.TotalGeneratedTokens)
	if c.HasTokenThroughput {
		common.Set("input_token_throughput_per_s", number(c.InputTokenThroughput.Raw))
		common.Set("output_token_throughput_per_s", number(c.OutputTokenThroughput.Raw))
		common.Set("total_token_throughput_per_s", number(c.TotalTokenThroughput.Raw))
	} else {
		common.Set("input_token_throughput_per_s", nil)
		common.Set("output_token_throughput_per_s", nil)
		common.Set("total_token_throughput_per_s", nil)
	}
	o.Set("common", common)
	removed := make([]object, 0, len(st.Removed))
	for _, m := range st.Removed {
		var rm object
		rm.Set("metric", string(m.Name))
		rm.Set("reason", m.Reason)
		removed = append(removed, rm)
	}
	o.Set("removed_metrics", removed)
	if st.Stage == aisbench.StageStable {
		var win object
		w := st.Window
		win.Set("start_s", number(w.StartSeconds))
		win.Set("end_s", number(w.EndSeconds))
		win.Set("duration_ms", number(w.DurationSeconds*1000))
		win.Set("start_after_first_request_s", number(w.StartSeconds-w.OffsetSeconds))
		win.Set("end_after_first_request_s", number(w.EndSeconds-w.OffsetSeconds))
		win.Set("selected", w.Selected)
		win.Set("of", w.Of)
		win.Set("trace_indices", st.Requests)
		o.Set("window", win)
		q := st.Quirk
		var quirk object
		quirk.Set("changed_counts", q.Changed)
		var ais, intended object
		ais.Set("total_requests", q.AISBenchTotal)
		ais.Set("success_requests", q.AISBenchSuccess)
		ais.Set("failed_requests", q.AISBenchFailed)
		intended.Set("total_requests", q.IntendedTotal)
		intended.Set("success_requests", q.IntendedSuccess)
		intended.Set("failed_requests", q.IntendedFailed)
		quirk.Set("aisbench", ais)
		quirk.Set("intended", intended)
		o.Set("failure_index_quirk", quirk)
	}
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
