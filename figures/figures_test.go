package figures

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sseaudit/sseaudit/calc/aisbench"
)

// edgeIndex's table finds the edge a binary search finds, edges themselves
// and values beside them included, at every bin density.
func TestEdgeIndex(t *testing.T) {
	for _, c := range []struct {
		perDecade int
		lo, hi    float64
	}{{10, 1.3e-6, 9.7}, {50, 0.0101, 0.0299}, {10000, 0.02, 0.0201}, {20000, 0.02, 0.02001}} {
		edges, b := logBins(c.lo, c.hi)
		if b != c.perDecade {
			t.Errorf("[%v, %v]: %d bins a decade, want %d", c.lo, c.hi, b, c.perDecade)
		}
		e := newEdgeIndex(edges, c.lo, c.hi, b)
		xs := []float64{c.lo, c.hi, math.NaN(), c.lo / 2, c.hi * 2}
		for _, x := range edges {
			xs = append(xs, x, math.Nextafter(x, 0), math.Nextafter(x, 100))
		}
		for i := range 100000 {
			xs = append(xs, c.lo*math.Pow(c.hi/c.lo, float64(i)/100000))
		}
		for _, x := range xs {
			if got, want := e.lastAtOrBelow(x), e.search(x); got != want {
				t.Errorf("%d a decade, %v: edge %d, binary search %d", b, x, got, want)
			}
		}
	}
}

// The bins follow the data: at least MinBins across the range, ten a
// decade when that is enough, the first edge at or below the smallest
// sample and the last above the largest.
func TestLogBins(t *testing.T) {
	for _, c := range []struct {
		lo, hi          float64
		perDecade, bins int
	}{
		{0.010, 0.030, 50, 24},             // chat: 10 to 30 ms
		{0.0001, 0.027, 10, 25},            // 0.1 to 27 ms: 2.4 decades
		{0.001, 0.1, 10, 21},               // exactly two decades: both edges on a decade
		{0.02, 0.02, 10, 1},                // one value
		{0.25, 0.25000000000000006, 10, 1}, // one value and float64's noise (1.45 - 1.2 against 1.7 - 1.45)
		{0.02, 0.0200005, 10, 1},           // within BinResolution
		{0.02, 0.02001, 20000, 5},          // 10 µs apart: bins of a microsecond or more, fewer than 20
		{1e-7, 3e-7, 10, 5},                // below a microsecond: ten a decade, never coarser
		{1e-6, 10, 10, 71},                 // seven decades
		{0.0195, 0.0205, 1000, 22},         // 19.5 to 20.5 ms
		{0.004, 0.005, 500, 49},            // 4 to 5 ms: 19.4 bins wide at 200 a decade
		{0.004, 0.00499, 500, 49},          // 4 to 4.99 ms
		{2e-300, 3e-300, 10, 2},            // tiny: within BinResolution, one value
		{1e300, 1.5e300, 200, 37},          // huge
	} {
		edges, b := logBins(c.lo, c.hi)
		if b != c.perDecade || len(edges)-1 != c.bins {
			t.Errorf("[%v, %v]: %d bins at %d a decade, want %d at %d", c.lo, c.hi, len(edges)-1, b, c.bins, c.perDecade)
		}
		if !(edges[0] <= c.lo && c.lo < edges[1] && edges[len(edges)-2] <= c.hi && c.hi < edges[len(edges)-1]) {
			t.Errorf("[%v, %v]: edges %v ... %v do not hold the range in their first and last bins", c.lo, c.hi, edges[:2], edges[len(edges)-2:])
		}
		if across := float64(b) * math.Log10(c.hi/c.lo); c.hi-c.lo >= 20*BinResolution && across < MinBins {
			t.Errorf("[%v, %v]: %.1f bins across the range, want %d or more", c.lo, c.hi, across, MinBins)
		}
		if w := c.lo * (math.Pow(10, 1/float64(b)) - 1); b > 10 && w < BinResolution {
			t.Errorf("[%v, %v]: bins %v s wide, want %v or more", c.lo, c.hi, w, BinResolution)
		}
		if i := slices.Index(binsPerDecade, b); i > 0 && float64(binsPerDecade[i-1])*math.Log10(c.hi/c.lo) >= MinBins && c.hi-c.lo >= BinResolution {
			t.Errorf("[%v, %v]: %d a decade, but %d would do", c.lo, c.hi, b, binsPerDecade[i-1])
		}
		for i := 1; i < len(edges); i++ {
			if !(edges[i] > edges[i-1]) {
				t.Fatalf("[%v, %v]: edges not increasing at %d", c.lo, c.hi, i)
			}
		}
	}
}

// pointsThenBuckets is the in-flight curve's points as made before they were
// bucketed as they come: a point per instant, then, past MaxCurvePoints,
// buckets of equal width over them.
func pointsThenBuckets(events []aisbench.WalkEvent, origin float64) []InFlightPoint {
	var pts []InFlightPoint
	n := 0
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
		pts = append(pts, p)
		i = j
	}
	if len(pts) <= MaxCurvePoints {
		return pts
	}
	width := pts[len(pts)-1].Seconds / float64(MaxCurvePoints-1)
	var out []InFlightPoint
	prev := 0
	for _, p := range pts {
		k := min(int(p.Seconds/width), MaxCurvePoints-1)
		at := float64(k) * width
		if len(out) == 0 || out[len(out)-1].Seconds != at {
			out = append(out, InFlightPoint{Seconds: at, Min: min(prev, p.Min), Max: max(prev, p.Max)})
		}
		q := &out[len(out)-1]
		q.Min, q.Max = min(q.Min, p.Min), max(q.Max, p.Max)
		q.InFlight = p.InFlight
		q.StartsAtPoint += p.StartsAtPoint
		prev = p.InFlight
	}
	return out
}

// The curve's points, bucketed as the instants come, are those of a point
// per instant bucketed afterwards: below, at and past MaxCurvePoints
// instants, with several events at one instant.
func TestInFlightCurveStreamed(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, requests := range []int{1, 10, MaxCurvePoints / 2, MaxCurvePoints/2 + 1, 3000, 20000} {
		var events []aisbench.WalkEvent
		for i := range requests {
			start := float64(rng.IntN(requests*3)) * 0.001 // equal instants now and then
			end := start + float64(1+rng.IntN(500))*0.001
			events = append(events, aisbench.WalkEvent{Time: start, Start: true, Pos: i}, aisbench.WalkEvent{Time: end, Pos: i})
		}
		slices.SortStableFunc(events, func(a, b aisbench.WalkEvent) int { return cmp.Compare(a.Time, b.Time) })
		origin := events[0].Time - 0.5
		c := inFlightCurve(&aisbench.Result{Stable: &aisbench.StageResult{}}, events, origin)
		want := pointsThenBuckets(events, origin)
		if !slices.Equal(c.Points, want) {
			t.Fatalf("%d requests: %d points (bucketed %v), want %d", requests, len(c.Points), c.Bucketed, len(want))
		}
		instants := len(slices.CompactFunc(slices.Clone(events), func(a, b aisbench.WalkEvent) bool { return a.Time == b.Time }))
		if c.Bucketed != (instants > MaxCurvePoints) || len(c.Points) > MaxCurvePoints {
			t.Errorf("%d requests, %d instants: bucketed %v, %d points", requests, instants, c.Bucketed, len(c.Points))
		}
	}
}
