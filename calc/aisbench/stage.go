package aisbench

import (
	"fmt"

	"github.com/sseaudit/sseaudit/metric"
)

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

// Title is the stage's name in the article the project grew from, with
// AISBench's: "whole (total)", "native (stable)".
func (s Stage) Title() string {
	switch s {
	case StageTotal:
		return "whole (total)"
	case StageStable:
		return "native (stable)"
	}
	return string(s)
}

// ParseStage accepts a stage by AISBench's name ("total", "stable") or the
// article's ("whole", "native").
func ParseStage(name string) (Stage, error) {
	switch name {
	case "total", "whole":
		return StageTotal, nil
	case "stable", "native":
		return StageStable, nil
	}
	return "", fmt.Errorf("aisbench: unknown stage %q (want total or stable)", name)
}

// Result is AISBench's two stages of one run, as its summarizer and
// calculators compute them, with the stable window explained.
type Result struct {
	MaxConcurrency int      // configured C; 0 = unknown
	NoTimeline     string   // why the send times are unknown (Config.NoTimeline); "" when known
	Stats          []string // the statistics columns, after AISBench's validation
	StatsWarnings  []string // what AISBench would warn about the configured list
	Requests       RequestCounts
	Total          *StageResult
	Stable         *StageResult
	// Window explains the stable window: in-flight counts at its defining
	// events, the closest the run came when there is none, and the windows of
	// AISBench's earlier selectors; nil without C or successes.
	Window *WindowAnalysis
}

// Stage returns the result of the named stage, or nil for an unknown name.
func (r *Result) Stage(s Stage) *StageResult {
	switch s {
	case StageTotal:
		return r.Total
	case StageStable:
		return r.Stable
	}
	return nil
}

// InTable says whether a statistic is one of the columns AISBench prints.
func (r *Result) InTable(stat string) bool {
	for _, s := range r.Stats {
		if s == stat {
			return true
		}
	}
	return false
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

// StageResult is one stage: its requests, metrics and common metrics, or the
// error that stops AISBench (or this package) from computing it.
type StageResult struct {
	Stage Stage
	// Err is why the stage has no numbers: an *AISBenchError AISBench raises
	// itself, or an error saying AISBench's numbers cannot be known exactly
	// (*UnknownTokensError, ErrUnknownMaxConcurrency, *NaNTimePointError).
	Err error
	// Requests holds the trace indices (run order) of the stage's requests.
	Requests []int
	// DurationSeconds is the stage duration T AISBench divides by: last end
	// minus first start for total, the window length for stable.
	DurationSeconds float64
	Window          *Window // stable only
	Metrics         []metric.Result
	Removed         []metric.Removed // rows AISBench leaves out of <ds>.csv
	Common          CommonMetrics
	// Quirk is the stable stage's failure-index quirk (zero for total).
	Quirk FailureIndexQuirk
}

// Metric returns the named metric's result, or nil when AISBench removed the row.
func (s *StageResult) Metric(m metric.Metric) *metric.Result {
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
