package aisbench

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/sseaudit/sseaudit/internal/parallel"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/pynum"
	"github.com/sseaudit/sseaudit/run"
	"github.com/sseaudit/sseaudit/samples"
)

// Config configures a Calc.
type Config struct {
	// MaxConcurrency is the configured max concurrency C (AISBench's
	// batch_size); 0 = unknown.
	MaxConcurrency int
	// Stats are the statistics columns; nil means DefaultStats. They are
	// validated as AISBench validates them (ValidateStats).
	Stats []string
	// ExtraStats are statistics computed beside AISBench's columns, from the
	// same raw values, into each metric's Extra (any name
	// samples.ParseStatistic accepts).
	ExtraStats []string
	// KeepITLSamples keeps ITL's pooled intervals in its metric.Result.Values
	// (nil otherwise: as many as the trace's events); for tests and tools
	// that read them.
	KeepITLSamples bool
	// NoTimeline, when set, is why the requests' send times are unknown
	// (trace.KeyStartTimes): the stable stage and AISBench's <ds>.json, which
	// divide by the run's timeline, are refused (NoTimelineError).
	NoTimeline string
}

// Calc is AISBench's summarizer and calculators over one run: New reads
// the success flags, Derive what _calc_perf_data derives from each
// successful request, then Total and Stable compute the two stages and
// AnalyzeWindow explains the stable window. It reads the run and writes
// only its own results.
type Calc struct {
	cfg   Config
	stats []string // validated
	run   *run.Run
	// Flags is AISBench's success flag of every request: successful with at
	// least two time points.
	Flags []bool
	// Kept are the successful requests' trace indices, in trace order: their
	// positions in it are AISBench's ids of the successes.
	Kept []int
	// Requests holds, for each successful request (by trace index), what
	// Derive derived; zero for the others.
	Requests []PerRequest
	// TooFewTimePoints counts requests marked successful with fewer than two
	// time points.
	TooFewTimePoints int
	intervals        int // of the successful requests, in all
	// NaNErr is the first successful request, in trace order, with a NaN
	// time point: AISBench's ordering of it cannot be reproduced (set by
	// Derive).
	NaNErr   error
	walk     []WalkEvent // AISBench's walk of the starts and ends (Walk), made once
	walkOnce sync.Once
	// window is the stable window's walk (stableWindow), made once.
	window     *stableWalk
	windowOnce sync.Once
}

// PerRequest is what _calc_perf_data derives from a successful request's
// time points tp.
type PerRequest struct {
	Start   float64 // tp[0], t0
	First   float64 // tp[1], the first time point after t0
	End     float64 // tp[-1], tm
	Latency float64 // E2EL
	TTFT    float64
	// Intervals is the number of intervals, np.diff(tp[1:]); ZeroIntervals
	// of them exactly 0.
	Intervals, ZeroIntervals int
	// Unordered says that tp[1:] goes back somewhere (an interval below 0
	// or NaN): First and End then need not bound its points.
	Unordered bool
}

// Nonzero says whether the request counts towards ITL's and TPOT's N.
func (p *PerRequest) Nonzero() bool { return HasNonzeroInterval(p.Intervals, p.ZeroIntervals) }

// New reads the run's success flags. Its error is for an unusable
// configuration only.
func New(r *run.Run, cfg Config) (*Calc, error) {
	if cfg.MaxConcurrency < 0 {
		return nil, fmt.Errorf("aisbench: max concurrency %d is negative", cfg.MaxConcurrency)
	}
	c := &Calc{cfg: cfg, run: r, Flags: make([]bool, r.Len()), Requests: make([]PerRequest, r.Len())}
	c.stats, _ = ValidateStats(cfg.Stats)
	// AISBench keeps the success flag of every request, and every other field
	// for successful requests only: two lists of different lengths.
	for i := range c.Flags {
		points := r.Points(i)
		c.Flags[i] = r.Success(i) && points >= 2
		if r.Success(i) && !c.Flags[i] {
			c.TooFewTimePoints++
		}
		if c.Flags[i] {
			c.Kept = append(c.Kept, i)
			c.intervals += points - 2
		}
	}
	return c, nil
}

