package audit

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/sseaudit/sseaudit/replay"
)

// sseaudit's own metrics: they stand beside AISBench's, under their own names,
// and never replace them.
const (
	// MetricContentUpdateInterval: gaps between consecutive recorded events
	// carrying non-empty delta.content, pooled across requests like ITL.
	MetricContentUpdateInterval Metric = "ContentUpdateInterval"
	// MetricTextUpdateInterval: the same with content or reasoning text.
	MetricTextUpdateInterval Metric = "TextUpdateInterval"
	// MetricTTFContent: request send (t0) to the first content event.
	MetricTTFContent Metric = "TTFContent"
	// MetricTTFText: t0 to the first content or reasoning event.
	MetricTTFText Metric = "TTFText"
	// MetricTokensPerEvent: output tokens each text or tool-call event carries,
	// where the stream says so itself (continuous usage deltas, logprob entries).
	MetricTokensPerEvent Metric = "TokensPerEvent"
	// MetricWindowedOutputThroughput: output produced inside the stable window
	// divided by its length (a single value, see WindowedThroughput).
	MetricWindowedOutputThroughput Metric = "WindowedOutputThroughput"
)

// SSEMetrics lists sseaudit's distribution metrics in report order.
var SSEMetrics = []Metric{
	MetricContentUpdateInterval, MetricTextUpdateInterval, MetricTTFContent, MetricTTFText, MetricTokensPerEvent,
}

// UnitTokensPerEvent is the unit of TokensPerEvent.
const UnitTokensPerEvent Unit = "token/event"

// ParseStatistic says whether sseaudit can compute a statistic from raw
// samples, and which percentile it is (-1 for Average, Min and Max): AISBench's
// names, and any Pnn or Pnn.n from P0 to P100 (P99.9, P99.99).
func ParseStatistic(name string) (percent float64, ok bool) {
	if p, ok := statPercent(name); ok {
		return float64(p), true
	}
	rest, found := strings.CutPrefix(name, "P")
	if !found || rest == "" || strings.Trim(rest, "0123456789.") != "" || strings.Count(rest, ".") > 1 ||
		rest[0] == '.' || rest[len(rest)-1] == '.' {
		return 0, false
	}
	p, err := strconv.ParseFloat(rest, 64)
	if err != nil || p < 0 || p > 100 {
		return 0, false
	}
	return p, true
}

// allStats is the statistics list of sseaudit's section: every requested
// name sseaudit can compute, in order, without duplicates (AISBench's default
// when none was requested).
func allStats(requested []string) []string {
	if len(requested) == 0 {
		return slices.Clone(DefaultStats)
	}
	var out []string
	for _, s := range requested {
		if _, ok := ParseStatistic(s); ok && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		out = []string{"Average"}
	}
	return out
}

// InAISBenchTable says whether a statistic is one of the columns AISBench
// prints for this report.
func (r *Report) InAISBenchTable(stat string) bool { return slices.Contains(r.Stats, stat) }

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
	Metric    Metric
	Op        string  // "<", "<=", ">" or ">="
	Threshold float64 // in the metric's Unit (seconds for times)
}

// sloMetrics are the per-request metrics an SLO may name.
var sloMetrics = []Metric{MetricE2EL, MetricTTFT, MetricTPOT, MetricOutputTokenThroughput, MetricPrefillTokenThroughput, MetricTTFContent, MetricTTFText}

