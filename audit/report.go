package audit

import "fmt"

// Stage names one of AISBench's two calculators' stages.
type Stage string

const (
	// StageTotal is DefaultPerfMetricCalculator's stage: every successful request
	// (the article's "whole").
	StageTotal Stage = "total"
	// StageStable is StablePerfMetricCalculator's stage: the requests that start
	// inside the window where in-flight requests sit at the max concurrency (the
	// article's "native").
	StageStable Stage = "stable"
)

// Stages lists the stages in report order.
var Stages = []Stage{StageTotal, StageStable}

// ParseStage accepts a stage by AISBench's name ("total", "stable") or the
// article's ("whole", "native").
func ParseStage(name string) (Stage, error) {
	switch name {
	case "total", "whole":
		return StageTotal, nil
	case "stable", "native":
		return StageStable, nil
	}
	return "", fmt.Errorf("audit: unknown stage %q (want total or stable)", name)
}

// Metric names a per-request metric: a row of AISBench's <ds>.csv.
type Metric string

// The metrics in AISBench's row order.
const (
	MetricE2EL                   Metric = "E2EL"
	MetricTTFT                   Metric = "TTFT"
	MetricTPOT                   Metric = "TPOT"
	MetricITL                    Metric = "ITL"
	MetricInputTokens            Metric = "InputTokens"
	MetricOutputTokens           Metric = "OutputTokens"
	MetricOutputTokenThroughput  Metric = "OutputTokenThroughput"
	MetricPrefillTokenThroughput Metric = "PrefillTokenThroughput"
)

// Metrics lists every metric in AISBench's row order.
var Metrics = []Metric{
	MetricE2EL, MetricTTFT, MetricTPOT, MetricITL,
	MetricInputTokens, MetricOutputTokens, MetricOutputTokenThroughput, MetricPrefillTokenThroughput,
}

// Unit is the unit a metric's values are kept in.
type Unit string

const (
	UnitSeconds         Unit = "s"      // rendered in milliseconds, as AISBench does
	UnitTokens          Unit = "tokens" // counts, rendered bare
	UnitTokensPerSecond Unit = "token/s"
)

// Unit returns the unit a metric's values are kept in.
func (m Metric) Unit() Unit {
	switch m {
	case MetricE2EL, MetricTTFT, MetricTPOT, MetricITL,
		MetricContentUpdateInterval, MetricTextUpdateInterval, MetricTTFContent, MetricTTFText:
		return UnitSeconds
	case MetricTokensPerEvent:
		return UnitTokensPerEvent
	case MetricInputTokens, MetricOutputTokens:
		return UnitTokens
	}
	return UnitTokensPerSecond
}

// Report is the finalized audit of one run: both stages, each with every
// metric's raw values and AISBench's statistics. It is data only: the Write
// methods render it and compute nothing.
type Report struct {
	MaxConcurrency int      // configured C; 0 = unknown
	Stats          []string // the statistics columns, after AISBench's validation
	StatsWarnings  []string // what AISBench would warn about the configured list
	Requests       RequestCounts
	Total          *StageResult
	Stable         *StageResult

	// sseaudit's figures beside AISBench's.

	// AllStats are the statistics of sseaudit's section: every requested one
	// sseaudit can compute (P99.9 too); those not in Stats are not AISBench's.
	AllStats   []string
	Thresholds Thresholds
	// Window explains the stable window: in-flight counts at its defining
	// events, the closest the run came when there is none, and the windows of
	// AISBench's earlier selectors.
	Window *WindowAnalysis
	// Findings are what a reviewer should know about the figures, in a fixed order.
	Findings []Finding
	// Figures are the data the HTML report draws (the in-flight curve, request
	// timelines, interval distributions); nil when no request succeeded.
	Figures *Figures

	// color is set on a copy by WriteTextColor: render-time only, never data.
	color bool
}

// RequestCounts counts the requests added to the builder.
type RequestCounts struct {
	Added     int // every request, in trace order
	Succeeded int // successful with at least two time points: what AISBench keeps
	Failed    int
	// TooFewTimePoints counts requests marked successful with fewer than two
	// time points, which AISBench's client turns into failures ("chunk size is
	// less than 2"); they are included in Failed.
	TooFewTimePoints int
}

// Stage returns the result of the named stage, or nil for an unknown name.
func (r *Report) Stage(s Stage) *StageResult {
	switch s {
	case StageTotal:
		return r.Total
	case StageStable:
		return r.Stable
	}
	return nil
}

// StageResult is one stage: its requests, metrics and common metrics, or the
// error that stops AISBench (or this package) from computing it.
type StageResult struct {
	Stage Stage
	// Err is why the stage has no numbers: an *AISBenchError AISBench raises
	// itself, or an error saying AISBench's numbers cannot be known exactly
	// (*UnknownTokensError, ErrUnknownMaxConcurrency, *NaNTimePointError).
	Err error
	// Requests holds the trace indices (order of Add) of the stage's requests.
	Requests []int
	// DurationSeconds is the stage duration T AISBench divides by: last end
	// minus first start for total, the window length for stable.
	DurationSeconds float64
	Window          *Window // stable only
	Metrics         []MetricResult
	Removed         []RemovedMetric // rows AISBench leaves out of <ds>.csv
	Common          CommonMetrics
	// Quirk is the stable stage's failure-index quirk (zero for total).
	Quirk FailureIndexQuirk

	// sseaudit's figures, computed over Requests (the intended selection,
	// without the quirk) whenever Requests is known, even when Err is set.

	ITL       *ITLAccounting  // what the ITL row is made of
	SSE       []MetricResult  // sseaudit's metrics (SSEMetrics order) that have samples
	SSEAbsent []RemovedMetric // sseaudit's metrics without samples, and why
	SLOs      []SLOResult     // Config.SLOs in order
	Windowed  *WindowedThroughput
}

