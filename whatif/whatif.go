package whatif

import (
	"errors"
	"fmt"
	"slices"

	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/pynum"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/run"
)

// Config configures a Builder.
type Config struct {
	// MaxConcurrency and Stats go to every policy's AISBench calculator
	// (aisbench.Compute) as they are.
	MaxConcurrency int
	Stats          []string
	// NoTimeline is why the requests' send times are unknown
	// (trace.KeyStartTimes); "" when known (aisbench.Config.NoTimeline).
	NoTimeline string
	// Policies are the what-ifs, in output order. The original (aisbench) is
	// always computed first; naming it here adds nothing.
	Policies []Policy
}

// Builder accumulates request records in trace order; Finalize runs every
// policy.
type Builder struct {
	cfg      Config
	policies []Policy // the original first
	records  []record.Request
}

// NewBuilder checks the policies: a zero Policy or one given twice is an error.
func NewBuilder(cfg Config) (*Builder, error) {
	b := &Builder{cfg: cfg, policies: []Policy{mustParsePolicy(AISBench)}}
	b.cfg.Stats = slices.Clone(cfg.Stats)
	for _, p := range cfg.Policies {
		if p.keep == nil {
			return nil, errors.New("whatif: a policy is the zero Policy (use ParsePolicy)")
		}
		if p.IsOriginal() {
			continue
		}
		if slices.ContainsFunc(b.policies, func(q Policy) bool { return q.name == p.name }) {
			return nil, &PolicyError{p.name, "given twice"}
		}
		b.policies = append(b.policies, p)
	}
	return b, nil
}

// Add records one request; records must come in trace order. The record is
// copied.
func (b *Builder) Add(rec record.Request) {
	rec.TimePoints = slices.Clone(rec.TimePoints)
	rec.Events = slices.Clone(rec.Events)
	b.records = append(b.records, rec)
}

// Result is a finalized what-if: the original and every policy, each audited
// exactly as AISBench would on its time points. It is data only.
type Result struct {
	MaxConcurrency int
	Stats          []string // the statistics columns, as audit validated them
	Requests       int      // records added
	// OriginSeconds is the earliest start (t0) of a request successful in the
	// original: relative times are measured from it. HasOrigin is false when
	// no request succeeded.
	OriginSeconds float64
	HasOrigin     bool
	// Outcomes holds the original (aisbench) first, then each policy in the
	// order configured.
	Outcomes []*Outcome
}

// Original is the aisbench outcome: the figures AISBench itself reports.
func (r *Result) Original() *Outcome { return r.Outcomes[0] }

// Outcome is one policy's audit and how it differs from the original.
type Outcome struct {
	Policy Policy
	Report *aisbench.Result // the audit of the filtered records, untouched
	// TimePointsKept and TimePointsDropped count the time points after t0 of
	// the requests successful in the original that the policy keeps and drops.
	TimePointsKept, TimePointsDropped int
	// RequestsFiltered counts the requests that lost at least one time point.
	RequestsFiltered int
	// NewFailures are the trace indices of the requests successful in the
	// original that the policy leaves with fewer than 2 time points: AISBench
	// counts them as failed ("chunk size is less than 2").
	NewFailures   []int
	NewFailureIDs []string
	Stages        []*StageOutcome // in aisbench.Stages order
	PerRequest    []RequestOutcome
}

// Stage returns the outcome of the named stage, or nil.
func (o *Outcome) Stage(s aisbench.Stage) *StageOutcome {
	for _, st := range o.Stages {
		if st.Stage == s {
			return st
		}
	}
	return nil
}

// StageOutcome is one stage of one policy.
type StageOutcome struct {
	Stage  aisbench.Stage
	Result *aisbench.StageResult // the policy's report's stage
	// Compared counts the stage's requests (successful under the policy, so
	// also in the original); TmMoved those whose tm differs from the original's.
	Compared, TmMoved int
	// TmShift summarises original tm minus policy tm (seconds, positive when
	// the policy ends the request earlier) over the moved requests; nil when
	// none moved.
	TmShift *Shift
	// Delta is this stage minus the original's same stage; nil for the original.
	Delta *StageDelta
}

// Shift is numpy's mean, 90th percentile (linear) and max of tm shifts, in seconds.
type Shift struct {
	MeanSeconds, P90Seconds, MaxSeconds float64
	Seconds                             []float64 // each moved request's shift, in stage order
}

// Number is a figure that may be unknown: a delta when either side lacks
// the figure (a removed metric, a stage without result, no window), a
// per-request value of a failed request.
type Number struct {
	Value float64
	Known bool
}

// delta is a - b when both are known.
func delta(a, b float64, aok, bok bool) Number {
	if !aok || !bok {
		return Number{}
	}
	return Number{a - b, true}
}

