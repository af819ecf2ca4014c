package lag

import (
	"slices"
	"sort"

	"github.com/sseaudit/sseaudit/findings"
	"github.com/sseaudit/sseaudit/pynum"
)

// Options tune Compare.
type Options struct {
	// Threshold: the client-lag finding is made when the median lag is
	// at least this fraction of the wire's mean ITL (DefaultThreshold
	// when 0).
	Threshold float64
	// Known are clock offsets known from the wire's metadata.
	Known []Known
}

// DefaultThreshold is Options.Threshold when 0.
const DefaultThreshold = 0.1

// Report is the client's lag against the wire.
type Report struct {
	WireRequests, ClientRequests int
	Matched, ByPrompt            int
	// Compared counts the matched requests both sides hold time points of
	// (successful on both).
	Compared int
	Offset   Offset
	Events   EventCounts
	Lag      Dist // per aligned event, ns
	// ByInFlight is the lag by the number of wire requests in flight at
	// the event's arrival; SlopeNsPerStream its least-squares slope.
	ByInFlight       []Bucket
	SlopeNsPerStream float64
	Metrics          []Metric
	Findings         []findings.Finding
}

// EventCounts count the events compared.
type EventCounts struct {
	Aligned, Merged, ClientOnly, NeverTimed int
	// Differ names the requests (wire IDs, up to 10) whose two sides
	// count different events; DifferCount counts them all.
	Differ      []string
	DifferCount int
}

// Dist is a distribution's statistics (numpy's mean and linear
// percentiles), in ns.
type Dist struct {
	N                                    int
	Min, P50, Mean, P90, P99, Max, Stdev float64
}

func dist(xs []float64) Dist {
	if len(xs) == 0 {
		return Dist{}
	}
	return Dist{N: len(xs), Min: pynum.NumpyMin(xs), P50: pynum.NumpyPercentile(xs, 50), Mean: pynum.NumpyMean(xs),
		P90: pynum.NumpyPercentile(xs, 90), P99: pynum.NumpyPercentile(xs, 99), Max: pynum.NumpyMax(xs), Stdev: pynum.NumpyStd(xs)}
}

// Bucket is the lag of the events that arrived with Lo to Hi requests in
// flight on the wire.
type Bucket struct {
	Lo, Hi int
	Lag    Dist
}

// Metric is one of AISBench's per-request metrics, from the client's time
// points and from the wire's times put in their place.
type Metric struct {
	Name         string
	Client, Wire Dist
}

// event is one aligned event.
type event struct {
	lag      float64
	inFlight int
}

// Compare compares the client's records with the wire's.
func Compare(wire, client []Request, opts Options) *Report {
	if opts.Threshold <= 0 {
		opts.Threshold = DefaultThreshold
	}
	rep := &Report{WireRequests: len(wire), ClientRequests: len(client)}
	pairs := Match(wire, client)
	rep.Matched = len(pairs)
	for _, p := range pairs {
		if p.ByPrompt {
			rep.ByPrompt++
		}
	}
	rep.Offset = EstimateOffset(wire, client, pairs, opts.Known)
	flight := newInFlight(wire)
	var events []event
	mv := newMetricValues()
	for _, p := range pairs {
		w, c := &wire[p.Wire], &client[p.Client]
		if !w.compared() || !c.compared() {
			continue
		}
		rep.Compared++
		a := Align(c.Points, w.Points, rep.Offset.Ns)
		rep.Events.Merged += a.Merged
		rep.Events.ClientOnly += a.Extra
		rep.Events.NeverTimed += a.Never
		if len(c.Points) != len(w.Points) {
			rep.Events.DifferCount++
			if len(rep.Events.Differ) < 10 {
				rep.Events.Differ = append(rep.Events.Differ, w.ID)
			}
		}
		for k, wi := range a.Wire {
			if wi < 0 {
				continue
			}
			rep.Events.Aligned++
			events = append(events, event{lag: float64(c.Points[k] - w.Points[wi] - rep.Offset.Ns), inFlight: flight.at(w.Points[wi])})
		}
		mv.add(w, c, a, rep.Offset.Ns)
	}
	lags := make([]float64, len(events))
	for i, e := range events {
		lags[i] = e.lag
	}
	rep.Lag = dist(lags)
	rep.ByInFlight = buckets(events)
	rep.SlopeNsPerStream = slope(events)
	rep.Metrics = mv.metrics()
	rep.Findings = rep.derive(wire, client, opts.Threshold)
	return rep
}

// derive is the report's findings: client-lag when the lag is a
// material part of ITL, unless the clocks' offset is inconsistent (the lag
// rests on an offset known to be wrong: lag-offset-inconsistent says so
// instead) or only bounded from below with no known clock (each lag is an
// upper bound: lag-offset-unbounded).
func (r *Report) derive(wire, client []Request, threshold float64) []findings.Finding {
	o := r.Offset
	bound := func(ns int64, p Pair) findings.LagBound {
		return findings.LagBound{Ns: ns, Wire: wire[p.Wire].ID, Client: client[p.Client].ID, MatchedByPrompt: p.ByPrompt}
	}
	switch {
	case o.Bounded && !o.Consistent:
		return []findings.Finding{*findings.LagOffsetInconsistent(bound(o.LowNs, o.LowBy), bound(o.HighNs, o.HighBy))}
	case o.Unbounded() && r.Compared > 0:
		return []findings.Finding{*findings.LagOffsetUnbounded(bound(o.LowNs, o.LowBy), r.Compared, r.Lag.P50)}
	}
	if f := findings.ClientLag(r.Lag.P50, r.metric("ITL"), r.metric("TTFT"), threshold); f != nil {
		return []findings.Finding{*f}
	}
	return nil
}

