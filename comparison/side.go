package comparison

import (
	"errors"
	"math"
	"slices"

	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/calc/ssemetrics"
	"github.com/sseaudit/sseaudit/internal/parallel"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/run"
	"github.com/sseaudit/sseaudit/samples"
)

// Config configures a Builder.
type Config struct {
	// Name names the run (its trace or tables, as given).
	Name string
	// MaxConcurrency is the configured max concurrency C; 0 = unknown (the
	// run then has no stable stage).
	MaxConcurrency int
	// NoTimeline is why the requests' send times are unknown
	// (trace.KeyStartTimes); "" when known. The stable stage is then
	// refused, as aisbench.Config.NoTimeline says.
	NoTimeline string
	// Stats are statistics to compute beside AISBench's default columns
	// (those --fail-on names): any name samples.ParseStatistic accepts.
	Stats []string
}

// Builder accumulates one run's requests in trace order; Finalize computes
// what a comparison reads of it.
type Builder struct {
	cfg   Config
	run   *run.Run
	facts []requestFacts
	done  bool
}

// NewBuilder returns an empty Builder.
func NewBuilder(cfg Config) *Builder {
	cfg.Stats = slices.Clone(cfg.Stats)
	return &Builder{cfg: cfg, run: run.New(nil)}
}

// requestFacts are what a Side keeps of a request for the attribution.
type requestFacts struct {
	prompt      PromptKey
	hasPrompt   bool
	success     bool // the record's success flag (before AISBench's two time points)
	errText     string
	tokenSource string
	events      replay.EventCounts // every event, by class
	recorded    replay.EventCounts // the recorded ones (time points after t0)
	first, last replay.Class       // the first and last recorded event's class
	hasEvents   bool               // the recorded events are known
	// The framing constructs AISBench's client mishandles (record.SpecView);
	// spec is false when the request was not replayed with the sse framer.
	spec                                      bool
	commentInBlock, fieldLines, multiLineData int
}

// Add records one request; requests come in trace order. Its record's time
// points are kept as they are, not copied (run.Run.Add).
func (b *Builder) Add(r Request) {
	f := requestFacts{prompt: r.Prompt, hasPrompt: r.HasPrompt, success: r.Record.Success, errText: r.Error, tokenSource: r.TokenSource, events: r.Events}
	if evs := r.Record.Events; len(evs) > 0 {
		f.hasEvents = true
		f.first, f.last = evs[0].Class, evs[len(evs)-1].Class
		for _, e := range evs {
			f.recorded[e.Class]++
		}
	}
	if v := r.Record.Spec; v != nil {
		f.spec, f.commentInBlock, f.fieldLines, f.multiLineData = true, v.CommentInBlock, v.FieldLines, v.MultiLineData
	}
	b.facts = append(b.facts, f)
	b.run.Add(r.Record)
}

// ErrFinalized is Finalize's error on a Builder already finalized.
var ErrFinalized = errors.New("comparison: the builder is finalized already")

// Side is one run as a comparison reads it: each stage's per-request values
// of every metric compared (by trace index), the report's statistics of
// them, the stage's common metrics and window, and the facts of every
// request's stream. It holds no memory of the run's time points.
type Side struct {
	Name           string
	MaxConcurrency int
	Requests       aisbench.RequestCounts
	ids            []string
	facts          []requestFacts
	kept           []bool // AISBench's success flags
	// intervals is each kept request's ITL intervals (len(tp) - 2).
	intervals []int
	stages    [2]*sideStage
}

// sideStage is one stage of a Side.
type sideStage struct {
	err      error // AISBench's, when the stage has no numbers
	requests []int // trace indices, in order
	// values are each metric's per-request values by trace index (NaN: the
	// request has none, or is not in the stage).
	values map[metric.Metric][]float64
	// stats are the report's statistics of each metric (AISBench's, or
	// sseaudit's for its own), nil when the report has none.
	stats  map[metric.Metric][]samples.Statistic
	common *aisbench.CommonMetrics // nil when the stage has no numbers
	window *aisbench.Window
}

