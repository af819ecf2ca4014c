package figures

import (
	"hash/fnv"
	"math"
	"slices"
	"sort"
	"strconv"

	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/calc/ssemetrics"
	"github.com/sseaudit/sseaudit/findings"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/pynum"
	"github.com/sseaudit/sseaudit/run"
	"github.com/sseaudit/sseaudit/samples"
	"github.com/sseaudit/sseaudit/unit"
)

// Figures are the data behind the HTML report's charts, computed once the
// calculators are done so that a renderer only scales and draws them. Times are seconds after
// OriginSeconds (the earliest successful start).
type Figures struct {
	OriginSeconds float64
	// RunSeconds is the first successful start to the last successful end.
	RunSeconds float64
	InFlight   *InFlightCurve
	Timelines  *TimelineSample
	// Distributions holds, per stage with intervals, ITL's and
	// ContentUpdateInterval's histograms on shared logarithmic bins.
	Distributions []*DistributionPair
	// TmSetBy counts, over every successful request with recorded events,
	// the class of the event that set tm (the last time point);
	// TTFTSetBy the class of the event that set TTFT (the first after t0).
	// Most requests first, then by class name; empty for traces of time
	// points only.
	TmSetBy, TTFTSetBy []ClassCount
}

// ClassCount is how many requests have an event of a class at some place.
type ClassCount struct {
	Class    string
	Requests int
}

// classCounts counts classes, most first, then by name.
func classCounts(classes []string) []ClassCount {
	n := map[string]int{}
	for _, c := range classes {
		n[c]++
	}
	out := make([]ClassCount, 0, len(n))
	for c, k := range n {
		out = append(out, ClassCount{c, k})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Requests != out[j].Requests {
			return out[i].Requests > out[j].Requests
		}
		return out[i].Class < out[j].Class
	})
	return out
}

// InFlightCurve is the in-flight count of successful requests over the run,
// walked exactly as AISBench's stable calculator walks starts and ends.
type InFlightCurve struct {
	MaxConcurrency int // C; 0 = unknown
	// Points in time order: from Points[i].Seconds until the next point, the
	// count is Points[i].InFlight; Min and Max bound the counts passed through
	// at that instant (several events at one time) or, when Bucketed, inside
	// the bucket [Seconds, next Seconds).
	Points   []InFlightPoint
	Bucketed bool
	Events   int // starts and ends walked
	// Window marks: the warm-up reach of C, the window start (2nd reach) and
	// end (last event leaving C in flight); nil when absent.
	FirstReach, WindowStart, WindowEnd *FigureMark
	// Stable window bounds, when AISBench found one.
	HasWindow              bool
	WindowFrom, WindowTo   float64
	PeakInFlight           int
	AtCShare, At90Share    float64
	ReachesAtStart         int
	SelectedInWindow, OfIn int
}

// InFlightPoint is one step of the in-flight curve.
type InFlightPoint struct {
	Seconds       float64
	InFlight      int
	Min, Max      int
	StartsAtPoint int // request starts at this instant (or in this bucket)
}

// FigureMark is an event a figure marks.
type FigureMark struct {
	Label    string
	Seconds  float64
	ID       string
	Start    bool // a request start (else an end)
	InFlight int
}

// MaxCurvePoints bounds the in-flight curve; longer runs are bucketed.
const MaxCurvePoints = 2000

// TimelineSample is the requests drawn one strip each.
type TimelineSample struct {
	Of   int    // successful requests in the run
	Rule string // how the sample was chosen, in words
	// Requests in trace order.
	Requests []RequestTimeline
}

// RequestTimeline is one request's recorded events on the run's time axis.
type RequestTimeline struct {
	Index  int // trace index
	ID     string
	Why    []string // "all", "slowest", "fastest", "sampled", or a finding code
	Stable bool     // selected by AISBench's stable stage
	// T0 and Tm are the first and last time points (AISBench's start and end).
	T0, Tm float64
	Events []TimelineEvent // one per time point after t0
	// TmClass is the class of the event that set tm ("" without events).
	TmClass string
	// HasEvents is false for traces of time points only: Events then carry
	// no class.
	HasEvents                     bool
	E2ESeconds, TTFTSeconds       float64
	TPOTSeconds                   float64 // NaN when output tokens are unknown
	OutputTokens                  int64   // -1 when unknown
	ITLMeanSeconds                float64 // NaN without intervals
	ContentIntervalMeanSeconds    float64 // NaN without two content events
	Intervals, ContentIntervals   int
	FirstContentSeconds           float64 // NaN without content
	LastTextSeconds               float64 // NaN without text: the last text event
	EventsAfterLastText, ZeroGaps int
}