// SSEMetric returns one of sseaudit's metrics, or nil when it has no samples.
func (s *StageResult) SSEMetric(m Metric) *MetricResult {
	for i := range s.SSE {
		if s.SSE[i].Name == m {
			return &s.SSE[i]
		}
	}
	return nil
}

// Metric returns the named metric's result, or nil when AISBench removed the row.
func (s *StageResult) Metric(m Metric) *MetricResult {
	for i := range s.Metrics {
		if s.Metrics[i].Name == m {
			return &s.Metrics[i]
		}
	}
	return nil
}

// Window is the stable stage's window, as StablePerfMetricCalculator finds it.
type Window struct {
	StartSeconds    float64 // absolute time: the 2nd request start that reaches C
	EndSeconds      float64 // absolute time: the last event that leaves C in flight
	DurationSeconds float64 // EndSeconds - StartSeconds, as AISBench subtracts
	// OffsetSeconds is the earliest successful start, which AISBench subtracts to
	// log the window relative to the run (its "Start time"/"End time").
	OffsetSeconds float64
	Selected      int   // successful requests whose start lies in [Start, End]
	Of            int   // successful requests in the run
	Positions     []int // the selected requests' positions among successful requests (AISBench's ids)
}

// MetricResult is one metric of one stage.
type MetricResult struct {
	Name Metric
	Unit Unit
	// Values are the raw per-request values behind the statistics, unrounded, in
	// the metric's Unit. nil for the metrics pooled over events, whose
	// samples are as many as the trace's events: ITL (its intervals are
	// decoded from the stored time points when read: SampleValues) and
	// sseaudit's ContentUpdateInterval, TextUpdateInterval and
	// TokensPerEvent (not kept once their statistics are computed).
	Values []float64
	// Samples is the number of values behind the statistics (len(Values)
	// where Values is kept).
	Samples int
	// pooled is ITL's samples, each request's where it lies.
	pooled pool
	Stats  []Statistic // in Report.Stats order (Report.AllStats for sseaudit's metrics)
	// Extra are the statistics of Report.AllStats that AISBench's table lacks,
	// from the same raw values (AISBench's metrics only).
	Extra []Statistic
	// N is AISBench's N: the stage's success count (see FailureIndexQuirk), or for
	// TPOT and ITL the number of requests with a nonzero interval.
	N int
}

// Statistic is one statistic of a metric.
type Statistic struct {
	Name    string  // "Average", "Min", "Max", "Median" or "Pnn"
	Raw     float64 // np.mean / np.min / np.max / np.percentile, unrounded
	Rounded float64 // AISBench's round(float(Raw), 4), still in the metric's Unit
}

// RemovedMetric is a row AISBench drops, with why.
type RemovedMetric struct {
	Name   Metric
	Reason string
}

// Value is a common metric: its exact quotient and AISBench's rounding of it.
type Value struct {
	Raw     float64
	Rounded float64 // numpy's round(x, 4) (AISBench rounds np.float64 here)
}

// CommonMetrics are the stage's entries of AISBench's <ds>.json.
type CommonMetrics struct {
	BenchmarkDurationMs float64 // numpy round(T*1000, 4)
	// The three counts are AISBench's, quirk included (see StageResult.Quirk).
	TotalRequests   int
	FailedRequests  int
	SuccessRequests int
	Concurrency     Value // sum(E2EL)/T, before the stable stage's cap
	// ConcurrencyCapped: the stable stage prints the configured C (an int)
	// instead of Concurrency.Rounded, which exceeds it.
	ConcurrencyCapped    bool
	MaxConcurrency       int
	RequestThroughput    Value // success count / T, req/s
	TotalInputTokens     int64
	TotalGeneratedTokens int64
	// HasTokenThroughput is false when T <= 0: AISBench then leaves the three
	// token throughputs empty.
	HasTokenThroughput    bool
	InputTokenThroughput  Value
	OutputTokenThroughput Value
	TotalTokenThroughput  Value
}

// FailureIndexQuirk records AISBench's stable-stage indexing bug: it looks up
// the success flags of the FULL request list (failures included) at positions
// taken from the success-only list, so failures before or inside the window
// shift which flags it counts. The AISBench* counts are what it prints.
type FailureIndexQuirk struct {
	Changed bool // the quirk changed the counts AISBench prints
	// Intended counts: every selected request succeeded.
	IntendedTotal, IntendedSuccess, IntendedFailed int
	// AISBench's counts: Total Requests, Success Requests (also N), Failed Requests.
	AISBenchTotal, AISBenchSuccess, AISBenchFailed int
}

// SampleValues are the values behind the statistics: Values, or for ITL the
// intervals of every request, concatenated in the stage's order (a new
// array of Samples values). nil for sseaudit's pooled metrics.
func (m *MetricResult) SampleValues() []float64 {
	if m.pooled != nil {
		return m.pooled.gather()
	}
	return m.Values
}
