package ssemetrics

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/samples"
	"github.com/sseaudit/sseaudit/unit"
)

// Stats is the statistics list of sseaudit's section: every requested
// name sseaudit can compute, in order, without duplicates (AISBench's default
// when none was requested).
func Stats(requested []string) []string {
	if len(requested) == 0 {
		return slices.Clone(aisbench.DefaultStats)
	}
	var out []string
	for _, s := range requested {
		if _, ok := samples.ParseStatistic(s); ok && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		out = []string{"Average"}
	}
	return out
}

// ITLAccounting says what AISBench's ITL row of one stage is made of.
type ITLAccounting struct {
	Requests int // the stage's requests
	// AISBenchN is AISBench's N for ITL (and TPOT): requests with a nonzero interval.
	AISBenchN             int
	RequestsWithIntervals int // requests with at least one interval (3+ time points)
	Intervals             int // pooled intervals behind AISBench's ITL statistics
	ZeroIntervals         int // of which exactly 0: events that arrived in one read
	RequestsWithZero      int // requests with at least one zero interval
	// Intervals per request over the stage's requests (numpy min, median, max).
	PerRequestMin, PerRequestMedian, PerRequestMax float64
	// PooledMeanSeconds is np.mean of the concatenated intervals: AISBench's ITL
	// Average, each request weighing as many intervals as it has. NaN when
	// there is no interval.
	PooledMeanSeconds float64
	// PerRequestMeanSeconds is the mean of each request's mean interval, every
	// request with an interval weighing the same. NaN when there is none.
	PerRequestMeanSeconds float64
	// InAISBenchTable is false when AISBench removes the ITL row (see Removed).
	InAISBenchTable bool
}

// SLO is a service-level objective on a per-request metric: Metric Op Threshold.
type SLO struct {
	Text      string // as given, e.g. "TPOT<20ms"
	Metric    metric.Metric
	Op        string  // "<", "<=", ">" or ">="
	Threshold float64 // in the metric's Unit (seconds for times)
}

// sloMetrics are the per-request metrics an SLO may name.
var sloMetrics = []metric.Metric{metric.E2EL, metric.TTFT, metric.TPOT, metric.OutputTokenThroughput, metric.PrefillTokenThroughput, metric.TTFContent, metric.TTFText}

// ParseSLO parses "METRIC OP VALUE[UNIT]": TPOT<20ms, TTFT<=2s, E2EL<1500ms,
// OutputTokenThroughput>=30. Times need a unit (us, ms, s); rates are token/s.
func ParseSLO(text string) (SLO, error) {
	s := strings.ReplaceAll(text, " ", "")
	i := strings.IndexAny(s, "<>")
	if i <= 0 {
		return SLO{}, fmt.Errorf("ssemetrics: SLO %q: want METRIC<VALUE, e.g. TPOT<20ms", text)
	}
	name, rest := s[:i], s[i:]
	op := rest[:1]
	if strings.HasPrefix(rest, "<=") || strings.HasPrefix(rest, ">=") {
		op = rest[:2]
	}
	value := rest[len(op):]
	m := metric.Metric(name)
	if !slices.Contains(sloMetrics, m) {
		if m == metric.ITL {
			return SLO{}, fmt.Errorf("ssemetrics: SLO %q: ITL is pooled over requests, not a per-request value", text)
		}
		return SLO{}, fmt.Errorf("ssemetrics: SLO %q: unknown metric %q (want one of %s)", text, name, joinMetrics(sloMetrics))
	}
	scale := 1.0
	if m.Unit() == unit.Seconds {
		switch {
		case strings.HasSuffix(value, "ms"):
			value, scale = strings.TrimSuffix(value, "ms"), 1e-3
		case strings.HasSuffix(value, "us"):
			value, scale = strings.TrimSuffix(value, "us"), 1e-6
		case strings.HasSuffix(value, "s"):
			value = strings.TrimSuffix(value, "s")
		default:
			return SLO{}, fmt.Errorf("ssemetrics: SLO %q: give the time a unit (us, ms or s)", text)
		}
	} else {
		value = strings.TrimSuffix(value, "token/s")
	}
	v, err := strconv.ParseFloat(value, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return SLO{}, fmt.Errorf("ssemetrics: SLO %q: %q is not a number", text, value)
	}
	return SLO{Text: text, Metric: m, Op: op, Threshold: v * scale}, nil
}

func joinMetrics(ms []metric.Metric) string {
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = string(m)
	}
	return strings.Join(names, ", ")
}

func (s SLO) holds(v float64) bool {
	switch s.Op {
	case "<":
		return v < s.Threshold
	case "<=":
		return v <= s.Threshold
	case ">":
		return v > s.Threshold
	}
	return v >= s.Threshold
}

// SLOResult is an SLO's attainment in one stage.
type SLOResult struct {
	SLO SLO
	// Met of Denominator requests meet it; Denominator is the stage's requests.
	Met, Denominator int
	// Missing requests have no value for the metric (no content event, unknown
	// token count); they count as not meeting it.
	Missing  int
	Fraction float64 // Met / Denominator
}

// WindowedThroughput is the stable stage's WindowedOutputThroughput.
type WindowedThroughput struct {
	// Basis is what is counted: "tokens" (every output event in the window
	// carries its own token count), "output events" (some do not; events with
	// text or tool calls are counted instead) or "time points" (the trace has no
	// event bodies).
	Basis         string
	Count         float64 // tokens, events or time points inside the window
	WindowSeconds float64
	PerSecond     float64 // Count / WindowSeconds; NaN for an empty window
	Requests      int     // successful requests with something counted in the window
	Events        int     // recorded events inside the window
	// NativeOutputTokenThroughput is AISBench's Output Token Throughput of the
	// stable stage (the selected requests' whole output / window), for comparison.
	NativeOutputTokenThroughput *aisbench.Value
}

// Unit is the unit of PerSecond: token/s when tokens are counted, else
// event/s.
func (wt *WindowedThroughput) Unit() string {
	if wt.Basis != "tokens" {
		return "event/s"
	}
	return "token/s"
}