// ParseSLO parses "METRIC OP VALUE[UNIT]": TPOT<20ms, TTFT<=2s, E2EL<1500ms,
// OutputTokenThroughput>=30. Times need a unit (us, ms, s); rates are token/s.
func ParseSLO(text string) (SLO, error) {
	s := strings.ReplaceAll(text, " ", "")
	i := strings.IndexAny(s, "<>")
	if i <= 0 {
		return SLO{}, fmt.Errorf("audit: SLO %q: want METRIC<VALUE, e.g. TPOT<20ms", text)
	}
	name, rest := s[:i], s[i:]
	op := rest[:1]
	if strings.HasPrefix(rest, "<=") || strings.HasPrefix(rest, ">=") {
		op = rest[:2]
	}
	value := rest[len(op):]
	m := Metric(name)
	if !slices.Contains(sloMetrics, m) {
		if m == MetricITL {
			return SLO{}, fmt.Errorf("audit: SLO %q: ITL is pooled over requests, not a per-request value", text)
		}
		return SLO{}, fmt.Errorf("audit: SLO %q: unknown metric %q (want one of %s)", text, name, joinMetrics(sloMetrics))
	}
	scale := 1.0
	if m.Unit() == UnitSeconds {
		switch {
		case strings.HasSuffix(value, "ms"):
			value, scale = strings.TrimSuffix(value, "ms"), 1e-3
		case strings.HasSuffix(value, "us"):
			value, scale = strings.TrimSuffix(value, "us"), 1e-6
		case strings.HasSuffix(value, "s"):
			value = strings.TrimSuffix(value, "s")
		default:
			return SLO{}, fmt.Errorf("audit: SLO %q: give the time a unit (us, ms or s)", text)
		}
	} else {
		value = strings.TrimSuffix(value, "token/s")
	}
	v, err := strconv.ParseFloat(value, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return SLO{}, fmt.Errorf("audit: SLO %q: %q is not a number", text, value)
	}
	return SLO{Text: text, Metric: m, Op: op, Threshold: v * scale}, nil
}

func joinMetrics(ms []Metric) string {
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
	NativeOutputTokenThroughput *Value
}

// outputEvent says whether an event is output a user sees: text or tool calls.
func outputEvent(e storedEvent) bool { return e.HasText() || e.Class == replay.ClassToolCall }

// eventTokensKnown says whether every output event of a request carries its
// own token count (events without text or tool calls carry none unless they say so).
func eventTokensKnown(rec *storedRecord, evs []storedEvent) bool {
	any := false
	for i, e := range evs {
		if outputEvent(e) {
			if rec.tokens(i) < 0 {
				return false
			}
			any = true
		}
	}
	return any
}

// requestFacts are the per-request values behind sseaudit's metrics.
type requestFacts struct {
	t0, t1, tm float64 // the first, second and last time points
	// rec is the request's stored record, through which its intervals and
	// token counts are read (intervals, tokens); nil for a request not
	// derived (failed).
	rec                   *storedRecord
	contentGaps, textGaps span
	// contentFrom is where contentGaps starts in intervals when it is a
	// piece of them (the content events one run), else -1.
	contentFrom int
	// intervalsMean and contentMean are NumpyMean of intervals and
	// contentGaps, and zeroIntervals the intervals exactly 0, taken once
	// for every stage and figure (the means NaN when empty).
	intervalsMean, contentMean float64
	zeroIntervals              int
	// positiveLo and positiveHi are the least and greatest of the
	// intervals above 0 (+Inf and -Inf when none is): the figures' range.
	positiveLo, positiveHi float64
	ttfContent, ttfText    float64
	// oneInstant: 3 or more time points, all after t0 at one instant.
	oneInstant          bool
	hasContent, hasText bool
	events              bool // Events known
	tokensKnown         bool
	outputEvents        int // output events (outputEvent): TokensPerEvent's samples when tokensKnown
}

// intervals is the request's np.diff(tp[1:]) (empty when not derived).
func (f *requestFacts) intervals() span {
	if f.rec == nil {
		return span{}
	}
	return intervalSpan(f.rec)
}

// tokens is the token counts of the request's output events, as float64:
// its TokensPerEvent samples when tokensKnown.
func (f *requestFacts) tokens() span {
	if f.rec == nil {
		return span{}
	}
	return tokenSpan(f.rec, f.outputEvents)
}

