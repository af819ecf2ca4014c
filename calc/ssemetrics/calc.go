package ssemetrics

import (
	"math"
	"slices"

	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/pynum"
	"github.com/sseaudit/sseaudit/run"
	"github.com/sseaudit/sseaudit/samples"
)

// Config configures a Calc.
type Config struct {
	// Stats are the statistics of sseaudit's metrics: Stats(requested).
	Stats []string
	// SLOs are the objectives whose attainment each stage reports.
	SLOs []SLO
}

// Calc computes sseaudit's figures of one run beside AISBench's
// (aisbench.Calc, derived): per request its Facts (Derive, in AISBench's
// pass over the time points), then per stage the ITL accounting, sseaudit's
// metrics and SLO attainment over the stage's requests (Stage), and the
// stable window's WindowedOutputThroughput (Windowed).
type Calc struct {
	cfg Config
	run *run.Run
	ais *aisbench.Calc
	// Facts are every request's facts, by trace index (zero for requests
	// AISBench does not keep).
	Facts []Facts
}

// New returns a Calc over the run; its facts are filled by Derive.
func New(r *run.Run, ais *aisbench.Calc, cfg Config) *Calc {
	return &Calc{cfg: cfg, run: r, ais: ais, Facts: make([]Facts, r.Len())}
}

// Deriver is a visitor for aisbench.Calc.Derive: it derives the facts of
// each request AISBench derives, decoding events into a buffer of its own
// (one Deriver a part, when parts are derived in parallel).
func (c *Calc) Deriver() func(i int, tp, intervals []float64) {
	var decoded []run.Event
	return func(i int, tp, intervals []float64) {
		c.Facts[i] = Derive(c.run, i, tp, intervals, c.run.Events(i, &decoded))
	}
}

// Result is sseaudit's figures of both stages.
type Result struct {
	Total, Stable *StageResult
}

// Stage returns the named stage's figures, nil for an unknown name.
func (r *Result) Stage(s aisbench.Stage) *StageResult {
	switch s {
	case aisbench.StageTotal:
		return r.Total
	case aisbench.StageStable:
		return r.Stable
	}
	return nil
}

// StageResult is sseaudit's figures of one stage, computed over the stage's
// requests (the intended selection, without AISBench's failure-index quirk)
// whenever they are known, even when AISBench's stage has no numbers; all
// nil when they are not.
type StageResult struct {
	ITL     *ITLAccounting   // what the ITL row is made of
	Metrics []metric.Result  // sseaudit's metrics (metric.SSE order) that have samples
	Absent  []metric.Removed // sseaudit's metrics without samples, and why
	SLOs    []SLOResult      // Config.SLOs in order
	// Windowed is the stable stage's WindowedOutputThroughput (Windowed).
	Windowed *WindowedThroughput
}

// Metric returns one of sseaudit's metrics, or nil when it has no samples.
func (s *StageResult) Metric(m metric.Metric) *metric.Result {
	for i := range s.Metrics {
		if s.Metrics[i].Name == m {
			return &s.Metrics[i]
		}
	}
	return nil
}

// Stage computes sseaudit's figures over the requests of AISBench's stage st.
func (c *Calc) Stage(st *aisbench.StageResult) *StageResult {
	out := &StageResult{}
	if len(st.Requests) == 0 {
		return out
	}
	itl := st.Metric(metric.ITL)
	out.ITL = c.itlAccounting(st.Requests, itl)
	c.metrics(out, st.Requests, itl)
	for _, slo := range c.cfg.SLOs {
		res := SLOResult{SLO: slo, Denominator: len(st.Requests)}
		for _, i := range st.Requests {
			v, ok := c.Value(i, slo.Metric)
			switch {
			case !ok:
				res.Missing++
			case slo.holds(v):
				res.Met++
			}
		}
		res.Fraction = float64(res.Met) / float64(res.Denominator)
		out.SLOs = append(out.SLOs, res)
	}
	return out
}