// Part is a run of requests, [From, To), that Derive derives at once.
type Part struct {
	From, To int
	nanErr   error // the part's first NaN time point
}

// Parts cuts the requests into a part per GOMAXPROCS at most, of about as
// many intervals each, so that parts can be derived in parallel.
func (c *Calc) Parts() []Part {
	n := runtime.GOMAXPROCS(0)
	parts := []Part{{}}
	offset := 0
	for i := range c.Flags {
		if last := &parts[len(parts)-1]; len(parts) < n && i > last.From && offset*n >= len(parts)*c.intervals {
			last.To = i
			parts = append(parts, Part{From: i})
		}
		if c.Flags[i] {
			offset += c.run.Points(i) - 2
		}
	}
	parts[len(parts)-1].To = c.run.Len()
	return parts
}

// Derive derives the successful requests of part p and hands each one's
// decoded time points and intervals to visit (nil: none), so that another
// calculator derives its own per-request values in the same pass. Parts
// may be derived in parallel; then Finish.
func (c *Calc) Derive(p *Part, visit func(i int, tp, intervals []float64)) {
	var tp, intervals []float64
	for i := p.From; i < p.To; i++ {
		if !c.Flags[i] {
			continue
		}
		tp = c.run.TimePoints(i, tp)
		pr := PerRequest{Start: tp[0], First: tp[1], End: tp[len(tp)-1],
			Latency: E2EL(tp[0], tp[len(tp)-1]), TTFT: TTFT(tp[0], tp[1]), Intervals: len(tp) - 2}
		intervals = intervals[:0]
		for j := 2; j < len(tp); j++ {
			x := tp[j] - tp[j-1]
			intervals = append(intervals, x)
			if x == 0 {
				pr.ZeroIntervals++
			}
			if !(x >= 0) { // NaN too
				pr.Unordered = true
			}
		}
		// A NaN point past tp[1] makes an interval NaN: only then, or with
		// a NaN first two, is there one to find.
		if p.nanErr == nil && (pr.Unordered || math.IsNaN(tp[0]) || math.IsNaN(tp[1])) {
			if j := slices.IndexFunc(tp, math.IsNaN); j >= 0 {
				p.nanErr = &NaNTimePointError{ID: c.run.ID(i), Index: i, Point: j}
			}
		}
		c.Requests[i] = pr
		if visit != nil {
			visit(i, tp, intervals)
		}
	}
}

// Finish takes the derived parts' NaN time points: the first in trace
// order is NaNErr.
func (c *Calc) Finish(parts []Part) {
	for _, p := range parts {
		if p.nanErr != nil {
			c.NaNErr = p.nanErr
			return
		}
	}
}

// Computable says whether AISBench's numbers can be computed: some request
// succeeded and none has a NaN time point.
func (c *Calc) Computable() bool { return len(c.Kept) > 0 && c.NaNErr == nil }

// stageErr is why neither stage can be computed, nil when they can.
func (c *Calc) stageErr() error {
	switch {
	case len(c.Kept) == 0:
		return ErrAllRequestsFailed
	case c.NaNErr != nil:
		return c.NaNErr
	}
	return nil
}

// Total is DefaultPerfMetricCalculator's stage: every successful request.
func (c *Calc) Total() *StageResult {
	st := &StageResult{Stage: StageTotal}
	if st.Err = c.stageErr(); st.Err != nil {
		return st
	}
	positions := make([]int, len(c.Kept))
	starts := make([]float64, len(c.Kept))
	ends := make([]float64, len(c.Kept))
	for p, i := range c.Kept {
		positions[p] = p
		starts[p], ends[p] = c.Requests[i].Start, c.Requests[i].End
	}
	duration := pyMax(ends) - pyMin(starts)
	c.fill(st, positions, duration, len(c.Flags), len(c.Kept), c.cfg.ExtraStats)
	return st
}