// factsOf derives a request's facts from its time points tp, their
// intervals np.diff(tp[1:]) and its events evs (rec.Events decoded; none
// kept: held is the same intervals as a span of rec). The gap spans are the
// intervals' when every event counts (or a piece of them when the events
// counted are consecutive), text gaps are the content gaps when the same
// events count.
func factsOf(rec *storedRecord, tp []float64, intervals []float64, evs []storedEvent) requestFacts {
	held := intervalSpan(rec)
	f := requestFacts{t0: tp[0], t1: tp[1], tm: tp[len(tp)-1], rec: rec, contentFrom: -1,
		intervalsMean: NumpyMean(intervals), contentMean: math.NaN(),
		positiveLo: math.Inf(1), positiveHi: math.Inf(-1)}
	for _, x := range intervals {
		if x == 0 {
			f.zeroIntervals++
		}
		if x > 0 {
			f.positiveLo, f.positiveHi = min(f.positiveLo, x), max(f.positiveHi, x)
		}
	}
	f.oneInstant = len(tp) >= 3 && !slices.ContainsFunc(tp[2:], func(t float64) bool { return t != tp[1] })
	if evs == nil || len(evs) != len(tp)-1 {
		return f
	}
	f.events = true
	nContent, nText := 0, 0
	for _, e := range evs {
		if e.HasContent() {
			nContent++
		}
		if e.HasText() {
			nText++
		}
	}
	// gaps is np.diff of the time points of the events keep selects (n of
	// them, at least one), the first of those points, where the gaps start
	// in intervals when they are a piece of them (else -1), and their mean.
	gaps := func(n int, keep func(storedEvent) bool) (float64, span, int, float64) {
		if n == len(evs) && len(tp) > 2 {
			return tp[1], held, 0, f.intervalsMean // every event: np.diff(tp[1:]) itself
		}
		if len(tp) > 2 {
			// A contiguous run of events lo..hi: its gaps are intervals[lo:hi]
			// (np.diff of tp[lo+1:hi+2], the same subtractions).
			lo := slices.IndexFunc(evs, keep)
			hi := lo + n - 1
			if hi < len(evs) && !slices.ContainsFunc(evs[lo:hi+1], func(e storedEvent) bool { return !keep(e) }) {
				return tp[lo+1], held.sub(lo, hi), lo, NumpyMean(intervals[lo:hi])
			}
		}
		ts := make([]float64, 0, n)
		for i, e := range evs {
			if keep(e) {
				ts = append(ts, tp[i+1])
			}
		}
		g := NumpyDiff(ts)
		return ts[0], ownSpan(g), -1, NumpyMean(g)
	}
	if nContent > 0 {
		first, g, from, mean := gaps(nContent, storedEvent.HasContent)
		f.hasContent, f.ttfContent, f.contentGaps, f.contentFrom = true, first-tp[0], g, from
		f.contentMean = mean
	}
	if nText > 0 && nText == nContent {
		// Content implies text: the same events, the same gaps (shared).
		f.hasText, f.ttfText, f.textGaps = true, f.ttfContent, f.contentGaps
	} else if nText > 0 {
		first, g, _, _ := gaps(nText, storedEvent.HasText)
		f.hasText, f.ttfText, f.textGaps = true, first-tp[0], g
	}
	if eventTokensKnown(rec, evs) {
		n := 0
		for _, e := range evs {
			if outputEvent(e) {
				n++
			}
		}
		f.tokensKnown, f.outputEvents = true, n
	}
	return f
}