// TimelineEvent is one recorded event.
type TimelineEvent struct {
	Seconds float64
	Class   string // replay.Class.String(); "" when the trace has no event bodies
}

// Sample sizes of the timelines.
const (
	timelineAllUpTo   = 24
	timelineSlowest   = 5
	timelineFastest   = 5
	timelineRandom    = 8
	timelineMaxEvents = 4000 // events drawn per request at most
)

// DistributionPair is ITL and ContentUpdateInterval of one stage on the same
// logarithmic bins.
type DistributionPair struct {
	Stage aisbench.Stage
	// Edges are the bin edges in seconds, BinsPerDecade a decade
	// (10^(k/BinsPerDecade)); bin i is [Edges[i], Edges[i+1]). The bins
	// follow the data: BinsPerDecade is the first of 10, 20, 50, 100, ...
	// that puts at least MinBins bins across the positive samples' range
	// (ten a decade over two decades or more; 50 a decade for samples from
	// 10 to 30 ms), with bins no narrower than BinResolution (logBins).
	Edges         []float64
	BinsPerDecade int
	ITL           *Distribution
	// Content is ContentUpdateInterval; nil when the stage has none.
	Content *Distribution
}

// Distribution is one metric's pooled samples, binned.
type Distribution struct {
	Metric  metric.Metric
	Samples int
	N       int   // requests with at least one sample
	Zero    int   // samples exactly 0: not on a log axis, counted apart
	Counts  []int // per bin of DistributionPair.Edges
	// PooledMeanSeconds is the mean of every sample (AISBench's way for ITL);
	// PerRequestMeanSeconds the mean of each request's mean.
	PooledMeanSeconds, PerRequestMeanSeconds float64
}

// Derive computes the figures of a run with at least one successful
// request, from the calculators (in), the findings (the timelines show the
// first request each names) and the stages' distributions (Distributions,
// nil for none).
func Derive(in *findings.Input, found []findings.Finding, distributions [2]*DistributionPair) *Figures {
	f := &Figures{}
	kept := in.AIS.Kept
	origin, last := math.Inf(1), math.Inf(-1)
	for _, i := range kept {
		origin = min(origin, in.AIS.Requests[i].Start)
		last = max(last, in.AIS.Requests[i].End)
	}
	f.OriginSeconds, f.RunSeconds = origin, last-origin
	f.InFlight = inFlightCurve(in.AISResult, in.AIS.Walk(), origin)
	f.Timelines = timelines(in, found, origin)
	var tmBy, ttftBy []string
	for _, i := range kept {
		if in.SSE.Facts[i].Events && in.Run.EventCount(i) > 0 {
			tmBy = append(tmBy, in.Run.LastEvent(i).Class.String())
			ttftBy = append(ttftBy, in.Run.FirstEvent(i).Class.String())
		}
	}
	f.TmSetBy, f.TTFTSetBy = classCounts(tmBy), classCounts(ttftBy)
	for _, p := range distributions {
		if p != nil {
			f.Distributions = append(f.Distributions, p)
		}
	}
	return f
}

