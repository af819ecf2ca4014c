package comparison

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/internal/parallel"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/pynum"
	"github.com/sseaudit/sseaudit/samples"
	"github.com/sseaudit/sseaudit/stattest"
	"github.com/sseaudit/sseaudit/unit"
)

// Options say what Compare compares and how it decides.
type Options struct {
	// Stages are the stages compared, in order; nil: both.
	Stages []aisbench.Stage
	// Metrics are the metrics shown, in Metrics order whatever this order;
	// nil: all. The metrics FailOn names are compared too.
	Metrics []metric.Metric
	// Alpha is the significance level: a change is significant when its
	// p-value is below it (0: DefaultAlpha).
	Alpha  float64
	Pair   PairMode // "" is PairAuto
	FailOn []FailOn
	// Resamples and Seed drive the bootstrap intervals (0: the defaults).
	Resamples int
	Seed      uint64
}

// DefaultAlpha is the significance level when none is given.
const DefaultAlpha = 0.05

// Resamples is the bootstrap's resamples for two runs of n requests in
// all: stattest.DefaultResamples up to 10,000 requests, then fewer (2e7/n,
// at least 200), so that the intervals of big runs take seconds, not
// minutes (a resample costs a draw a request).
func Resamples(n int) int {
	if n <= 10000 {
		return stattest.DefaultResamples
	}
	return max(200, 20_000_000/n)
}

// DefaultSeed seeds the bootstrap when no seed is given: a comparison's
// output depends on its inputs only.
const DefaultSeed = 17

// Comparison is two runs compared: each stage's metrics with their
// centers, change, interval and test, what changed in the streams
// themselves, and the --fail-on expressions evaluated. It is data only:
// the renderers compute nothing.
type Comparison struct {
	A, B      RunSummary
	Alpha     float64
	Pairing   Pairing
	Resamples int
	Seed      uint64
	Stages    []StageComparison
	// Attribution is what changed in the streams, in a fixed order.
	Attribution []Attribution
	FailOn      []FailOnResult
}

// Failed says whether a --fail-on expression is violated.
func (c *Comparison) Failed() bool {
	return slices.ContainsFunc(c.FailOn, func(r FailOnResult) bool { return r.Violated })
}

// RunSummary names a run and counts its requests.
type RunSummary struct {
	Name           string
	MaxConcurrency int
	Requests       aisbench.RequestCounts
}

// StageComparison is one stage of both runs compared.
type StageComparison struct {
	Stage aisbench.Stage
	// Notes say what a side lacks (no stable stage, no numbers).
	Notes   []string
	Metrics []MetricComparison
}

// Metric returns the comparison of metric m, nil when not compared.
func (s *StageComparison) Metric(m metric.Metric) *MetricComparison {
	for i := range s.Metrics {
		if s.Metrics[i].Name == m {
			return &s.Metrics[i]
		}
	}
	return nil
}

// Center is one run's center of a metric in a stage.
type Center struct {
	// Median is np.median of the per-request values (what is tested); a
	// run-level metric's value. NaN when there is none.
	Median float64
	// Mean is the report's Average (AISBench's, pooled over intervals for
	// ITL; sseaudit's for its own metrics); NaN for run-level metrics and
	// when the report has none.
	Mean float64
	// N is the number of per-request values; for run-level metrics the
	// stage's requests (the run's for SuccessRate).
	N int
	// stats are the report's statistics, for --fail-on.
	stats []samples.Statistic
}

// Statistic is one of the report's statistics of the metric (NaN when absent).
func (c *Center) Statistic(name string) float64 {
	for _, s := range c.stats {
		if s.Name == name {
			return s.Raw
		}
	}
	return math.NaN()
}

// Test names.
const (
	MannWhitney = "mann-whitney" // scipy.stats.mannwhitneyu, two-sided
	Wilcoxon    = "wilcoxon"     // scipy.stats.wilcoxon
)

// MetricComparison is one metric of one stage compared.
type MetricComparison struct {
	Name       metric.Metric
	Unit       unit.Unit
	PerRequest bool
	Source     string
	A, B       Center
	// DeltaPct is 100*(B.Median/A.Median - 1); NaN when A's is 0 or
	// either is missing.
	DeltaPct float64
	// CI95 is the 95% bootstrap interval of DeltaPct (over requests, or
	// over pairs when paired); NaN, NaN for run-level metrics.
	CI95 [2]float64
	// Test is MannWhitney, Wilcoxon, or "" when untested (run-level
	// metrics, or a side without values).
	Test      string
	Method    stattest.Method
	Statistic float64
	PValue    float64 // NaN when untested
	// Significant is PValue < Alpha.
	Significant bool
	// Pairs is the number of pairs a Wilcoxon test took, and
	// PairedMedianDelta the median of their differences B - A (NaN
	// unpaired).
	Pairs             int
	PairedMedianDelta float64
	Note              string
}

