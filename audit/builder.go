package audit

import (
	"fmt"
	"math"
	"runtime"
	"slices"
)

// RequestRecord is one request as AISBench's summarizer sees it.
type RequestRecord struct {
	ID           string
	Success      bool
	TimePoints   []float64 // seconds, t0 first (AISBench's time_points)
	InputTokens  *int64    // nil = unknown
	OutputTokens *int64    // nil = unknown
	// Events are the recorded events behind TimePoints[1:], one each; nil
	// when unknown (traces of time_points_s, failed requests).
	Events []EventRecord
	// Spec is what a spec-compliant SSE client saw in the same bytes, and the
	// framing constructs AISBench's client mishandles; nil when not replayed
	// with the sse framer (RecordFromReplays sets it).
	Spec *SpecView
}

// Config configures a Builder.
type Config struct {
	// MaxConcurrency is the configured max concurrency C (AISBench's batch_size);
	// 0 = unknown.
	MaxConcurrency int
	// Stats are the statistics columns; nil means AISBench's DefaultStats.
	// AISBench's table keeps the names it accepts; sseaudit's section computes
	// every name ParseStatistic accepts (P99.9 too).
	Stats []string
	// SLOs are the objectives whose attainment each stage reports.
	SLOs []SLO
	// Thresholds tune the findings; zero fields take DefaultThresholds'.
	Thresholds Thresholds
}

// Builder accumulates requests in trace order; Finalize computes the report.
type Builder struct {
	cfg      Config
	requests []storedRecord
	steps    stepSlabs // where the packed time points go
}

// storedRecord is a RequestRecord as the Builder keeps it until Finalize: the
// same fields, the time points packed where they allow and each event
// reduced to what Finalize reads (storedEvent).
type storedRecord struct {
	ID      string
	Success bool
	// The time points, exactly as added (timePoints decodes them): in 4 bytes
	// each when they pack (packTimePoints), else as they came.
	packed  bool
	t0Ns    int64    // packed: t0 in nanoseconds
	stepsNs []uint32 // packed: the nanoseconds from each point to the next
	// stepsOwner is the owner of stepsNs's memory when it is mapped outside
	// the Go heap (stepSlabs), else nil. Every read of stepsNs is in a
	// method that keeps the record, and so the memory, alive to its end.
	stepsOwner   *slabOwner
	seconds      []float64 // not packed: the points
	InputTokens  *int64
	OutputTokens *int64
	Events       storedEvents
	Tokens       storedTokens // the events' token counts
	Spec         *SpecView
}

// packTimePoints packs time points that are SecondsFromNanos of whole
// nanoseconds (as replay makes them from arrival times), never decreasing,
// no step longer than 2^32-1 ns (4.3 s): t0 in nanoseconds and 4 bytes a
// step, which decode to the same float64 values bit for bit (each point is
// checked), into dst's memory (its capacity at least len(tp)-1). ok is
// false for any other list, NaN, -0 or an empty one.
func packTimePoints(tp []float64, dst []uint32) (t0Ns int64, stepsNs []uint32, ok bool) {
	var prev int64
	for i, t := range tp {
		if !(math.Abs(t) < 9e9) { // t*1e9 within int64
			return 0, nil, false
		}
		ns := int64(math.Round(t * 1e9))
		if math.Float64bits(SecondsFromNanos(ns)) != math.Float64bits(t) {
			return 0, nil, false
		}
		if i == 0 {
			t0Ns, stepsNs = ns, dst[:len(tp)-1]
		} else {
			step := ns - prev
			if step < 0 || step > math.MaxUint32 {
				return 0, nil, false
			}
			stepsNs[i-1] = uint32(step)
		}
		prev = ns
	}
	return t0Ns, stepsNs, len(tp) > 0
}

// points is the number of time points.
func (r *storedRecord) points() int {
	if r.packed {
		return len(r.stepsNs) + 1
	}
	return len(r.seconds)
}

// timePoints are the time points as added, decoded into buf's memory (buf
// is reused, never the record's own), as AISBench's arithmetic reads them.
func (r *storedRecord) timePoints(buf []float64) []float64 {
	if !r.packed {
		return append(buf[:0], r.seconds...)
	}
	ns := r.t0Ns
	buf = append(buf[:0], SecondsFromNanos(ns))
	for _, step := range r.stepsNs {
		ns += int64(step)
		buf = append(buf, SecondsFromNanos(ns))
	}
	runtime.KeepAlive(r.stepsOwner)
	return buf
}