// inFlightCurve walks the successful requests' starts and ends, events, as
// AISBench's stable calculator walks them.
func inFlightCurve(rep *aisbench.Result, events []aisbench.WalkEvent, origin float64) *InFlightCurve {
	c := &InFlightCurve{MaxConcurrency: rep.MaxConcurrency, Events: len(events)}
	// One point per distinct instant, or, past MaxCurvePoints instants, per
	// bucket of equal width, made as the instants come: a long run's curve
	// never holds a point per instant.
	instants := 0
	for i := range events {
		if i == 0 || events[i].Time != events[i-1].Time {
			instants++
		}
	}
	var pts []InFlightPoint
	var width float64
	if c.Bucketed = instants > MaxCurvePoints; c.Bucketed {
		span := events[len(events)-1].Time - origin // the last instant's Seconds
		width = span / float64(MaxCurvePoints-1)
	} else {
		pts = make([]InFlightPoint, 0, instants)
	}
	n, prev := 0, 0
	for i := 0; i < len(events); {
		p := InFlightPoint{Seconds: events[i].Time - origin, Min: n, Max: n}
		j := i
		for ; j < len(events) && events[j].Time == events[i].Time; j++ {
			if events[j].Start {
				n++
				p.StartsAtPoint++
			} else {
				n--
			}
			p.Min, p.Max = min(p.Min, n), max(p.Max, n)
		}
		p.InFlight = n
		i = j
		if !c.Bucketed {
			pts = append(pts, p)
			continue
		}
		k := int(p.Seconds / width)
		if k >= MaxCurvePoints {
			k = MaxCurvePoints - 1
		}
		at := float64(k) * width
		if len(pts) == 0 || pts[len(pts)-1].Seconds != at {
			pts = append(pts, InFlightPoint{Seconds: at, Min: min(prev, p.Min), Max: max(prev, p.Max)})
		}
		q := &pts[len(pts)-1]
		q.Min, q.Max = min(q.Min, p.Min), max(q.Max, p.Max)
		q.InFlight = p.InFlight
		q.StartsAtPoint += p.StartsAtPoint
		prev = p.InFlight
	}
	c.Points = pts
	if wa := rep.Window; wa != nil {
		c.PeakInFlight, c.AtCShare, c.At90Share, c.ReachesAtStart = wa.PeakInFlight, wa.AtCShare, wa.AtOrAbove90Share, wa.ReachesAtStart
		mark := func(label string, e *aisbench.WindowEvent) *FigureMark {
			if e == nil {
				return nil
			}
			return &FigureMark{Label: label, Seconds: e.Seconds - origin, ID: e.ID, Start: e.Start, InFlight: e.InFlight}
		}
		c.FirstReach = mark("1st start reaching C (warm-up)", wa.FirstReach)
		c.WindowStart = mark("2nd start reaching C: window start", wa.Start)
		c.WindowEnd = mark("last event leaving C in flight: window end", wa.End)
	} else {
		for _, p := range pts {
			c.PeakInFlight = max(c.PeakInFlight, p.Max)
		}
	}
	if w := rep.Stable.Window; w != nil {
		c.HasWindow = true
		c.WindowFrom, c.WindowTo = w.StartSeconds-origin, w.EndSeconds-origin
		c.SelectedInWindow, c.OfIn = w.Selected, w.Of
	}
	return c
}

// timelineHash orders requests for the "sampled" part of the timelines: FNV-1a
// of the request ID, a fixed pseudo-random order.
func timelineHash(id string, index int) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	h.Write([]byte(strconv.Itoa(index)))
	return h.Sum64()
}