// StageDelta is a stage's figures minus the original's, in the figures' units
// (seconds, tokens, token/s, requests).
type StageDelta struct {
	Requests              Number // requests in the stage
	DurationSeconds       Number // the stage duration T
	Concurrency           Number // unrounded sum(E2EL)/T
	OutputTokenThroughput Number // unrounded total output tokens / T
	WindowStartSeconds    Number
	WindowEndSeconds      Number
	WindowSelected        Number
	Metrics               []MetricDelta // metric.AISBench order, metrics either side has
}

// MetricDelta is one metric's statistics, N and samples minus the original's.
type MetricDelta struct {
	Name    metric.Metric
	Stats   []Number // Result.Stats order
	N       Number
	Samples Number
}

// Metric returns the named metric's delta, or nil.
func (d *StageDelta) Metric(m metric.Metric) *MetricDelta {
	for i := range d.Metrics {
		if d.Metrics[i].Name == m {
			return &d.Metrics[i]
		}
	}
	return nil
}

// RequestOutcome is one request under one policy.
type RequestOutcome struct {
	Index int
	ID    string
	// Success is AISBench's: a successful request with at least 2 time points.
	Success bool
	// TmSeconds is the last time point (AISBench's end_time), absolute;
	// TmAfterOriginSeconds the same after Result.OriginSeconds. Set when Success.
	TmSeconds, TmAfterOriginSeconds float64
	// TmShiftSeconds is the original's tm minus this one, known when the
	// request succeeds under both.
	TmShiftSeconds Number
	// E2E and TPOT are the values the total stage computed for this request;
	// unknown when the request failed or the total stage has no result.
	E2ESeconds, TPOTSeconds Number
}

// Finalize runs the original and every policy through AISBench's
// calculators (aisbench.Compute), each on a run of its own. Its error is
// for records no policy can filter (*UnfilterableError) and for an unusable
// configuration.
func (b *Builder) Finalize() (*Result, error) {
	if len(b.policies) > 1 {
		var first *UnfilterableError
		for i, rec := range b.records {
			if !filterable(rec) {
				if first == nil {
					first = &UnfilterableError{Index: i, ID: rec.ID, TimePoints: len(rec.TimePoints), Events: len(rec.Events)}
				}
				first.Count++
			}
		}
		if first != nil {
			return nil, first
		}
	}
	res := &Result{MaxConcurrency: b.cfg.MaxConcurrency, Requests: len(b.records)}
	origSuccess := make([]bool, len(b.records))
	for i, rec := range b.records {
		origSuccess[i] = succeeds(rec)
		if origSuccess[i] && (!res.HasOrigin || rec.TimePoints[0] < res.OriginSeconds) {
			res.OriginSeconds, res.HasOrigin = rec.TimePoints[0], true
		}
	}
	for _, p := range b.policies {
		o, err := b.run(p, origSuccess, res.OriginSeconds)
		if err != nil {
			return nil, err
		}
		res.Outcomes = append(res.Outcomes, o)
	}
	res.Stats = res.Original().Report.Stats
	orig := res.Original()
	for _, o := range res.Outcomes {
		for i := range o.PerRequest {
			ro, oo := &o.PerRequest[i], orig.PerRequest[i]
			if ro.Success && oo.Success {
				ro.TmShiftSeconds = Number{oo.TmSeconds - ro.TmSeconds, true}
			}
		}
		for _, st := range o.Stages {
			compareStage(st, o, orig)
		}
	}
	return res, nil
}

// succeeds is AISBench's success: the flag and at least 2 time points.
func succeeds(rec record.Request) bool { return rec.Success && len(rec.TimePoints) >= 2 }