// tokens is the token count of event i (EventRecord.Tokens).
func (r *storedRecord) tokens(i int) int64 {
	return r.Tokens.at(i)
}

// NewBuilder returns an empty Builder.
func NewBuilder(cfg Config) *Builder {
	cfg.Stats = slices.Clone(cfg.Stats)
	cfg.SLOs = slices.Clone(cfg.SLOs)
	return &Builder{cfg: cfg}
}

// Add records one request. Requests must come in trace order (AISBench's
// details order); the record is copied.
func (b *Builder) Add(rec RequestRecord) {
	st := storedRecord{ID: rec.ID, Success: rec.Success, Events: storeEvents(rec.Events)}
	n := max(len(rec.TimePoints)-1, 0)
	free, owner := b.steps.free(n)
	if st.t0Ns, st.stepsNs, st.packed = packTimePoints(rec.TimePoints, free); st.packed {
		st.stepsNs, st.stepsOwner = st.stepsNs[:n:n], owner
		b.steps.commit(n)
	} else {
		st.seconds = slices.Clone(rec.TimePoints)
	}
	st.Tokens = storeTokens(rec.Events)
	if rec.Spec != nil {
		v := *rec.Spec
		st.Spec = &v
	}
	if rec.InputTokens != nil {
		v := *rec.InputTokens
		st.InputTokens = &v
	}
	if rec.OutputTokens != nil {
		v := *rec.OutputTokens
		st.OutputTokens = &v
	}
	b.requests = append(b.requests, st)
}

// perRequest is what _calc_perf_data derives from a successful request's time
// points; token-dependent values are derived per stage, once counts are
// checked, and the intervals are the request's facts'.
type perRequest struct {
	trace   int // index in trace order
	start   float64
	end     float64
	latency float64
	ttft    float64
}

// Finalize computes both stages. Its error is for an unusable configuration
// only; a stage AISBench cannot compute carries its error in StageResult.Err.
func (b *Builder) Finalize() (*Report, error) {
	if b.cfg.MaxConcurrency < 0 {
		return nil, fmt.Errorf("audit: max concurrency %d is negative", b.cfg.MaxConcurrency)
	}
	stats, warnings := ValidateStats(b.cfg.Stats)
	rep := &Report{MaxConcurrency: b.cfg.MaxConcurrency, Stats: stats, StatsWarnings: warnings,
		AllStats: allStats(b.cfg.Stats), Thresholds: b.cfg.Thresholds.withDefaults()}

	// AISBench keeps the success flag of every request, and every other field
	// for successful requests only: two lists of different lengths.
	successFlags := make([]bool, len(b.requests))
	// Each request's place among the successes is known first, so that
	// parts of the requests are derived at once, parts of about as many
	// intervals.
	intervals, succeeded := 0, 0
	for i := range b.requests {
		rec := &b.requests[i]
		successFlags[i] = rec.Success && rec.points() >= 2
		if rec.Success && !successFlags[i] {
			rep.Requests.TooFewTimePoints++
		}
		if successFlags[i] {
			succeeded++
			intervals += rec.points() - 2
		}
	}
	successes := make([]perRequest, succeeded)
	// sseaudit's per-request facts, from the same time points.
	facts := make([]requestFacts, len(b.requests))
	parts := b.requestParts(successFlags, intervals)
	tasks := make([]func(), len(parts))
	for k := range parts {
		tasks[k] = func() { b.derive(&parts[k], successFlags, successes, facts) }
	}
	inParallel(tasks...)
	var nanErr error // the first in trace order
	for _, p := range parts {
		if nanErr = p.nanErr; nanErr != nil {
			break
		}
	}
	rep.Requests.Added = len(b.requests)
	rep.Requests.Succeeded = len(successes)
	rep.Requests.Failed = len(b.requests) - len(successes)

	c := stageCalc{stats: stats, maxConcurrency: b.cfg.MaxConcurrency, successFlags: successFlags, successes: successes, requests: b.requests, facts: facts}
	for _, s := range rep.AllStats {
		if !rep.InAISBenchTable(s) {
			c.extraStats = append(c.extraStats, s)
		}
	}
	rep.Total = &StageResult{Stage: StageTotal}
	rep.Stable = &StageResult{Stage: StageStable}
	computable := false
	switch {
	case len(successes) == 0:
		rep.Total.Err = ErrAllRequestsFailed
		rep.Stable.Err = ErrAllRequestsFailed
	case nanErr != nil:
		rep.Total.Err = nanErr
		rep.Stable.Err = nanErr
	default:
		computable = true
	}
	var kept []int
	for i, ok := range successFlags {
		if ok {
			kept = append(kept, i)
		}
	}
	// No figure of a run with a NaN time point.
	withFigures := nanErr == nil && len(kept) > 0
	// The two stages, the window analysis and the figures' distributions
	// read the requests and write only their own results: they run at once,
	// each computed as it would be alone.
	var walked []walkEvent // AISBench's walk of starts and ends, shared
	var distributions [2]*DistributionPair
	inParallel(
		func() {
			if computable {
				c.total(rep.Total)
			}
			b.sseStage(rep, rep.Total, facts)
			if withFigures {
				distributions[0] = distributionPair(rep.Total, facts)
			}
		},
		func() {
			if computable {
				walked = c.walk()
				c.stable(rep.Stable, walked)
			}
			inParallel(
				func() {
					b.sseStage(rep, rep.Stable, facts)
					if withFigures {
						distributions[1] = distributionPair(rep.Stable, facts)
					}
				},
				func() { b.windowed(rep.Stable, kept) },
				func() {
					if computable && c.maxConcurrency > 0 {
						c.analyzeWindow(rep, walked)
					}
				})
		})
	rep.Findings = b.findings(rep, facts, kept)
	if withFigures {
		rep.Figures = b.figures(rep, facts, kept, walked, distributions)
	}
	return rep, nil
}

