package comparison

import (
	"encoding/json"
	"io"
	"math"

	"github.com/sseaudit/sseaudit/internal/ordjson"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/unit"
)

// SchemaVersion is the "schema_version" of the JSON output (docs/diff.md
// defines every key).
const SchemaVersion = "1"

type object = ordjson.Object

// jsonNumber is x, or null for NaN (a value that does not exist).
func jsonNumber(x float64) any {
	if math.IsNaN(x) {
		return nil
	}
	return ordjson.Number(x)
}

// jsonValue is a value in its display unit (ms for times), or null.
func jsonValue(u unit.Unit, x float64) any {
	if math.IsNaN(x) {
		return nil
	}
	if u == unit.Fraction {
		return ordjson.Number(x)
	}
	return ordjson.Number(x * unit.Scale(u))
}

// jsonUnit is a unit as JSON names it: ms for times.
func jsonUnit(u unit.Unit) string { return unit.Label(u) }

// WriteJSON writes the comparison with full precision and keys in a fixed
// order: stages.<stage>.metrics.<Metric>.{a, b, delta_pct, ci95_pct,
// p_value, significant, ...}, attribution and fail_on (docs/diff.md).
func (c *Comparison) WriteJSON(w io.Writer) error {
	var doc object
	doc.Set("schema_version", SchemaVersion)
	doc.Set("a", runJSON(c.A))
	doc.Set("b", runJSON(c.B))
	doc.Set("alpha", c.Alpha)
	var pairing object
	if c.Pairing.By == "" {
		pairing.Set("by", nil)
		pairing.Set("pairs", 0)
		pairing.Set("why_unpaired", c.Pairing.Why)
	} else {
		pairing.Set("by", c.Pairing.By)
		pairing.Set("pairs", len(c.Pairing.Pairs))
		pairing.Set("only_a", c.Pairing.OnlyA)
		pairing.Set("only_b", c.Pairing.OnlyB)
	}
	doc.Set("pairing", pairing)
	var bs object
	bs.Set("resamples", c.Resamples)
	bs.Set("seed", c.Seed)
	doc.Set("bootstrap", bs)
	var stages object
	for _, sc := range c.Stages {
		var st object
		notes := sc.Notes
		if notes == nil {
			notes = []string{}
		}
		st.Set("notes", notes)
		var metrics object
		for i := range sc.Metrics {
			metrics.Set(string(sc.Metrics[i].Name), metricJSON(&sc.Metrics[i]))
		}
		st.Set("metrics", metrics)
		stages.Set(string(sc.Stage), st)
	}
	doc.Set("stages", stages)
	attribution := []object{}
	for _, a := range c.Attribution {
		var o object
		o.Set("code", a.Code)
		o.Set("subject", a.Subject)
		o.Set("a", jsonNumber(a.A))
		o.Set("b", jsonNumber(a.B))
		o.Set("unit", a.Unit)
		o.Set("text", a.Text)
		o.Set("metrics", metricNames(a.Metrics))
		attribution = append(attribution, o)
	}
	doc.Set("attribution", attribution)
	failOn := []object{}
	for i := range c.FailOn {
		failOn = append(failOn, failOnJSON(&c.FailOn[i]))
	}
	doc.Set("fail_on", failOn)
	doc.Set("failed", c.Failed())
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(out, '\n'))
	return err
}

func runJSON(r RunSummary) object {
	var o object
	o.Set("name", r.Name)
	if r.MaxConcurrency == 0 {
		o.Set("max_concurrency", nil)
	} else {
		o.Set("max_concurrency", r.MaxConcurrency)
	}
	var reqs object
	reqs.Set("added", r.Requests.Added)
	reqs.Set("succeeded", r.Requests.Succeeded)
	reqs.Set("failed", r.Requests.Failed)
	o.Set("requests", reqs)
	return o
}

func centerJSON(u unit.Unit, c Center) object {
	var o object
	o.Set("median", jsonValue(u, c.Median))
	o.Set("mean", jsonValue(u, c.Mean))
	o.Set("n", c.N)
	return o
}

func metricJSON(m *MetricComparison) object {
	var o object
	o.Set("unit", jsonUnit(m.Unit))
	o.Set("source", m.Source)
	o.Set("per_request", m.PerRequest)
	o.Set("a", centerJSON(m.Unit, m.A))
	o.Set("b", centerJSON(m.Unit, m.B))
	o.Set("delta_pct", jsonNumber(m.DeltaPct))
	if math.IsNaN(m.CI95[0]) {
		o.Set("ci95_pct", nil)
	} else {
		o.Set("ci95_pct", []any{jsonNumber(m.CI95[0]), jsonNumber(m.CI95[1])})
	}
	if m.Test == "" {
		o.Set("test", nil)
		o.Set("method", nil)
		o.Set("statistic", nil)
	} else {
		o.Set("test", m.Test)
		o.Set("method", string(m.Method))
		o.Set("statistic", jsonNumber(m.Statistic))
	}
	o.Set("p_value", jsonNumber(m.PValue))
	o.Set("significant", m.Significant)
	if m.Test == Wilcoxon {
		o.Set("pairs", m.Pairs)
		o.Set("paired_median_delta", jsonValue(m.Unit, m.PairedMedianDelta))
	}
	if m.Note != "" {
		o.Set("note", m.Note)
	}
	return o
}

func metricNames(ms []metric.Metric) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = string(m)
	}
	return out
}

func failOnJSON(r *FailOnResult) object {
	var o object
	o.Set("expression", r.Text)
	o.Set("metric", string(r.Metric))
	if r.Stat == "" {
		o.Set("statistic", nil)
	} else {
		o.Set("statistic", r.Stat)
	}
	o.Set("op", r.Op)
	o.Set("kind", string(r.Kind))
	u := def(r.Metric).Unit
	if r.Kind == Relative {
		o.Set("threshold", ordjson.Number(r.Threshold))
		o.Set("threshold_unit", "%")
	} else {
		o.Set("threshold", jsonValue(u, r.Threshold))
		o.Set("threshold_unit", jsonUnit(u))
	}
	o.Set("violated", r.Violated)
	stages := []object{}
	for _, e := range r.Stages {
		var s object
		s.Set("stage", string(e.Stage))
		s.Set("a", jsonValue(u, e.A))
		s.Set("b", jsonValue(u, e.B))
		if r.Kind == Relative {
			s.Set("measured", jsonNumber(e.Measured))
		} else {
			s.Set("measured", jsonValue(u, e.Measured))
		}
		s.Set("holds", e.Holds)
		s.Set("tested", e.Tested)
		s.Set("significant", e.Significant)
		s.Set("violated", e.Violated)
		if e.Note != "" {
			s.Set("note", e.Note)
		}
		stages = append(stages, s)
	}
	o.Set("stages", stages)
	return o
}