// metric is the named metric's client and wire figures, for the finding.
func (r *Report) metric(name string) findings.LagMetric {
	for _, m := range r.Metrics {
		if m.Name == name {
			return findings.LagMetric{ClientMeanNs: m.Client.Mean, WireMeanNs: m.Wire.Mean, ClientP99Ns: m.Client.P99, WireP99Ns: m.Wire.P99, N: m.Wire.N}
		}
	}
	return findings.LagMetric{}
}

// inFlight counts the wire requests in flight at a time.
type inFlight struct{ starts, ends []int64 }

func newInFlight(wire []Request) inFlight {
	var f inFlight
	for _, r := range wire {
		f.starts = append(f.starts, r.T0Ns)
		f.ends = append(f.ends, max(r.EndNs, r.T0Ns))
	}
	slices.Sort(f.starts)
	slices.Sort(f.ends)
	return f
}

// at is the number of requests started at or before t and not ended
// before t.
func (f inFlight) at(t int64) int {
	started := sort.Search(len(f.starts), func(i int) bool { return f.starts[i] > t })
	ended := sort.Search(len(f.ends), func(i int) bool { return f.ends[i] >= t })
	return started - ended
}

// maxBuckets bounds the in-flight table: more distinct counts are put in
// ranges of equal width.
const maxBuckets = 12

func buckets(events []event) []Bucket {
	if len(events) == 0 {
		return nil
	}
	lo, hi := events[0].inFlight, events[0].inFlight
	for _, e := range events {
		lo, hi = min(lo, e.inFlight), max(hi, e.inFlight)
	}
	width := 1
	if hi-lo+1 > maxBuckets {
		width = (hi - lo + maxBuckets) / maxBuckets
	}
	groups := map[int][]float64{}
	for _, e := range events {
		b := (e.inFlight - lo) / width
		groups[b] = append(groups[b], e.lag)
	}
	var out []Bucket
	for b := 0; b*width+lo <= hi; b++ {
		if xs := groups[b]; len(xs) > 0 {
			out = append(out, Bucket{Lo: lo + b*width, Hi: lo + (b+1)*width - 1, Lag: dist(xs)})
		}
	}
	return out
}

// slope is the least-squares slope of the lag on the number in flight.
func slope(events []event) float64 {
	n := float64(len(events))
	if n < 2 {
		return 0
	}
	var sx, sy float64
	for _, e := range events {
		sx += float64(e.inFlight)
		sy += e.lag
	}
	mx, my := sx/n, sy/n
	var sxy, sxx float64
	for _, e := range events {
		dx := float64(e.inFlight) - mx
		sxy += dx * (e.lag - my)
		sxx += dx * dx
	}
	if sxx == 0 {
		return 0
	}
	return sxy / sxx
}

// metricValues gathers the per-request metrics of both views.
type metricValues struct {
	names        []string
	client, wire map[string][]float64
}

func newMetricValues() *metricValues {
	return &metricValues{names: []string{"TTFT", "ITL", "TPOT", "E2EL"}, client: map[string][]float64{}, wire: map[string][]float64{}}
}

// add adds a request's metrics: AISBench's formulas on the client's time
// points, and on the same points with the wire's times in their place (a
// point the wire does not show keeps the time of the point before it).
func (m *metricValues) add(w, c *Request, a Alignment, offset int64) {
	cp := append([]int64{c.T0Ns}, c.Points...)
	wp := make([]int64, len(cp))
	wp[0] = w.T0Ns + offset
	for k, wi := range a.Wire {
		if wi < 0 {
			wp[k+1] = wp[k]
			continue
		}
		wp[k+1] = w.Points[wi] + offset
	}
	tokens := c.OutputTokens
	if tokens < 0 {
		tokens = w.OutputTokens
	}
	for _, side := range []struct {
		pts []int64
		out map[string][]float64
	}{{cp, m.client}, {wp, m.wire}} {
		p := side.pts
		ttft := float64(p[1] - p[0])
		e2el := float64(p[len(p)-1] - p[0])
		side.out["TTFT"] = append(side.out["TTFT"], ttft)
		side.out["E2EL"] = append(side.out["E2EL"], e2el)
		for k := 2; k < len(p); k++ {
			side.out["ITL"] = append(side.out["ITL"], float64(p[k]-p[k-1]))
		}
		if tokens > 1 {
			side.out["TPOT"] = append(side.out["TPOT"], (e2el-ttft)/float64(tokens-1))
		}
	}
}

func (m *metricValues) metrics() []Metric {
	var out []Metric
	for _, n := range m.names {
		if len(m.client[n]) == 0 {
			continue
		}
		out = append(out, Metric{Name: n, Client: dist(m.client[n]), Wire: dist(m.wire[n])})
	}
	return out
}