// requestPart is a run of requests, [from, to), whose per-request values
// derive computes, and where its successes go: from successes[success] on.
type requestPart struct {
	from, to int
	success  int
	nanErr   error // the part's first NaN time point
}

// requestParts cuts the requests into a part per GOMAXPROCS at most, of
// about as many intervals each.
func (b *Builder) requestParts(successFlags []bool, intervals int) []requestPart {
	n := runtime.GOMAXPROCS(0)
	parts := []requestPart{{}}
	success, offset := 0, 0
	for i := range b.requests {
		if last := &parts[len(parts)-1]; len(parts) < n && i > last.from && offset*n >= len(parts)*intervals {
			last.to = i
			parts = append(parts, requestPart{from: i, success: success})
		}
		if successFlags[i] {
			success++
			offset += b.requests[i].points() - 2
		}
	}
	parts[len(parts)-1].to = len(b.requests)
	return parts
}

// derive computes, for the successful requests of part p, what
// _calc_perf_data derives (successes) and sseaudit's facts, and notes p's
// first NaN time point.
func (b *Builder) derive(p *requestPart, successFlags []bool, successes []perRequest, facts []requestFacts) {
	var tp, intervals []float64
	var decoded []storedEvent
	success := p.success
	for i := p.from; i < p.to; i++ {
		if !successFlags[i] {
			continue
		}
		rec := &b.requests[i]
		tp = rec.timePoints(tp)
		if p.nanErr == nil {
			if j := slices.IndexFunc(tp, math.IsNaN); j >= 0 {
				p.nanErr = &NaNTimePointError{ID: rec.ID, Index: i, Point: j}
			}
		}
		pr := perRequest{
			trace: i,
			start: tp[0], end: tp[len(tp)-1],
			latency: tp[len(tp)-1] - tp[0],
			ttft:    tp[1] - tp[0],
		}
		intervals = intervals[:0]
		for j := 2; j < len(tp); j++ {
			intervals = append(intervals, tp[j]-tp[j-1])
		}
		successes[success] = pr
		success++
		evs := rec.Events.decode(&decoded)
		facts[i] = factsOf(rec, tp, intervals, evs)
	}
}

type stageCalc struct {
	stats          []string
	maxConcurrency int
	successFlags   []bool // every request, trace order
	successes      []perRequest
	requests       []storedRecord // every request, trace order
	facts          []requestFacts // every request, trace order
	// extraStats are the statistics asked for beyond AISBench's columns:
	// each metric's Extra.
	extraStats []string
}

// total is DefaultPerfMetricCalculator: every successful request.
func (c *stageCalc) total(st *StageResult) {
	positions := make([]int, len(c.successes))
	starts := make([]float64, len(c.successes))
	ends := make([]float64, len(c.successes))
	for i, r := range c.successes {
		positions[i] = i
		starts[i], ends[i] = r.start, r.end
	}
	duration := pyMax(ends) - pyMin(starts)
	success := 0
	for _, ok := range c.successFlags {
		if ok {
			success++
		}
	}
	c.fill(st, positions, duration, len(c.successFlags), success, c.extraStats)
}