func timelines(in *findings.Input, found []findings.Finding, origin float64) *TimelineSample {
	kept := in.AIS.Kept
	s := &TimelineSample{Of: len(kept)}
	why := map[int][]string{}
	if len(kept) <= timelineAllUpTo {
		s.Rule = "every successful request"
		for _, idx := range kept {
			why[idx] = []string{"all"}
		}
	} else {
		s.Rule = strconv.Itoa(timelineSlowest) + " slowest and " + strconv.Itoa(timelineFastest) +
			" fastest by E2EL, the first request named by each finding, and " + strconv.Itoa(timelineRandom) +
			" more in a fixed pseudo-random order (FNV-1a of request ID and index), of " + unit.Plural(len(kept), "successful request")
		byE2E := slices.Clone(kept)
		e2e := func(i int) float64 { return in.AIS.Requests[i].Latency }
		slices.SortStableFunc(byE2E, func(a, b int) int { return aisbench.LessFirst(e2e(b), e2e(a)) })
		for _, idx := range byE2E[:timelineSlowest] {
			why[idx] = append(why[idx], "slowest")
		}
		for _, idx := range byE2E[len(byE2E)-timelineFastest:] {
			why[idx] = append(why[idx], "fastest")
		}
		byID := map[string]int{}
		for _, idx := range kept {
			if _, dup := byID[in.Run.ID(idx)]; !dup {
				byID[in.Run.ID(idx)] = idx
			}
		}
		for _, fd := range found {
			for _, id := range fd.Requests {
				if idx, ok := byID[id]; ok {
					why[idx] = append(why[idx], fd.Code)
					break
				}
			}
		}
		// Each request's hash once, not at every comparison.
		type hashed struct {
			idx  int
			hash uint64
		}
		rest := make([]hashed, 0, len(kept))
		for _, idx := range kept {
			if why[idx] == nil {
				rest = append(rest, hashed{idx, timelineHash(in.Run.ID(idx), idx)})
			}
		}
		sort.SliceStable(rest, func(i, j int) bool { return rest[i].hash < rest[j].hash })
		for _, r := range rest[:min(timelineRandom, len(rest))] {
			why[r.idx] = []string{"sampled"}
		}
	}
	stable := map[int]bool{}
	if in.AISResult.Stable.Window != nil {
		for _, idx := range in.AISResult.Stable.Requests {
			stable[idx] = true
		}
	}
	for _, idx := range kept {
		if why[idx] == nil {
			continue
		}
		tp := in.Run.TimePoints(idx, nil)
		var decoded []run.Event
		evs := in.Run.Events(idx, &decoded)
		fa := &in.SSE.Facts[idx]
		t := RequestTimeline{Index: idx, ID: in.Run.ID(idx), Why: why[idx], Stable: stable[idx],
			T0: tp[0] - origin, Tm: tp[len(tp)-1] - origin, HasEvents: fa.Events,
			E2ESeconds: in.AIS.Requests[idx].Latency, TTFTSeconds: in.AIS.Requests[idx].TTFT,
			TPOTSeconds: math.NaN(), OutputTokens: -1,
			ITLMeanSeconds: math.NaN(), ContentIntervalMeanSeconds: math.NaN(),
			FirstContentSeconds: math.NaN(), LastTextSeconds: math.NaN(),
			Intervals: fa.Intervals().Len(), ContentIntervals: fa.ContentGaps().Len(), ZeroGaps: in.AIS.Requests[idx].ZeroIntervals}
		if v, ok := in.SSE.Value(idx, metric.TPOT); ok {
			t.TPOTSeconds = v
		}
		if out := in.Run.OutputTokens(idx); out != nil {
			t.OutputTokens = *out
		}
		if fa.Intervals().Len() > 0 {
			t.ITLMeanSeconds = fa.IntervalsMean
		}
		if fa.ContentGaps().Len() > 0 {
			t.ContentIntervalMeanSeconds = fa.ContentMean
		}
		if fa.HasContent {
			t.FirstContentSeconds = fa.TTFContent + t.T0
		}
		step := 1
		if len(tp)-1 > timelineMaxEvents {
			step = (len(tp) - 1 + timelineMaxEvents - 1) / timelineMaxEvents
		}
		for i := 1; i < len(tp); i++ {
			cl := ""
			if fa.Events {
				cl = evs[i-1].Class.String()
				if evs[i-1].HasText() {
					t.LastTextSeconds = tp[i] - origin
					t.EventsAfterLastText = 0
				} else if !math.IsNaN(t.LastTextSeconds) {
					t.EventsAfterLastText++
				}
			}
			if (i-1)%step == 0 || i == len(tp)-1 || i == 1 {
				t.Events = append(t.Events, TimelineEvent{Seconds: tp[i] - origin, Class: cl})
			}
			if i == len(tp)-1 {
				t.TmClass = cl
			}
		}
		s.Requests = append(s.Requests, t)
	}
	return s
}

