package audit

import (
	"errors"
	"slices"

	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/calc/ssemetrics"
	"github.com/sseaudit/sseaudit/figures"
	"github.com/sseaudit/sseaudit/findings"
	"github.com/sseaudit/sseaudit/internal/parallel"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/run"
	"github.com/sseaudit/sseaudit/samples"
)

// Config configures a Builder.
type Config struct {
	// MaxConcurrency is the configured max concurrency C (AISBench's
	// batch_size); 0 = unknown.
	MaxConcurrency int
	// Stats are the statistics columns; nil means AISBench's DefaultStats.
	// AISBench's table keeps the names it accepts; sseaudit's figures
	// compute every name samples.ParseStatistic accepts (P99.9 too).
	Stats []string
	// SLOs are the objectives whose attainment each stage reports.
	SLOs []ssemetrics.SLO
	// Thresholds tune the findings; zero fields take the defaults.
	Thresholds findings.Thresholds
	// NewStore makes the store the run's time points are kept in; nil:
	// samples.NewPacked(samples.DefaultMapAfter).
	NewStore func() samples.Store
	// KeepITLSamples keeps ITL's pooled intervals in the report
	// (metric.Result.Values), for tests and tools that read them.
	KeepITLSamples bool
	// NoTimeline, when set, is why the requests' send times are unknown (a
	// trace's trace.KeyStartTimes): the stable stage is refused, and the
	// finding no-timeline marks the whole stage's duration, concurrency and
	// throughputs.
	NoTimeline string
	// Lean leaves out what only a report's pages show: the figures, and the
	// stages AISBench's earlier window selectors would have computed (their
	// windows stay, for the findings). audit check reads neither.
	Lean bool
}

// Builder accumulates requests in trace order; Finalize computes the report.
type Builder struct {
	cfg  Config
	run  *run.Run
	done bool
}

// NewBuilder returns an empty Builder.
func NewBuilder(cfg Config) *Builder {
	cfg.Stats = slices.Clone(cfg.Stats)
	cfg.SLOs = slices.Clone(cfg.SLOs)
	var store samples.Store
	if cfg.NewStore != nil {
		store = cfg.NewStore()
	}
	return &Builder{cfg: cfg, run: run.New(store)}
}

// Add records one request. Requests must come in trace order (AISBench's
// details order). The record is copied but for its time points, kept as
// they are: a record's time points never change once made (Run.Add).
func (b *Builder) Add(rec record.Request) { b.run.Add(rec) }

// ErrFinalized is Finalize's error on a Builder already finalized.
var ErrFinalized = errors.New("audit: the builder is finalized already")

// Finalize computes the report: AISBench's stages (package aisbench), then
// sseaudit's figures over the same requests (package ssemetrics), the
// findings and the figures, and frees the run's memory: a Builder is
// finalized once. Its error is for an unusable configuration only; a stage
// AISBench cannot compute carries its error in its StageResult.Err.
func (b *Builder) Finalize() (*Report, error) {
	if b.done {
		return nil, ErrFinalized
	}
	b.done = true
	defer b.run.Release()
	allStats := ssemetrics.Stats(b.cfg.Stats)
	stats, _ := aisbench.ValidateStats(b.cfg.Stats)
	var extra []string // each metric's Extra: the statistics AISBench's table lacks
	for _, s := range allStats {
		if !slices.Contains(stats, s) {
			extra = append(extra, s)
		}
	}
	ais, err := aisbench.New(b.run, aisbench.Config{MaxConcurrency: b.cfg.MaxConcurrency, Stats: b.cfg.Stats,
		ExtraStats: extra, KeepITLSamples: b.cfg.KeepITLSamples, NoTimeline: b.cfg.NoTimeline})
	if err != nil {
		return nil, err
	}
	sse := ssemetrics.New(b.run, ais, ssemetrics.Config{Stats: allStats, SLOs: b.cfg.SLOs})

	// One pass over every successful request's time points, in parallel
	// parts of about as many intervals each: AISBench's per-request values
	// and sseaudit's facts together.
	parts := ais.Parts()
	tasks := make([]func(), len(parts))
	for k := range parts {
		tasks[k] = func() { ais.Derive(&parts[k], sse.Deriver()) }
	}
	parallel.Do(tasks...)
	ais.Finish(parts)
	rep := &Report{Result: *ais.Result(), AllStats: allStats, Thresholds: b.cfg.Thresholds.WithDefaults()}

	// The two stages, the window analysis and the figures' distributions
	// read the requests and write only their own results: they run at once,
	// each computed as it would be alone.
	withFigures := ais.Computable() && !b.cfg.Lean // no figure of a run with a NaN time point
	var distributions [2]*figures.DistributionPair
	var windowed *ssemetrics.WindowedThroughput
	parallel.Do(
		func() {
			rep.Total = ais.Total()
			rep.SSE.Total = sse.Stage(rep.Total)
			if withFigures {
				distributions[0] = figures.Distributions(rep.Total, rep.SSE.Total, sse.Facts)
			}
		},
		func() {
			rep.Stable = ais.Stable()
			parallel.Do(
				func() {
					rep.SSE.Stable = sse.Stage(rep.Stable)
					if withFigures {
						distributions[1] = figures.Distributions(rep.Stable, rep.SSE.Stable, sse.Facts)
					}
				},
				func() { windowed = sse.Windowed(rep.Stable) },
				func() {
					switch {
					case !ais.Computable() || b.cfg.MaxConcurrency <= 0:
					case b.cfg.Lean:
						rep.Window = ais.AnalyzeWindowOnly(rep.Stable)
					default:
						rep.Window = ais.AnalyzeWindow(rep.Stable)
					}
				})
		})
	rep.SSE.Stable.Windowed = windowed
	in := &findings.Input{Run: b.run, AIS: ais, AISResult: &rep.Result, SSE: sse, SSEResult: &rep.SSE, Thresholds: rep.Thresholds}
	rep.Findings = findings.Derive(in)
	if withFigures {
		rep.Figures = figures.Derive(in, rep.Findings, distributions)
	}
	return rep, nil
}