// stable is StablePerfMetricCalculator: the window and its requests, found
// on AISBench's walk of the successful requests' starts and ends (walk).
func (c *stageCalc) stable(st *StageResult, events []walkEvent) {
	if c.maxConcurrency == 0 {
		st.Err = ErrUnknownMaxConcurrency
		return
	}
	starts := make([]float64, len(c.successes))
	for i, r := range c.successes {
		starts[i] = r.start
	}
	var first, last float64
	found := false
	inFlight, reachedAtStart := 0, 0
	for _, e := range events {
		if e.start {
			inFlight++
		} else {
			inFlight--
		}
		if inFlight == c.maxConcurrency {
			if e.start {
				reachedAtStart++
				if reachedAtStart == 2 { // the first reach is warm-up
					first, found = e.time, true
				}
			}
			last = e.time
		}
	}
	if !found {
		st.Err = ErrNoStableStage
		return
	}
	var positions []int
	for i, s := range starts {
		if first <= s && s <= last {
			positions = append(positions, i)
		}
	}
	if len(positions) == 0 {
		st.Err = ErrNoStableStage
		return
	}
	st.Window = &Window{
		StartSeconds: first, EndSeconds: last, DurationSeconds: last - first,
		OffsetSeconds: pyMin(starts),
		Selected:      len(positions), Of: len(c.successes), Positions: positions,
	}
	// The quirk: success flags of the full list at success-list positions.
	aisSuccess := 0
	for _, p := range positions {
		if c.successFlags[p] {
			aisSuccess++
		}
	}
	st.Quirk = FailureIndexQuirk{
		Changed:       aisSuccess != len(positions),
		IntendedTotal: len(positions), IntendedSuccess: len(positions),
		AISBenchTotal: len(positions), AISBenchSuccess: aisSuccess, AISBenchFailed: len(positions) - aisSuccess,
	}
	c.fill(st, positions, last-first, len(positions), aisSuccess, c.extraStats)
}