// sseStage computes sseaudit's figures for a stage whose requests are known.
func (b *Builder) sseStage(rep *Report, st *StageResult, facts []requestFacts) {
	if len(st.Requests) == 0 {
		return
	}
	// ITL accounting. The pooled mean is np.mean of the stage's intervals
	// concatenated in its order: the ITL row's Average when it has one,
	// else taken request by request as np.mean adds them.
	itl := st.Metric(MetricITL)
	acc := &ITLAccounting{Requests: len(st.Requests), InAISBenchTable: itl != nil}
	var means, perRequest []float64
	withEvents := 0
	for _, idx := range st.Requests {
		f := &facts[idx]
		n := f.intervals().len()
		perRequest = append(perRequest, float64(n))
		if n > 0 {
			acc.RequestsWithIntervals++
			acc.Intervals += n
			means = append(means, f.intervalsMean)
			acc.ZeroIntervals += f.zeroIntervals
			if f.zeroIntervals > 0 {
				acc.RequestsWithZero++
			}
		}
		if n > f.zeroIntervals { // numpy's .any(): a nonzero or NaN interval
			acc.AISBenchN++
		}
		if f.events {
			withEvents++
		}
	}
	acc.PerRequestMin = NumpyMin(perRequest)
	acc.PerRequestMax = NumpyMax(perRequest)
	acc.PerRequestMedian = NumpyPercentile(perRequest, 50)
	acc.PooledMeanSeconds, acc.PerRequestMeanSeconds = math.NaN(), math.NaN()
	if acc.Intervals > 0 {
		if average, ok := itl.statistic("Average"); ok {
			acc.PooledMeanSeconds = average.Raw
		} else {
			var intervals pool
			for _, idx := range st.Requests {
				intervals = append(intervals, facts[idx].intervals())
			}
			acc.PooledMeanSeconds = intervals.mean()
		}
		acc.PerRequestMeanSeconds = NumpyMean(means)
	}
	st.ITL = acc

	// sseaudit's metrics. A pooled metric's samples stay where they are, in
	// each request's facts (Samples counts them); the per-request ones keep
	// their Values. The content gaps are ITL's values when every request's
	// are its intervals, and ITL's statistics are theirs then; the text gaps
	// are the content gaps, statistics included, when every request's text
	// gaps are its content gaps.
	contentIsITL, textIsContent := itl != nil, true
	for _, idx := range st.Requests {
		f := &facts[idx]
		contentIsITL = contentIsITL && f.contentGaps.same(f.intervals())
		textIsContent = textIsContent && f.textGaps.same(f.contentGaps)
	}
	var contentStats []Statistic
	for _, m := range SSEMetrics {
		perRequestMetric := m == MetricTTFContent || m == MetricTTFText
		samples := make(pool, 0, len(st.Requests))
		n := 0
		for _, idx := range st.Requests {
			if v, ok := sseSamples(m, &facts[idx]); ok {
				n++
				samples = append(samples, v)
			}
		}
		if count := samples.len(); count > 0 {
			mr := MetricResult{Name: m, Unit: m.Unit(), N: n, Samples: count}
			switch {
			case m == MetricContentUpdateInterval && contentIsITL:
				mr.Stats = itl.statisticsNamed(rep.AllStats)
			case m == MetricTextUpdateInterval && textIsContent:
				mr.Stats = slices.Clone(contentStats)
			case perRequestMetric:
				mr.Values = samples.gather()
				mr.Stats = statistics(rep.AllStats, poolOf(mr.Values))
			default:
				mr.Stats = statistics(rep.AllStats, samples)
			}
			if m == MetricContentUpdateInterval {
				contentStats = mr.Stats
			}
			st.SSE = append(st.SSE, mr)
			continue
		}
		var why string
		switch {
		case withEvents == 0:
			why = "the trace holds time points only, no event bodies"
		case m == MetricContentUpdateInterval:
			why = "no request has two content events"
		case m == MetricTextUpdateInterval:
			why = "no request has two content or reasoning events"
		case m == MetricTTFContent:
			why = "no request has a content event"
		case m == MetricTTFText:
			why = "no request has a content or reasoning event"
		default:
			why = "no event carries its own token count (no continuous usage, no logprobs)"
		}
		st.SSEAbsent = append(st.SSEAbsent, RemovedMetric{m, why})
	}

	// SLO attainment.
	for _, slo := range b.cfg.SLOs {
		res := SLOResult{SLO: slo, Denominator: len(st.Requests)}
		for _, idx := range st.Requests {
			v, ok := sloValue(&b.requests[idx], facts[idx], slo.Metric)
			switch {
			case !ok:
				res.Missing++
			case slo.holds(v):
				res.Met++
			}
		}
		res.Fraction = float64(res.Met) / float64(res.Denominator)
		st.SLOs = append(st.SLOs, res)
	}
}