// Stable is StablePerfMetricCalculator's stage: the window (stableWindow,
// on AISBench's walk of the successful requests' starts and ends) and the
// requests that start inside it.
func (c *Calc) Stable() *StageResult {
	st := &StageResult{Stage: StageStable}
	if st.Err = c.stageErr(); st.Err != nil {
		return st
	}
	if c.cfg.NoTimeline != "" {
		st.Err = &NoTimelineError{Reason: c.cfg.NoTimeline}
		return st
	}
	if c.cfg.MaxConcurrency == 0 {
		st.Err = ErrUnknownMaxConcurrency
		return st
	}
	w := c.stableWindow()
	if w.start == nil {
		st.Err = ErrNoStableStage
		return st
	}
	first, last := w.start.Time, w.end.Time
	var positions []int
	for p, i := range c.Kept {
		if s := c.Requests[i].Start; first <= s && s <= last {
			positions = append(positions, p)
		}
	}
	if len(positions) == 0 {
		st.Err = ErrNoStableStage
		return st
	}
	st.Window = &Window{
		StartSeconds: first, EndSeconds: last, DurationSeconds: last - first,
		OffsetSeconds: c.minStart(), Selected: len(positions), Of: len(c.Kept), Positions: positions,
	}
	st.Quirk = c.quirk(positions)
	c.fill(st, positions, last-first, len(positions), st.Quirk.AISBenchSuccess, c.cfg.ExtraStats)
	return st
}

// quirk is the failure-index quirk of a selection: AISBench looks up the
// success flags of the full request list at positions among the successes.
func (c *Calc) quirk(positions []int) FailureIndexQuirk {
	aisSuccess := 0
	for _, p := range positions {
		if c.Flags[p] {
			aisSuccess++
		}
	}
	return FailureIndexQuirk{
		Changed:       aisSuccess != len(positions),
		IntendedTotal: len(positions), IntendedSuccess: len(positions),
		AISBenchTotal: len(positions), AISBenchSuccess: aisSuccess, AISBenchFailed: len(positions) - aisSuccess,
	}
}

// stageValues are a stage's per-request values and what it pools.
type stageValues struct {
	e2el, ttft, tpot, inputs, outputs, speed, prefill []float64
	itl                                               samples.Pool // the intervals, each request's where it lies
	firstNonzero, haveIntervals                       bool
	decodeCount                                       int // requests with a nonzero interval: TPOT's and ITL's N
	totalInput, totalOutput                           int64
}

// values derives the per-request values of the successful requests at
// positions (their token counts known).
func (c *Calc) values(positions []int) *stageValues {
	n := len(positions)
	v := &stageValues{e2el: make([]float64, n), ttft: make([]float64, n), tpot: make([]float64, n),
		inputs: make([]float64, n), outputs: make([]float64, n), speed: make([]float64, n), prefill: make([]float64, n),
		itl: make(samples.Pool, 0, n)}
	for k, p := range positions {
		i := c.Kept[p]
		r := &c.Requests[i]
		in, out := *c.run.InputTokens(i), *c.run.OutputTokens(i)
		v.e2el[k], v.ttft[k] = r.Latency, r.TTFT
		v.tpot[k] = TPOT(r.Latency, r.TTFT, out)
		v.inputs[k], v.outputs[k] = float64(in), float64(out)
		v.speed[k] = OutputTokenThroughput(out, r.Latency)
		v.prefill[k] = PrefillTokenThroughput(in, r.TTFT)
		if r.Intervals > 0 {
			if !v.haveIntervals {
				v.firstNonzero, v.haveIntervals = r.Nonzero(), true
			}
			v.itl = append(v.itl, c.run.Intervals(i))
		}
		if r.Nonzero() {
			v.decodeCount++
		}
		v.totalInput += in
		v.totalOutput += out
	}
	return v
}