// run filters every record with p and audits the result.
func (b *Builder) run(p Policy, origSuccess []bool, origin float64) (*Outcome, error) {
	o := &Outcome{Policy: p, PerRequest: make([]RequestOutcome, len(b.records))}
	filtered := run.New(nil)
	defer filtered.Release()
	for i, rec := range b.records {
		out, dropped, err := p.Apply(i, rec)
		if err != nil {
			return nil, err
		}
		filtered.Add(out)
		ro := RequestOutcome{Index: i, ID: rec.ID, Success: succeeds(out)}
		if ro.Success {
			ro.TmSeconds = out.TimePoints[len(out.TimePoints)-1]
			ro.TmAfterOriginSeconds = ro.TmSeconds - origin
		}
		o.PerRequest[i] = ro
		if !origSuccess[i] {
			continue
		}
		o.TimePointsKept += len(out.TimePoints) - 1
		o.TimePointsDropped += dropped
		if dropped > 0 {
			o.RequestsFiltered++
		}
		if !ro.Success {
			o.NewFailures = append(o.NewFailures, i)
			o.NewFailureIDs = append(o.NewFailureIDs, rec.ID)
		}
	}
	rep, err := aisbench.Compute(filtered, aisbench.Config{MaxConcurrency: b.cfg.MaxConcurrency, Stats: b.cfg.Stats, NoTimeline: b.cfg.NoTimeline})
	if err != nil {
		return nil, fmt.Errorf("whatif: policy %s: %w", p, err)
	}
	o.Report = rep
	// Per-request E2E and TPOT: the total stage's values, request for request.
	if t := rep.Total; t.Err == nil {
		// The values are the stage's requests', in order; anything else is
		// left unknown rather than misattributed.
		aligned := func(m *metric.Result) bool { return m != nil && len(m.Values) == len(t.Requests) }
		e2e, tpot := t.Metric(metric.E2EL), t.Metric(metric.TPOT)
		for k, idx := range t.Requests {
			ro := &o.PerRequest[idx]
			if aligned(e2e) {
				ro.E2ESeconds = Number{e2e.Values[k], true}
			}
			switch {
			case aligned(tpot):
				ro.TPOTSeconds = Number{tpot.Values[k], true}
			case tpot == nil && removed(t, metric.TPOT):
				ro.TPOTSeconds = Number{0, true} // removed because every TPOT is 0
			}
		}
	}
	for _, s := range aisbench.Stages {
		o.Stages = append(o.Stages, &StageOutcome{Stage: s, Result: rep.Stage(s)})
	}
	return o, nil
}

func removed(st *aisbench.StageResult, m metric.Metric) bool {
	return slices.ContainsFunc(st.Removed, func(r metric.Removed) bool { return r.Name == m })
}

// compareStage fills the stage's tm comparison and, for a policy, its deltas
// against the original.
func compareStage(st *StageOutcome, o, orig *Outcome) {
	for _, idx := range st.Result.Requests {
		ro, oo := o.PerRequest[idx], orig.PerRequest[idx]
		if !ro.Success || !oo.Success {
			continue // a stage whose requests were not all successful: not compared
		}
		st.Compared++
		shift := ro.TmShiftSeconds.Value
		if ro.TmSeconds != oo.TmSeconds {
			st.TmMoved++
			if st.TmShift == nil {
				st.TmShift = &Shift{}
			}
			st.TmShift.Seconds = append(st.TmShift.Seconds, shift)
		}
	}
	if s := st.TmShift; s != nil {
		s.MeanSeconds = pynum.NumpyMean(s.Seconds)
		s.P90Seconds = pynum.NumpyPercentile(s.Seconds, 90)
		s.MaxSeconds = pynum.NumpyMax(s.Seconds)
	}
	if o == orig {
		return
	}
	st.Delta = stageDelta(st.Result, orig.Stage(st.Stage).Result)
}

func stageDelta(a, b *aisbench.StageResult) *StageDelta {
	aok, bok := a.Err == nil, b.Err == nil
	d := &StageDelta{
		Requests:        delta(float64(len(a.Requests)), float64(len(b.Requests)), aok, bok),
		DurationSeconds: delta(a.DurationSeconds, b.DurationSeconds, aok, bok),
		Concurrency:     delta(a.Common.Concurrency.Raw, b.Common.Concurrency.Raw, aok, bok),
		OutputTokenThroughput: delta(a.Common.OutputTokenThroughput.Raw, b.Common.OutputTokenThroughput.Raw,
			aok && a.Common.HasTokenThroughput, bok && b.Common.HasTokenThroughput),
	}
	if a.Window != nil && b.Window != nil {
		d.WindowStartSeconds = Number{a.Window.StartSeconds - b.Window.StartSeconds, true}
		d.WindowEndSeconds = Number{a.Window.EndSeconds - b.Window.EndSeconds, true}
		d.WindowSelected = Number{float64(a.Window.Selected - b.Window.Selected), true}
	}
	for _, m := range metric.AISBench {
		var am, bm *metric.Result
		if aok {
			am = a.Metric(m)
		}
		if bok {
			bm = b.Metric(m)
		}
		if am == nil && bm == nil {
			continue
		}
		md := MetricDelta{Name: m}
		if am != nil && bm != nil {
			md.N = Number{float64(am.N - bm.N), true}
			md.Samples = Number{float64(am.Samples - bm.Samples), true}
			for i := range am.Stats {
				md.Stats = append(md.Stats, Number{am.Stats[i].Raw - bm.Stats[i].Raw, true})
			}
		} else {
			src := am
			if src == nil {
				src = bm
			}
			md.Stats = make([]Number, len(src.Stats)) // unknown: one side lacks the metric
		}
		d.Metrics = append(d.Metrics, md)
	}
	return d
}