// statisticsNamed are m's statistics (Stats and Extra) of the names, in
// their order; every name is among them.
func (m *MetricResult) statisticsNamed(names []string) []Statistic {
	out := make([]Statistic, len(names))
	for i, name := range names {
		out[i], _ = m.statistic(name)
	}
	return out
}

// sseSamples are a request's samples of one of sseaudit's metrics, and
// whether it has any (a request counts towards N when it has).
func sseSamples(m Metric, f *requestFacts) (span, bool) {
	switch m {
	case MetricContentUpdateInterval:
		return f.contentGaps, f.contentGaps.len() > 0
	case MetricTextUpdateInterval:
		return f.textGaps, f.textGaps.len() > 0
	case MetricTTFContent:
		return ownSpan([]float64{f.ttfContent}), f.hasContent
	case MetricTTFText:
		return ownSpan([]float64{f.ttfText}), f.hasText
	}
	return f.tokens(), f.tokensKnown
}

// sloValue is a request's value of a per-request metric, as AISBench computes
// it (TPOT, throughputs) or as sseaudit defines it (TTFContent, TTFText).
func sloValue(rec *storedRecord, f requestFacts, m Metric) (float64, bool) {
	latency, ttft := f.tm-f.t0, f.t1-f.t0
	out, in := rec.OutputTokens, rec.InputTokens
	switch m {
	case MetricE2EL:
		return latency, true
	case MetricTTFT:
		return ttft, true
	case MetricTPOT:
		if out == nil || *out == 0 {
			return 0, false
		}
		if *out > 1 {
			return (latency - ttft) / float64(*out-1), true
		}
		return 0, true
	case MetricOutputTokenThroughput:
		if out == nil || *out == 0 {
			return 0, false
		}
		return float64(*out) / latency, true
	case MetricPrefillTokenThroughput:
		if in == nil || *in == 0 {
			return 0, false
		}
		if ttft > 0 {
			return float64(*in) / ttft, true
		}
		return 0, true
	case MetricTTFContent:
		return f.ttfContent, f.hasContent
	case MetricTTFText:
		return f.ttfText, f.hasText
	}
	return 0, false
}

// windowed computes WindowedOutputThroughput over every successful request's
// events inside the stable window [start, end].
func (b *Builder) windowed(st *StageResult, kept []int) {
	w := st.Window
	if w == nil {
		return
	}
	wt := &WindowedThroughput{Basis: "tokens", WindowSeconds: w.DurationSeconds}
	var tokens, outputEvents, points int64
	allKnown, allEvents := true, true
	var tp []float64
	var decoded []storedEvent
	for _, idx := range kept {
		rec := &b.requests[idx]
		tp = rec.timePoints(tp)
		evs := rec.Events.decode(&decoded)
		if evs == nil || len(evs) != len(tp)-1 {
			evs = nil
			allEvents = false
		}
		counted := false
		for i, t := range tp[1:] {
			if t < w.StartSeconds || t > w.EndSeconds {
				continue
			}
			counted = true
			wt.Events++
			points++
			if evs == nil {
				continue
			}
			n := rec.tokens(i)
			if outputEvent(evs[i]) {
				outputEvents++
				if n < 0 {
					allKnown = false
				}
			}
			if n > 0 {
				tokens += n
			}
		}
		if counted {
			wt.Requests++
		}
	}
	switch {
	case !allEvents:
		wt.Basis, wt.Count = "time points", float64(points)
	case !allKnown:
		wt.Basis, wt.Count = "output events", float64(outputEvents)
	default:
		wt.Count = float64(tokens)
	}
	wt.PerSecond = math.NaN()
	if wt.WindowSeconds > 0 {
		wt.PerSecond = wt.Count / wt.WindowSeconds
	}
	if st.Err == nil && st.Common.HasTokenThroughput {
		v := st.Common.OutputTokenThroughput
		wt.NativeOutputTokenThroughput = &v
	}
	st.Windowed = wt
}