// itlAccounting says what AISBench's ITL row (itl, nil when removed) of the
// requests is made of. The pooled mean is np.mean of the requests'
// intervals concatenated in order: the ITL row's Average when it has one,
// else taken request by request as np.mean adds them.
func (c *Calc) itlAccounting(requests []int, itl *metric.Result) *ITLAccounting {
	acc := &ITLAccounting{Requests: len(requests), InAISBenchTable: itl != nil}
	var means, perRequest []float64
	for _, i := range requests {
		p := &c.ais.Requests[i]
		perRequest = append(perRequest, float64(p.Intervals))
		if p.Intervals > 0 {
			acc.RequestsWithIntervals++
			acc.Intervals += p.Intervals
			means = append(means, c.Facts[i].IntervalsMean)
			acc.ZeroIntervals += p.ZeroIntervals
			if p.ZeroIntervals > 0 {
				acc.RequestsWithZero++
			}
		}
		if p.Nonzero() {
			acc.AISBenchN++
		}
	}
	acc.PerRequestMin = pynum.NumpyMin(perRequest)
	acc.PerRequestMax = pynum.NumpyMax(perRequest)
	acc.PerRequestMedian = pynum.NumpyPercentile(perRequest, 50)
	acc.PooledMeanSeconds, acc.PerRequestMeanSeconds = math.NaN(), math.NaN()
	if acc.Intervals > 0 {
		if average, ok := itl.Statistic("Average"); ok {
			acc.PooledMeanSeconds = average.Raw
		} else {
			var intervals samples.Pool
			for _, i := range requests {
				intervals = append(intervals, c.Facts[i].Intervals())
			}
			acc.PooledMeanSeconds = intervals.Mean()
		}
		acc.PerRequestMeanSeconds = pynum.NumpyMean(means)
	}
	return acc
}

// metrics computes sseaudit's metrics over the requests. A pooled metric's
// samples stay where they are, in each request's facts (Samples counts
// them); the per-request ones keep their Values. The content gaps are ITL's
// values when every request's are its intervals, and ITL's statistics are
// theirs then; the text gaps are the content gaps, statistics included,
// when every request's text gaps are its content gaps.
func (c *Calc) metrics(out *StageResult, requests []int, itl *metric.Result) {
	contentIsITL, textIsContent, withEvents := itl != nil, true, 0
	for _, i := range requests {
		f := &c.Facts[i]
		contentIsITL = contentIsITL && f.ContentGaps().Same(f.Intervals())
		textIsContent = textIsContent && f.TextGaps().Same(f.ContentGaps())
		if f.Events {
			withEvents++
		}
	}
	var contentStats []samples.Statistic
	for _, m := range metric.SSE {
		var pool samples.Pool // made at the first sample: a trace of time points has none
		n := 0
		for _, i := range requests {
			if v, ok := sseSamples(m, &c.Facts[i]); ok {
				if pool == nil {
					pool = make(samples.Pool, 0, len(requests))
				}
				n++
				pool = append(pool, v)
			}
		}
		count := pool.Len()
		if count == 0 {
			out.Absent = append(out.Absent, metric.Removed{Name: m, Reason: absentReason(m, withEvents)})
			continue
		}
		mr := metric.Result{Name: m, Unit: m.Unit(), N: n, Samples: count}
		switch {
		case m == metric.ContentUpdateInterval && contentIsITL:
			mr.Stats = itl.StatisticsNamed(c.cfg.Stats)
		case m == metric.TextUpdateInterval && textIsContent:
			mr.Stats = slices.Clone(contentStats)
		case m == metric.TTFContent || m == metric.TTFText: // per-request metrics
			mr.Values = pool.Gather()
			mr.Stats = samples.Statistics(c.cfg.Stats, samples.PoolOf(mr.Values))
		default:
			mr.Stats = samples.Statistics(c.cfg.Stats, pool)
		}
		if m == metric.ContentUpdateInterval {
			contentStats = mr.Stats
		}
		out.Metrics = append(out.Metrics, mr)
	}
}

// absentReason is why a stage has no sample of one of sseaudit's metrics.
func absentReason(m metric.Metric, withEvents int) string {
	switch {
	case withEvents == 0:
		return "the trace holds time points only, no event bodies"
	case m == metric.ContentUpdateInterval:
		return "no request has two content events"
	case m == metric.TextUpdateInterval:
		return "no request has two content or reasoning events"
	case m == metric.TTFContent:
		return "no request has a content event"
	case m == metric.TTFText:
		return "no request has a content or reasoning event"
	}
	return "no event carries its own token count (no continuous usage, no logprobs)"
}

