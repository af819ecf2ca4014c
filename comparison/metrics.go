package comparison

import (
	"strings"

	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/unit"
)

// The run-level metrics a comparison adds to the per-request ones: one
// value a run and stage, no test.
const (
	// OutputThroughput is AISBench's Output Token Throughput of the stage:
	// its output tokens over its duration.
	OutputThroughput metric.Metric = "OutputThroughput"
	// RequestThroughput is AISBench's Request Throughput: successes over the
	// stage's duration.
	RequestThroughput metric.Metric = "RequestThroughput"
	// SuccessRate is the run's successful requests over its requests (the
	// same in every stage).
	SuccessRate metric.Metric = "SuccessRate"
)

// RequestsPerSecond is the unit of RequestThroughput.
const RequestsPerSecond unit.Unit = "req/s"

// Sources of a metric.
const (
	SourceAISBench = "aisbench"
	SourceSSEAudit = "sseaudit"
)

// Def defines one metric a comparison compares.
type Def struct {
	Name metric.Metric
	Unit unit.Unit
	// PerRequest metrics are tested (one value a request); the others are
	// one value a run and stage.
	PerRequest bool
	// Source is whose figure it is, and whose statistics the report shows
	// for it: aisbench or sseaudit.
	Source string
	// Value says what one value is.
	Value string
}

// Metrics are the metrics compared, in output order.
var Metrics = []Def{
	{metric.E2EL, unit.Seconds, true, SourceAISBench, "the request's E2EL"},
	{metric.TTFT, unit.Seconds, true, SourceAISBench, "the request's TTFT"},
	{metric.TPOT, unit.Seconds, true, SourceAISBench, "the request's TPOT"},
	{metric.ITL, unit.Seconds, true, SourceAISBench, "the mean of the request's intervals (pooled intervals are not independent samples)"},
	{metric.ContentUpdateInterval, unit.Seconds, true, SourceSSEAudit, "the mean of the request's content gaps"},
	{metric.TTFContent, unit.Seconds, true, SourceSSEAudit, "t0 to the request's first content event"},
	{metric.OutputTokenThroughput, unit.TokensPerSecond, true, SourceAISBench, "the request's output tokens over its E2EL"},
	{metric.OutputTokens, unit.Tokens, true, SourceAISBench, "the request's output tokens"},
	{OutputThroughput, unit.TokensPerSecond, false, SourceAISBench, "the stage's output tokens over its duration (Output Token Throughput)"},
	{RequestThroughput, RequestsPerSecond, false, SourceAISBench, "the stage's successes over its duration (Request Throughput)"},
	{SuccessRate, unit.Fraction, false, SourceAISBench, "the run's successful requests over its requests"},
}

// aliases are other names a metric goes by on the command line.
var aliases = map[string]metric.Metric{
	"success":    SuccessRate,
	"throughput": OutputThroughput,
}

// Lookup finds a metric by name (case-insensitive) or alias.
func Lookup(name string) (Def, bool) {
	if m, ok := aliases[strings.ToLower(name)]; ok {
		name = string(m)
	}
	for _, d := range Metrics {
		if strings.EqualFold(string(d.Name), name) {
			return d, true
		}
	}
	return Def{}, false
}

// def is the definition of a metric of Metrics.
func def(m metric.Metric) Def {
	d, _ := Lookup(string(m))
	return d
}

// Names lists the metrics' names, comma-separated.
func Names() string {
	names := make([]string, len(Metrics))
	for i, d := range Metrics {
		names[i] = string(d.Name)
	}
	return strings.Join(names, ", ")
}