// fill computes a stage's metrics and common metrics over the successful
// requests at positions, as BasePerfMetricCalculator does, with AISBench's
// request and success counts (dataCount, successCount), and each metric's
// Extra statistics of extraStats.
func (c *Calc) fill(st *StageResult, positions []int, duration float64, dataCount, successCount int, extraStats []string) {
	st.DurationSeconds = duration
	st.Requests = make([]int, len(positions))
	for k, p := range positions {
		st.Requests[k] = c.Kept[p]
	}
	if err := joinErrors(c.unknownTokens("output", st.Requests, c.run.OutputTokens),
		c.unknownTokens("input", st.Requests, c.run.InputTokens)); err != nil {
		st.Err = err
		return
	}
	v := c.values(positions)
	c.metrics(st, v, successCount, extraStats)
	c.common(st, v, duration, dataCount, successCount)
}

// metrics computes the stage's metric rows, leaving out those AISBench removes.
func (c *Calc) metrics(st *StageResult, v *stageValues, successCount int, extraStats []string) {
	// A row's values are kept in the result (metric.Result.Values) but for
	// ITL's, as long as the trace: its pool.
	type row struct {
		name   metric.Metric
		values []float64
		pooled samples.Pool
	}
	rows := []row{{metric.E2EL, v.e2el, nil}, {metric.TTFT, v.ttft, nil}, {metric.TPOT, v.tpot, nil}}
	switch {
	case !v.haveIntervals:
		st.Removed = append(st.Removed, metric.Removed{Name: metric.ITL, Reason: "no request has an inter-token interval (every request has at most 2 time points)"})
	case !v.firstNonzero:
		st.Removed = append(st.Removed, metric.Removed{Name: metric.ITL, Reason: "the first request with intervals has only zero intervals"})
	default:
		rows = append(rows, row{metric.ITL, nil, v.itl})
	}
	rows = append(rows, row{metric.InputTokens, v.inputs, nil}, row{metric.OutputTokens, v.outputs, nil},
		row{metric.OutputTokenThroughput, v.speed, nil}, row{metric.PrefillTokenThroughput, v.prefill, nil})
	// TTFT and TPOT go when Python's sum of them is 0 (math.isclose(s, 0) is
	// equality); TTFT takes PrefillTokenThroughput with it.
	drop := map[metric.Metric]bool{}
	if pynum.PySum(v.ttft) == 0 {
		drop[metric.TTFT], drop[metric.PrefillTokenThroughput] = true, true
		st.Removed = append(st.Removed, metric.Removed{Name: metric.TTFT, Reason: "every TTFT is 0"},
			metric.Removed{Name: metric.PrefillTokenThroughput, Reason: "removed with TTFT"})
	}
	if pynum.PySum(v.tpot) == 0 {
		drop[metric.TPOT] = true
		st.Removed = append(st.Removed, metric.Removed{Name: metric.TPOT, Reason: "every TPOT is 0 (no request has more than one output token)"})
	}
	for _, r := range rows {
		if drop[r.name] {
			continue
		}
		pool := r.pooled
		if pool == nil {
			pool = samples.PoolOf(r.values)
		}
		m := metric.Result{Name: r.name, Unit: r.name.Unit(), Values: r.values, Samples: pool.Len(), N: successCount}
		if r.name == metric.TPOT || r.name == metric.ITL {
			m.N = v.decodeCount
		}
		if r.name == metric.ITL && c.cfg.KeepITLSamples {
			m.Values = pool.Gather()
		}
		// AISBench's columns and the others asked for (Extra) from one set
		// of passes over the samples.
		all := samples.Statistics(slices.Concat(c.stats, extraStats), pool)
		m.Stats = all[:len(c.stats):len(c.stats)]
		if len(extraStats) > 0 {
			m.Extra = all[len(c.stats):]
		}
		st.Metrics = append(st.Metrics, m)
	}
	slices.SortStableFunc(st.Removed, func(a, b metric.Removed) int {
		return slices.Index(metric.AISBench, a.Name) - slices.Index(metric.AISBench, b.Name)
	})
}