// Distributions bins a stage's pooled ITL and ContentUpdateInterval,
// walking each request's samples in the stage's order (the pools are not
// kept): the stage's requests (st.Requests), their facts, and sseaudit's
// figures of the stage (sse). The counts, N and means of the samples come
// from the ITL accounting and the ContentUpdateInterval metric (the same
// requests in the same order: np.mean of the concatenations all the same).
func Distributions(st *aisbench.StageResult, sse *ssemetrics.StageResult, facts []ssemetrics.Facts) *DistributionPair {
	if sse.ITL == nil || sse.ITL.Intervals == 0 {
		return nil
	}
	// Content gaps that are a piece of their request's intervals lie within
	// the range of the intervals already: only the others are looked at.
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, idx := range st.Requests {
		fa := &facts[idx]
		lo, hi = min(lo, fa.PositiveLo), max(hi, fa.PositiveHi)
		if fa.ContentFrom() < 0 {
			for _, x := range fa.ContentGaps().Own() {
				if x > 0 {
					lo, hi = min(lo, x), max(hi, x)
				}
			}
		}
	}
	p := &DistributionPair{Stage: st.Stage, BinsPerDecade: binsPerDecade[0]}
	if !math.IsInf(lo, 1) {
		p.Edges, p.BinsPerDecade = logBins(lo, hi)
	}
	edges := newEdgeIndex(p.Edges, lo, hi, p.BinsPerDecade)
	bins := max(len(p.Edges)-1, 0)
	binInto := func(h *histogram, xs []float64) {
		for _, x := range xs {
			if x <= 0 {
				h.zero++
				continue
			}
			i := edges.lastAtOrBelow(x) // bin [Edges[i], Edges[i+1])
			h.counts[max(0, min(i, bins-1))]++
		}
	}
	// Each interval is binned once, by whether its request's content gaps
	// are a piece of its intervals: then the content gaps' counts are the
	// intervals' less those of the intervals outside the piece (whole
	// numbers, so exactly), and only those are binned again.
	withPiece, others, outside, ownContent := newHistogram(bins), newHistogram(bins), newHistogram(bins), newHistogram(bins)
	var buf []float64
	for _, idx := range st.Requests {
		fa := &facts[idx]
		intervals := fa.Intervals().Read(&buf)
		content, from := fa.ContentGaps(), fa.ContentFrom()
		if from < 0 {
			binInto(&others, intervals)
			binInto(&ownContent, content.Own())
			continue
		}
		binInto(&withPiece, intervals)
		binInto(&outside, intervals[:from])
		binInto(&outside, intervals[from+content.Len():])
	}
	acc := sse.ITL
	p.ITL = &Distribution{Metric: metric.ITL, Samples: acc.Intervals, N: acc.AISBenchN,
		PooledMeanSeconds: acc.PooledMeanSeconds, PerRequestMeanSeconds: acc.PerRequestMeanSeconds,
		Zero: withPiece.zero + others.zero, Counts: make([]int, bins)}
	for i := range p.ITL.Counts {
		p.ITL.Counts[i] = withPiece.counts[i] + others.counts[i]
	}
	if m := sse.Metric(metric.ContentUpdateInterval); m != nil {
		var means []float64
		for _, idx := range st.Requests {
			if fa := &facts[idx]; fa.ContentGaps().Len() > 0 {
				means = append(means, fa.ContentMean)
			}
		}
		pooled, ok := m.Statistic("Average")
		if !ok {
			var gaps samples.Pool
			for _, idx := range st.Requests {
				gaps = append(gaps, facts[idx].ContentGaps())
			}
			pooled.Raw = gaps.Mean()
		}
		p.Content = &Distribution{Metric: metric.ContentUpdateInterval, Samples: m.Samples, N: m.N,
			PooledMeanSeconds: pooled.Raw, PerRequestMeanSeconds: pynum.NumpyMean(means),
			Zero: withPiece.zero - outside.zero + ownContent.zero, Counts: make([]int, bins)}
		for i := range p.Content.Counts {
			p.Content.Counts[i] = withPiece.counts[i] - outside.counts[i] + ownContent.counts[i]
		}
	}
	return p
}

// MinBins is the fewest bins a histogram puts across its samples' range
// (when they are not all one value), and BinResolution, in seconds, the
// narrowest bin, about the precision of time points as float seconds since
// the epoch (2.4e-7 s apart): samples closer than it are one value.
const (
	MinBins       = 20
	BinResolution = 1e-6
)