// Compare compares run b against run a.
func Compare(a, b *Side, o Options) (*Comparison, error) {
	if o.Alpha == 0 {
		o.Alpha = DefaultAlpha
	}
	if !(o.Alpha > 0 && o.Alpha < 1) {
		return nil, fmt.Errorf("comparison: alpha %v: want a number between 0 and 1", o.Alpha)
	}
	if o.Pair == "" {
		o.Pair = PairAuto
	}
	if o.Resamples <= 0 {
		o.Resamples = Resamples(a.Requests.Added + b.Requests.Added)
	}
	if o.Seed == 0 {
		o.Seed = DefaultSeed
	}
	if o.Stages == nil {
		o.Stages = aisbench.Stages
	}
	pairing, err := pairRuns(a, b, o.Pair)
	if err != nil {
		return nil, err
	}
	c := &Comparison{A: summary(a), B: summary(b), Alpha: o.Alpha, Pairing: pairing, Resamples: o.Resamples, Seed: o.Seed}
	shown := shownMetrics(o)
	// Every metric of every stage is compared at once, each into its own
	// place, each bootstrap with a stream of its own: the same results
	// whatever the order.
	var tasks []func()
	c.Stages = make([]StageComparison, len(o.Stages))
	for si, st := range o.Stages {
		sc := &c.Stages[si]
		sc.Stage = st
		sa, sb := a.stage(st), b.stage(st)
		for _, x := range []struct {
			name string
			s    *sideStage
		}{{"A", sa}, {"B", sb}} {
			if x.s.err != nil {
				sc.Notes = append(sc.Notes, fmt.Sprintf("%s has no %s stage: %v", x.name, st.Title(), x.s.err))
			}
		}
		sc.Metrics = make([]MetricComparison, len(shown))
		k := 0
		for mi, d := range Metrics {
			if !slices.Contains(shown, d.Name) {
				continue
			}
			// The stream is the stage's and metric's place in aisbench.Stages
			// and Metrics, not in what is shown: the same interval whatever
			// --stage and --metric select.
			stream := uint64(slices.Index(aisbench.Stages, st)*len(Metrics) + mi)
			bs := stattest.Bootstrap{Resamples: o.Resamples, Seed: o.Seed, Stream: stream}
			m := &sc.Metrics[k]
			k++
			tasks = append(tasks, func() { *m = compareMetric(d, a, b, sa, sb, &pairing, o.Alpha, bs) })
		}
	}
	parallel.Do(tasks...)
	c.Attribution = attribute(a, b, o.Stages, &pairing, o.Alpha)
	for _, f := range o.FailOn {
		c.FailOn = append(c.FailOn, evaluate(f, c))
	}
	return c, nil
}

func summary(s *Side) RunSummary {
	return RunSummary{Name: s.Name, MaxConcurrency: s.MaxConcurrency, Requests: s.Requests}
}

// shownMetrics are the metrics of o.Metrics (all when nil) and those the
// --fail-on expressions name.
func shownMetrics(o Options) []metric.Metric {
	var out []metric.Metric
	for _, d := range Metrics {
		if o.Metrics == nil || slices.Contains(o.Metrics, d.Name) ||
			slices.ContainsFunc(o.FailOn, func(f FailOn) bool { return f.Metric == d.Name }) {
			out = append(out, d.Name)
		}
	}
	return out
}