// fill computes a stage's metrics and common metrics over the successful
// requests at positions, as BasePerfMetricCalculator does, with AISBench's
// request and success counts (dataCount, successCount), and each metric's
// Extra statistics of extraStats.
func (c *stageCalc) fill(st *StageResult, positions []int, duration float64, dataCount, successCount int, extraStats []string) {
	st.DurationSeconds = duration
	st.Requests = make([]int, len(positions))
	for i, p := range positions {
		st.Requests[i] = c.successes[p].trace
	}
	if err := joinErrors(c.unknownTokens("output", st.Requests, func(r *storedRecord) *int64 { return r.OutputTokens }),
		c.unknownTokens("input", st.Requests, func(r *storedRecord) *int64 { return r.InputTokens })); err != nil {
		st.Err = err
		return
	}

	n := len(positions)
	e2el := make([]float64, n)
	ttft := make([]float64, n)
	tpot := make([]float64, n)
	inputs := make([]float64, n)
	outputs := make([]float64, n)
	speed := make([]float64, n)
	prefill := make([]float64, n)
	itl := make(pool, 0, n) // the intervals, each request's where it lies
	firstNonzero, haveIntervals := false, false
	decodeCount := 0
	var totalInput, totalOutput int64
	for i, p := range positions {
		r := &c.successes[p]
		rec := &c.requests[r.trace]
		in, out := *rec.InputTokens, *rec.OutputTokens
		e2el[i] = r.latency
		ttft[i] = r.ttft
		if out > 1 {
			tpot[i] = (r.latency - r.ttft) / float64(out-1)
		}
		inputs[i], outputs[i] = float64(in), float64(out)
		speed[i] = float64(out) / r.latency
		// Python: `if ttft and ttft > 0` (NaN is truthy but not > 0).
		if r.ttft > 0 {
			prefill[i] = float64(in) / r.ttft
		}
		f := &c.facts[r.trace]
		intervals := f.intervals()
		nonzero := intervals.len() > f.zeroIntervals // numpy's .any(): a nonzero or NaN interval
		if intervals.len() > 0 {
			if !haveIntervals {
				firstNonzero, haveIntervals = nonzero, true
			}
			itl = append(itl, intervals)
		}
		if nonzero {
			decodeCount++
		}
		totalInput += in
		totalOutput += out
	}

	// A row's values are kept in the report (MetricResult.Values) but for
	// ITL's, as long as the trace: its pool.
	type row struct {
		name   Metric
		values []float64
		pooled pool
	}
	rows := []row{{MetricE2EL, e2el, nil}, {MetricTTFT, ttft, nil}, {MetricTPOT, tpot, nil}}
	switch {
	case !haveIntervals:
		st.Removed = append(st.Removed, RemovedMetric{MetricITL, "no request has an inter-token interval (every request has at most 2 time points)"})
	case !firstNonzero:
		st.Removed = append(st.Removed, RemovedMetric{MetricITL, "the first request with intervals has only zero intervals"})
	default:
		rows = append(rows, row{MetricITL, nil, itl})
	}
	rows = append(rows, row{MetricInputTokens, inputs, nil}, row{MetricOutputTokens, outputs, nil},
		row{MetricOutputTokenThroughput, speed, nil}, row{MetricPrefillTokenThroughput, prefill, nil})
	// TTFT and TPOT go when Python's sum of them is 0 (math.isclose(s, 0) is
	// equality); TTFT takes PrefillTokenThroughput with it.
	drop := map[Metric]bool{}
	if PySum(ttft) == 0 {
		drop[MetricTTFT], drop[MetricPrefillTokenThroughput] = true, true
		st.Removed = append(st.Removed, RemovedMetric{MetricTTFT, "every TTFT is 0"},
			RemovedMetric{MetricPrefillTokenThroughput, "removed with TTFT"})
	}
	if PySum(tpot) == 0 {
		drop[MetricTPOT] = true
		st.Removed = append(st.Removed, RemovedMetric{MetricTPOT, "every TPOT is 0 (no request has more than one output token)"})
	}
	for _, r := range rows {
		if drop[r.name] {
			continue
		}
		samples := r.pooled
		if samples == nil {
			samples = poolOf(r.values)
		}
		m := MetricResult{Name: r.name, Unit: r.name.Unit(), Values: r.values, Samples: samples.len(), N: successCount, pooled: r.pooled}
		if r.name == MetricTPOT || r.name == MetricITL {
			m.N = decodeCount
		}
		// AISBench's columns and the others asked for (Extra) from one set
		// of passes over the samples.
		all := statistics(slices.Concat(c.stats, extraStats), samples)
		m.Stats = all[:len(c.stats):len(c.stats)]
		if len(extraStats) > 0 {
			m.Extra = all[len(c.stats):]
		}
		st.Metrics = append(st.Metrics, m)
	}
	slices.SortStableFunc(st.Removed, func(a, b RemovedMetric) int {
		return slices.Index(Metrics, a.Name) - slices.Index(Metrics, b.Name)
	})

	cm := &st.Common
	cm.BenchmarkDurationMs = NumpyRound(duration*1000, 4)
	cm.TotalRequests = dataCount
	cm.FailedRequests = dataCount - successCount
	cm.SuccessRequests = successCount
	concurrency := PySum(e2el) / duration
	cm.Concurrency = Value{Raw: concurrency, Rounded: NumpyRound(concurrency, 4)}
	// Stable prints min(round(x, 4), C): the int C only when C is strictly smaller.
	cm.ConcurrencyCapped = st.Stage == StageStable && float64(c.maxConcurrency) < cm.Concurrency.Rounded
	cm.MaxConcurrency = c.maxConcurrency
	rate := float64(successCount) / duration
	cm.RequestThroughput = Value{Raw: rate, Rounded: NumpyRound(rate, 4)}
	cm.TotalInputTokens = totalInput
	cm.TotalGeneratedTokens = totalOutput
	if duration > 0 {
		cm.HasTokenThroughput = true
		in := float64(totalInput) / duration
		out := float64(totalOutput) / duration
		all := float64(totalInput+totalOutput) / duration
		cm.InputTokenThroughput = Value{in, NumpyRound(in, 4)}
		cm.OutputTokenThroughput = Value{out, NumpyRound(out, 4)}
		cm.TotalTokenThroughput = Value{all, NumpyRound(all, 4)}
	}
}

// unknownTokens reports the requests (trace indices) whose count AISBench
// would take from its tokenizer: missing, or 0 (AISBench's loader turns a
// falsy 0 into None).
func (c *stageCalc) unknownTokens(kind string, requests []int, count func(*storedRecord) *int64) error {
	e := &UnknownTokensError{Kind: kind}
	for _, idx := range requests {
		r := &c.requests[idx]
		switch v := count(r); {
		case v == nil:
			e.Missing++
		case *v == 0:
			e.Zero++
		default:
			continue
		}
		e.IDs = append(e.IDs, r.ID)
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