// stage returns the side's stage s.
func (s *Side) stage(st aisbench.Stage) *sideStage {
	if st == aisbench.StageStable {
		return s.stages[1]
	}
	return s.stages[0]
}

// Finalize computes AISBench's stages and sseaudit's metrics of the run
// (packages aisbench and ssemetrics, as audit report does) and keeps what
// a comparison reads; the run's memory is freed.
func (b *Builder) Finalize() (*Side, error) {
	if b.done {
		return nil, ErrFinalized
	}
	b.done = true
	defer b.run.Release()
	var extra []string
	for _, s := range b.cfg.Stats {
		if !slices.Contains(aisbench.DefaultStats, s) && !slices.Contains(extra, s) {
			extra = append(extra, s)
		}
	}
	ais, err := aisbench.New(b.run, aisbench.Config{MaxConcurrency: b.cfg.MaxConcurrency, NoTimeline: b.cfg.NoTimeline, ExtraStats: extra})
	if err != nil {
		return nil, err
	}
	sse := ssemetrics.New(b.run, ais, ssemetrics.Config{Stats: slices.Concat(aisbench.DefaultStats, extra)})
	parts := ais.Parts()
	tasks := make([]func(), len(parts))
	for k := range parts {
		tasks[k] = func() { ais.Derive(&parts[k], sse.Deriver()) }
	}
	parallel.Do(tasks...)
	ais.Finish(parts)
	side := &Side{Name: b.cfg.Name, MaxConcurrency: b.cfg.MaxConcurrency, Requests: ais.Result().Requests,
		facts: b.facts, kept: ais.Flags, intervals: make([]int, b.run.Len()), ids: make([]string, b.run.Len())}
	for i := range side.ids {
		side.ids[i] = b.run.ID(i)
		side.intervals[i] = ais.Requests[i].Intervals
	}
	var total, stable *aisbench.StageResult
	parallel.Do(func() { total = ais.Total() }, func() { stable = ais.Stable() })
	for k, st := range []*aisbench.StageResult{total, stable} {
		side.stages[k] = newSideStage(b.run, ais, sse, st)
	}
	return side, nil
}

// newSideStage reads a stage's per-request values and statistics.
func newSideStage(r *run.Run, ais *aisbench.Calc, sse *ssemetrics.Calc, st *aisbench.StageResult) *sideStage {
	s := &sideStage{err: st.Err, requests: st.Requests, window: st.Window,
		values: map[metric.Metric][]float64{}, stats: map[metric.Metric][]samples.Statistic{}}
	if st.Err == nil {
		c := st.Common
		s.common = &c
	}
	for _, d := range Metrics {
		if !d.PerRequest {
			continue
		}
		vals := make([]float64, r.Len())
		for i := range vals {
			vals[i] = math.NaN()
		}
		for _, i := range st.Requests {
			if v, ok := perRequest(r, ais, sse, i, d.Name); ok {
				vals[i] = v
			}
		}
		s.values[d.Name] = vals
	}
	if len(st.Requests) == 0 {
		return s
	}
	sseStage := sse.Stage(st)
	for _, d := range Metrics {
		var mr *metric.Result
		if d.Source == SourceAISBench {
			mr = st.Metric(d.Name)
		} else {
			mr = sseStage.Metric(d.Name)
		}
		if mr != nil {
			s.stats[d.Name] = slices.Concat(mr.Stats, mr.Extra)
		}
	}
	return s
}

// perRequest is successful request i's value of a per-request metric,
// and whether it has one.
func perRequest(r *run.Run, ais *aisbench.Calc, sse *ssemetrics.Calc, i int, m metric.Metric) (float64, bool) {
	f := &sse.Facts[i]
	switch m {
	case metric.ITL:
		return f.IntervalsMean, ais.Requests[i].Intervals > 0
	case metric.ContentUpdateInterval:
		return f.ContentMean, f.ContentGaps().Len() > 0
	case metric.OutputTokens:
		out := r.OutputTokens(i)
		if out == nil || *out == 0 {
			return 0, false
		}
		return float64(*out), true
	}
	return sse.Value(i, m)
}