// compareMetric compares one metric of one stage.
func compareMetric(d Def, a, b *Side, sa, sb *sideStage, p *Pairing, alpha float64, bs stattest.Bootstrap) MetricComparison {
	mc := MetricComparison{Name: d.Name, Unit: d.Unit, PerRequest: d.PerRequest, Source: d.Source,
		DeltaPct: math.NaN(), CI95: [2]float64{math.NaN(), math.NaN()}, PValue: math.NaN(), Statistic: math.NaN(),
		PairedMedianDelta: math.NaN()}
	if !d.PerRequest {
		mc.A, mc.B = runCenter(d.Name, a, sa), runCenter(d.Name, b, sb)
		mc.DeltaPct = relChange(mc.A.Median, mc.B.Median)
		return mc
	}
	va, vb := stageValues(sa, d.Name), stageValues(sb, d.Name)
	mc.A, mc.B = center(va, sa, d.Name), center(vb, sb, d.Name)
	mc.DeltaPct = relChange(mc.A.Median, mc.B.Median)
	if p.By != "" {
		pa, pb := pairedValues(sa, sb, d.Name, p.Pairs)
		if len(pa) == 0 {
			mc.Note = "no request has a value in both runs"
			return mc
		}
		mc.Pairs = len(pa)
		diffs := make([]float64, len(pa))
		for i := range pa {
			diffs[i] = pb[i] - pa[i]
		}
		mc.PairedMedianDelta = pynum.NumpyPercentile(diffs, 50)
		mc.CI95[0], mc.CI95[1] = stattest.MedianDeltaCI(pa, pb, true, bs)
		res, err := stattest.Wilcoxon(resolved(d.Unit, pa), resolved(d.Unit, pb))
		switch {
		case errors.Is(err, stattest.ErrAllZero):
			res = stattest.Result{Statistic: 0, PValue: 1}
			mc.Note = "every paired difference is 0 (scipy.stats.wilcoxon raises): p = 1"
		case err != nil:
			mc.Note = err.Error()
			return mc
		}
		mc.Test, mc.Method, mc.Statistic, mc.PValue = Wilcoxon, res.Method, res.Statistic, res.PValue
		mc.Significant = mc.PValue < alpha
		return mc
	}
	if len(va) == 0 || len(vb) == 0 {
		mc.Note = "a run has no value"
		return mc
	}
	mc.CI95[0], mc.CI95[1] = stattest.MedianDeltaCI(va, vb, false, bs)
	res, err := stattest.MannWhitneyU(resolved(d.Unit, va), resolved(d.Unit, vb))
	if err != nil {
		mc.Note = err.Error()
		return mc
	}
	mc.Test, mc.Method, mc.Statistic, mc.PValue = MannWhitney, res.Method, res.Statistic, res.PValue
	mc.Significant = mc.PValue < alpha
	return mc
}

// resolved are the values a test takes: times rounded to the nanosecond
// (the trace clock's resolution), other values to 12 significant digits,
// so that the float rounding of the same instants (a request's TTFT is the
// difference of two float seconds, which rounds differently at another t0)
// is no change. A test of the unrounded values finds a request shifted in
// time slower by 1e-15 s.
func resolved(u unit.Unit, xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		if u == unit.Seconds {
			out[i] = math.Round(x*1e9) / 1e9
			continue
		}
		out[i], _ = strconv.ParseFloat(strconv.FormatFloat(x, 'g', 12, 64), 64)
	}
	return out
}

// stageValues are the stage's per-request values of m, in trace order.
func stageValues(s *sideStage, m metric.Metric) []float64 {
	vals := s.values[m]
	out := make([]float64, 0, len(s.requests))
	for _, i := range s.requests {
		if v := vals[i]; !math.IsNaN(v) {
			out = append(out, v)
		}
	}
	return out
}

// pairedValues are the values of the pairs whose both requests have one in
// their run's stage.
func pairedValues(sa, sb *sideStage, m metric.Metric, pairs [][2]int) (pa, pb []float64) {
	va, vb := sa.values[m], sb.values[m]
	for _, pr := range pairs {
		x, y := va[pr[0]], vb[pr[1]]
		if !math.IsNaN(x) && !math.IsNaN(y) {
			pa, pb = append(pa, x), append(pb, y)
		}
	}
	return pa, pb
}

// center is a run's center of per-request values.
func center(vals []float64, s *sideStage, m metric.Metric) Center {
	c := Center{Median: math.NaN(), Mean: math.NaN(), N: len(vals), stats: s.stats[m]}
	if len(vals) > 0 {
		c.Median = pynum.NumpyPercentile(vals, 50)
	}
	c.Mean = c.Statistic("Average")
	return c
}

// runCenter is a run-level metric's value in a stage.
func runCenter(m metric.Metric, side *Side, s *sideStage) Center {
	c := Center{Median: math.NaN(), Mean: math.NaN(), N: len(s.requests)}
	switch {
	case m == SuccessRate:
		c.N = side.Requests.Added
		if c.N > 0 {
			c.Median = float64(side.Requests.Succeeded) / float64(c.N)
		}
	case s.common == nil:
	case m == OutputThroughput && s.common.HasTokenThroughput:
		c.Median = s.common.OutputTokenThroughput.Raw
	case m == RequestThroughput:
		c.Median = s.common.RequestThroughput.Raw
	}
	return c
}

// relChange is 100*(b/a - 1), NaN when a is 0 or either is NaN.
func relChange(a, b float64) float64 {
	if a == 0 || math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return (b/a - 1) * 100
}