// binsPerDecade are the densities of the histograms' logarithmic bins,
// coarsest first: 10, 20, 50, 100, ... 10^9 a decade (bins 2.3e-9 of
// their value wide, far wider than float64's spacing).
var binsPerDecade = func() []int {
	var out []int
	for p := 10; p <= 1e9; p *= 10 {
		out = append(out, p, 2*p, 5*p)
	}
	return out[:len(out)-2]
}()

// logBins are the edges of the coarsest bins of binsPerDecade, b a decade
// at 10^(k/b), at least MinBins of which fit across [lo, hi] (positive:
// b·log10(hi/lo) >= MinBins), from the last edge at or below lo to the
// first above hi; but no finer than bins BinResolution wide at lo (fewer
// bins then), and ten a decade for samples all within BinResolution.
func logBins(lo, hi float64) (edges []float64, perDecade int) {
	for i, b := range binsPerDecade {
		finer := i+1 < len(binsPerDecade) && lo*(math.Pow(10, 1/float64(binsPerDecade[i+1]))-1) >= BinResolution
		if float64(b)*math.Log10(hi/lo) < MinBins && hi-lo >= BinResolution && finer {
			continue
		}
		edge := func(k int) float64 { return math.Pow(10, float64(k)/float64(b)) }
		k0 := int(math.Floor(float64(b) * math.Log10(lo)))
		k1 := int(math.Floor(float64(b)*math.Log10(hi))) + 1
		// Pow and Log10 round: put the edges where the rule says exactly.
		for edge(k0) > lo {
			k0--
		}
		for edge(k0+1) <= lo {
			k0++
		}
		for edge(k1) <= hi {
			k1++
		}
		for k1-1 > k0 && edge(k1-1) > hi {
			k1--
		}
		edges = make([]float64, 0, k1-k0+1)
		for k := k0; k <= k1; k++ {
			edges = append(edges, edge(k))
		}
		return edges, b
	}
	panic("unreachable")
}

// histogram is counts of samples in bins, the zeros apart.
type histogram struct {
	counts []int
	zero   int
}

func newHistogram(bins int) histogram { return histogram{counts: make([]int, bins)} }

// edgeIndex finds the last of ascending edges at or below a sample without a
// binary search for the samples in [lo, hi], positive and finite: a
// positive float's bits grow with it, so their top 12+m (exponent and m
// mantissa bits, a 2^m-th of an octave) index a table of the answer at each
// cell's smallest value, and a step or two up the edges finishes. m grows
// with the bins' density so that a bin spans about three cells or more
// (m = 4 for ten bins a decade, 0.3 octave apart; 6 for 50 a decade).
type edgeIndex struct {
	edges    []float64
	lo, hi   float64
	shift    uint // 52 - m
	firstBin uint64
	atCell   []int // the last edge at or below each cell's smallest value; -1 for none
}

func newEdgeIndex(edges []float64, lo, hi float64, perDecade int) edgeIndex {
	e := edgeIndex{edges: edges, lo: lo, hi: hi}
	if len(edges) == 0 || !(lo > 0) || math.IsInf(hi, 1) {
		return e // no fast path
	}
	m := max(4, int(math.Ceil(math.Log2(float64(perDecade)))))
	e.shift = uint(52 - min(m, 40))
	e.firstBin = math.Float64bits(lo) >> e.shift
	for c := e.firstBin; c <= math.Float64bits(hi)>>e.shift; c++ {
		e.atCell = append(e.atCell, e.search(math.Float64frombits(c<<e.shift)))
	}
	return e
}

// lastAtOrBelow is the index of the last edge <= x (-1 for none; the last
// edge for NaN), as a binary search finds it.
func (e edgeIndex) lastAtOrBelow(x float64) int {
	if e.atCell == nil || !(x >= e.lo && x <= e.hi) {
		return e.search(x)
	}
	i := e.atCell[math.Float64bits(x)>>e.shift-e.firstBin]
	for i+1 < len(e.edges) && e.edges[i+1] <= x {
		i++
	}
	return i
}

func (e edgeIndex) search(x float64) int {
	i := sort.SearchFloat64s(e.edges, x) // first edge >= x
	if i < len(e.edges) && e.edges[i] == x {
		i++
	}
	return i - 1
}