// common computes the stage's entries of <ds>.json.
func (c *Calc) common(st *StageResult, v *stageValues, duration float64, dataCount, successCount int) {
	cm := &st.Common
	cm.BenchmarkDurationMs = pynum.NumpyRound(duration*1000, 4)
	cm.TotalRequests = dataCount
	cm.FailedRequests = dataCount - successCount
	cm.SuccessRequests = successCount
	concurrency := pynum.PySum(v.e2el) / duration
	cm.Concurrency = Value{Raw: concurrency, Rounded: pynum.NumpyRound(concurrency, 4)}
	// Stable prints min(round(x, 4), C): the int C only when C is strictly smaller.
	cm.ConcurrencyCapped = st.Stage == StageStable && float64(c.cfg.MaxConcurrency) < cm.Concurrency.Rounded
	cm.MaxConcurrency = c.cfg.MaxConcurrency
	rate := float64(successCount) / duration
	cm.RequestThroughput = Value{Raw: rate, Rounded: pynum.NumpyRound(rate, 4)}
	cm.TotalInputTokens = v.totalInput
	cm.TotalGeneratedTokens = v.totalOutput
	if duration > 0 {
		cm.HasTokenThroughput = true
		in := float64(v.totalInput) / duration
		out := float64(v.totalOutput) / duration
		all := float64(v.totalInput+v.totalOutput) / duration
		cm.InputTokenThroughput = Value{in, pynum.NumpyRound(in, 4)}
		cm.OutputTokenThroughput = Value{out, pynum.NumpyRound(out, 4)}
		cm.TotalTokenThroughput = Value{all, pynum.NumpyRound(all, 4)}
	}
}

// unknownTokens reports the requests (trace indices) whose count AISBench
// would take from its tokenizer: missing, or 0 (AISBench's loader turns a
// falsy 0 into None).
func (c *Calc) unknownTokens(kind string, requests []int, count func(int) *int64) error {
	e := &UnknownTokensError{Kind: kind}
	for _, i := range requests {
		switch v := count(i); {
		case v == nil:
			e.Missing++
		case *v == 0:
			e.Zero++
		default:
			continue
		}
		e.IDs = append(e.IDs, c.run.ID(i))
	}
	if e.Missing+e.Zero == 0 {
		return nil
	}
	return e
}

// pyMax and pyMin are Python's max() and min() on a non-empty list without NaN.
func pyMax(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs[1:] {
		if x > m {
			m = x
		}
	}
	return m
}

func pyMin(xs []float64) float64 {
	m := xs[0]
	for _, x := range xs[1:] {
		if x < m {
			m = x
		}
	}
	return m
}

func (c *Calc) minStart() float64 {
	m := c.Requests[c.Kept[0]].Start
	for _, i := range c.Kept[1:] {
		if s := c.Requests[i].Start; s < m {
			m = s
		}
	}
	return m
}

// Compute is AISBench's result of a run alone, without sseaudit's figures:
// what `audit whatif` and the tests need. The parts are derived in
// parallel, the stages one after the other.
func Compute(r *run.Run, cfg Config) (*Result, error) {
	c, err := New(r, cfg)
	if err != nil {
		return nil, err
	}
	parts := c.Parts()
	tasks := make([]func(), len(parts))
	for k := range parts {
		tasks[k] = func() { c.Derive(&parts[k], nil) }
	}
	parallel.Do(tasks...)
	c.Finish(parts)
	res := c.Result()
	res.Total, res.Stable = c.Total(), c.Stable()
	if c.Computable() && cfg.MaxConcurrency > 0 {
		res.Window = c.AnalyzeWindow(res.Stable)
	}
	return res, nil
}

// Result is the run's result before its stages: C, the statistics columns
// with AISBench's warnings, the request counts (once derived).
func (c *Calc) Result() *Result {
	_, warnings := ValidateStats(c.cfg.Stats)
	return &Result{MaxConcurrency: c.cfg.MaxConcurrency, NoTimeline: c.cfg.NoTimeline, Stats: c.stats, StatsWarnings: warnings,
		Requests: RequestCounts{Added: c.run.Len(), Succeeded: len(c.Kept), Failed: c.run.Len() - len(c.Kept), TooFewTimePoints: c.TooFewTimePoints}}
}