// sseSamples are a request's samples of one of sseaudit's metrics, and
// whether it has any (a request counts towards N when it has).
func sseSamples(m metric.Metric, f *Facts) (samples.Span, bool) {
	switch m {
	case metric.ContentUpdateInterval:
		g := f.ContentGaps()
		return g, g.Len() > 0
	case metric.TextUpdateInterval:
		g := f.TextGaps()
		return g, g.Len() > 0
	case metric.TTFContent:
		if !f.HasContent {
			return samples.Span{}, false
		}
		return samples.Values([]float64{f.TTFContent}), true
	case metric.TTFText:
		if !f.HasText {
			return samples.Span{}, false
		}
		return samples.Values([]float64{f.TTFText}), true
	}
	return f.Tokens(), f.TokensKnown
}

// Value is successful request i's value of a per-request metric, as
// AISBench computes it (E2EL, TTFT, TPOT, throughputs) or as sseaudit
// defines it (TTFContent, TTFText), and whether it has one (token counts
// known, a content event).
func (c *Calc) Value(i int, m metric.Metric) (float64, bool) {
	p := &c.ais.Requests[i]
	f := &c.Facts[i]
	out, in := c.run.OutputTokens(i), c.run.InputTokens(i)
	switch m {
	case metric.E2EL:
		return p.Latency, true
	case metric.TTFT:
		return p.TTFT, true
	case metric.TPOT:
		if out == nil || *out == 0 {
			return 0, false
		}
		return aisbench.TPOT(p.Latency, p.TTFT, *out), true
	case metric.OutputTokenThroughput:
		if out == nil || *out == 0 {
			return 0, false
		}
		return aisbench.OutputTokenThroughput(*out, p.Latency), true
	case metric.PrefillTokenThroughput:
		if in == nil || *in == 0 {
			return 0, false
		}
		return aisbench.PrefillTokenThroughput(*in, p.TTFT), true
	case metric.TTFContent:
		return f.TTFContent, f.HasContent
	case metric.TTFText:
		return f.TTFText, f.HasText
	}
	return 0, false
}

// Windowed computes WindowedOutputThroughput over every successful
// request's events inside the stable window [start, end] of st (nil when
// the stage has no window).
func (c *Calc) Windowed(st *aisbench.StageResult) *WindowedThroughput {
	w := st.Window
	if w == nil {
		return nil
	}
	wt := &WindowedThroughput{Basis: "tokens", WindowSeconds: w.DurationSeconds}
	var tokens, outputEvents, points int64
	allKnown, allEvents := true, true
	var tp []float64
	var decoded []run.Event
	for _, i := range c.ais.Kept {
		evs := c.run.Events(i, &decoded)
		after := c.run.Points(i) - 1 // the points of tp[1:]
		if evs == nil || len(evs) != after {
			evs = nil
			allEvents = false
		}
		// A request inside the window, its points in order, counts every
		// point: they need not be read.
		pr := &c.ais.Requests[i]
		inside := !pr.Unordered && pr.First >= w.StartSeconds && pr.End <= w.EndSeconds
		if inside && evs == nil {
			wt.Events, points = wt.Events+after, points+int64(after)
			wt.Requests++ // after ≥ 1: a kept request has two points or more
			continue
		}
		if !inside {
			tp = c.run.TimePoints(i, tp)
		}
		counted := false
		for k := range after {
			if !inside {
				if t := tp[k+1]; t < w.StartSeconds || t > w.EndSeconds {
					continue
				}
			}
			counted = true
			wt.Events++
			points++
			if evs == nil {
				continue
			}
			n := c.run.EventTokens(i, k)
			if OutputEvent(evs[k]) {
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
	return wt
}

// TokensPerEvent is np.mean and np.max of the TokensPerEvent samples of the
// requests (which the report does not keep), taken request by request in
// order, as over the pool; token counts are whole numbers, never NaN.
func (c *Calc) TokensPerEvent(requests []int) (mean, maximum float64) {
	var sum pynum.Sum
	var buf []float64
	for _, i := range requests {
		f := &c.Facts[i]
		if !f.TokensKnown { // else at least one sample
			continue
		}
		tokens := f.Tokens().Read(&buf)
		if sum.Len() == 0 {
			maximum = tokens[0]
		}
		sum.Add(tokens)
		if m := pynum.NumpyMax(tokens); m > maximum {
			maximum = m
		}
	}
	return sum.Mean(), maximum
}
