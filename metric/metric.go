// Package metric names the per-request metrics a report holds, AISBench's
// and sseaudit's own, with the unit each is kept in, and holds one metric's
// result in one stage: its raw values, N, the number of samples and the
// statistics computed from them (package samples).
package metric

import (
	"github.com/sseaudit/sseaudit/samples"
	"github.com/sseaudit/sseaudit/unit"
)

// Metric names a per-request metric: a row of AISBench's <ds>.csv, or one of
// sseaudit's figures beside them.
type Metric string

// AISBench's metrics, in its row order.
const (
	E2EL                   Metric = "E2EL"
	TTFT                   Metric = "TTFT"
	TPOT                   Metric = "TPOT"
	ITL                    Metric = "ITL"
	InputTokens            Metric = "InputTokens"
	OutputTokens           Metric = "OutputTokens"
	OutputTokenThroughput  Metric = "OutputTokenThroughput"
	PrefillTokenThroughput Metric = "PrefillTokenThroughput"
)

// AISBench lists AISBench's metrics in its row order.
var AISBench = []Metric{
	E2EL, TTFT, TPOT, ITL, InputTokens, OutputTokens, OutputTokenThroughput, PrefillTokenThroughput,
}

// sseaudit's own metrics: they stand beside AISBench's, under their own names,
// and never replace them (docs/metrics.md).
const (
	// ContentUpdateInterval: gaps between consecutive recorded events
	// carrying non-empty delta.content, pooled across requests like ITL.
	ContentUpdateInterval Metric = "ContentUpdateInterval"
	// TextUpdateInterval: the same with content or reasoning text.
	TextUpdateInterval Metric = "TextUpdateInterval"
	// TTFContent: request send (t0) to the first content event.
	TTFContent Metric = "TTFContent"
	// TTFText: t0 to the first content or reasoning event.
	TTFText Metric = "TTFText"
	// TokensPerEvent: output tokens each text or tool-call event carries,
	// where the stream says so itself (continuous usage deltas, logprob entries).
	TokensPerEvent Metric = "TokensPerEvent"
	// WindowedOutputThroughput: output produced inside the stable window
	// divided by its length (a single value).
	WindowedOutputThroughput Metric = "WindowedOutputThroughput"
)

// SSE lists sseaudit's distribution metrics in report order.
var SSE = []Metric{ContentUpdateInterval, TextUpdateInterval, TTFContent, TTFText, TokensPerEvent}

// Unit is the unit a metric's values are kept in.
func (m Metric) Unit() unit.Unit {
	switch m {
	case E2EL, TTFT, TPOT, ITL, ContentUpdateInterval, TextUpdateInterval, TTFContent, TTFText:
		return unit.Seconds
	case TokensPerEvent:
		return unit.TokensPerEvent
	case InputTokens, OutputTokens:
		return unit.Tokens
	}
	return unit.TokensPerSecond
}

// Result is one metric of one stage.
type Result struct {
	Name Metric
	Unit unit.Unit
	// Values are the raw per-request values behind the statistics, unrounded,
	// in the metric's Unit. nil for the metrics pooled over events, whose
	// samples are as many as the trace's events: ITL and sseaudit's
	// ContentUpdateInterval, TextUpdateInterval and TokensPerEvent (not kept
	// once their statistics are computed; aisbench.Config.KeepITLSamples
	// keeps ITL's).
	Values []float64
	// Samples is the number of values behind the statistics (len(Values)
	// where Values is kept).
	Samples int
	Stats   []samples.Statistic // in the report's statistics order
	// Extra are the statistics the report asks for beyond AISBench's table,
	// from the same raw values (AISBench's metrics only).
	Extra []samples.Statistic
	// N is AISBench's N: the stage's success count, or for TPOT and ITL the
	// number of requests with a nonzero interval; for sseaudit's metrics the
	// requests with at least one sample.
	N int
}

// Statistic finds a statistic among Stats and Extra; an absent metric (nil)
// has none.
func (m *Result) Statistic(name string) (samples.Statistic, bool) {
	if m == nil {
		return samples.Statistic{}, false
	}
	for _, s := range m.Stats {
		if s.Name == name {
			return s, true
		}
	}
	for _, s := range m.Extra {
		if s.Name == name {
			return s, true
		}
	}
	return samples.Statistic{}, false
}

// StatisticsNamed are the statistics (Stats and Extra) of the names, in
// their order; every name must be among them.
func (m *Result) StatisticsNamed(names []string) []samples.Statistic {
	out := make([]samples.Statistic, len(names))
	for i, name := range names {
		out[i], _ = m.Statistic(name)
	}
	return out
}

// Removed is a metric a stage leaves out, with why.
type Removed struct {
	Name   Metric
	Reason string
}
