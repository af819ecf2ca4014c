package lag

import (
	"cmp"
	"slices"
)

// Request is one request of one side.
type Request struct {
	ID      string
	Prompt  string // "" when not known
	Success bool
	T0Ns    int64   // the side's t0, on its clock
	EndNs   int64   // its end (the last time point when not known)
	Points  []int64 // the time points after t0, ns on the side's clock
	// OutputTokens is the request's output token count; -1 when unknown.
	OutputTokens int64
}

// compared reports whether a request has time points to compare.
func (r *Request) compared() bool { return r.Success && len(r.Points) > 0 }

// Pair is a matched request: indices into the wire and client lists.
type Pair struct {
	Wire, Client int
	ByPrompt     bool
}

// maxRankDistance bounds how far apart in t0 order a request's two sides
// may be when matched by order and time.
const maxRankDistance = 64

// Match pairs client requests with wire requests: by prompt first (in t0
// order within a prompt), then the rest by order and time.
func Match(wire, client []Request) []Pair {
	usedW := make([]bool, len(wire))
	usedC := make([]bool, len(client))
	var pairs []Pair
	byPrompt := map[string][]int{}
	for _, i := range byT0(wire) {
		if p := wire[i].Prompt; p != "" {
			byPrompt[p] = append(byPrompt[p], i)
		}
	}
	for _, j := range byT0(client) {
		q := byPrompt[client[j].Prompt]
		if client[j].Prompt == "" || len(q) == 0 {
			continue
		}
		byPrompt[client[j].Prompt] = q[1:]
		usedW[q[0]], usedC[j] = true, true
		pairs = append(pairs, Pair{Wire: q[0], Client: j, ByPrompt: true})
	}
	var restW, restC []int
	for _, i := range byT0(wire) {
		if !usedW[i] {
			restW = append(restW, i)
		}
	}
	for _, j := range byT0(client) {
		if !usedC[j] {
			restC = append(restC, j)
		}
	}
	pairs = append(pairs, matchByTime(wire, client, restW, restC)...)
	slices.SortFunc(pairs, func(a, b Pair) int { return cmp.Compare(a.Wire, b.Wire) })
	return pairs
}

// matchByTime pairs the requests left (each list in t0 order). The
// clocks' rough offset d is the median of the t0 differences of requests
// of the same rank; a client request and a wire request within
// maxRankDistance ranks are then as far apart as their time points are,
// d removed (t0, then each event while both have one, then the end); the
// nearest pairs are taken first (ties in list order).
func matchByTime(wire, client []Request, w, c []int) []Pair {
	n := min(len(w), len(c))
	if n == 0 {
		return nil
	}
	diffs := make([]int64, n)
	for k := range n {
		diffs[k] = client[c[k]].T0Ns - wire[w[k]].T0Ns
	}
	slices.Sort(diffs)
	d := diffs[n/2]
	type cand struct {
		cost float64
		k, r int
	}
	var cands []cand
	for k, j := range c {
		for r := max(0, k-maxRankDistance); r < min(len(w), k+maxRankDistance+1); r++ {
			if alike(&client[j], &wire[w[r]]) {
				cands = append(cands, cand{distance(&client[j], &wire[w[r]], d), k, r})
			}
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return cmp.Compare(a.cost, b.cost) })
	usedC, usedW := make([]bool, len(c)), make([]bool, len(w))
	var pairs []Pair
	for _, x := range cands {
		if usedC[x.k] || usedW[x.r] {
			continue
		}
		usedC[x.k], usedW[x.r] = true, true
		pairs = append(pairs, Pair{Wire: w[x.r], Client: c[x.k]})
	}
	return pairs
}

// alike reports whether two sides may be one request: about as many
// events (within a quarter, or 2) and about as long (within half the
// wire's duration, or 50 ms). A request without events on a side (failed)
// is alike any.
func alike(c, w *Request) bool {
	if len(c.Points) == 0 || len(w.Points) == 0 {
		return true
	}
	dc := abs(int64(len(c.Points) - len(w.Points)))
	if dc > max(2, int64(len(w.Points))/4) {
		return false
	}
	cd, wd := c.EndNs-c.T0Ns, w.EndNs-w.T0Ns
	return abs(cd-wd) <= max(50e6, wd/2)
}

// distance is how far apart two sides of a request are, d removed: the
// mean absolute difference of their t0s, their events (while both have
// one) and their ends, in ns, times one more than the difference of their
// event counts.
func distance(c, w *Request, d int64) float64 {
	sum := float64(abs(c.T0Ns-w.T0Ns-d)) + float64(abs(c.EndNs-w.EndNs-d))
	k := min(len(c.Points), len(w.Points))
	for i := range k {
		sum += float64(abs(c.Points[i] - w.Points[i] - d))
	}
	dc := len(c.Points) - len(w.Points)
	if dc < 0 {
		dc = -dc
	}
	// Requests that start together have events at much the same times:
	// a difference in the number of events tells them apart.
	return sum / float64(k+2) * float64(1+dc)
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// byT0 is the indices of reqs in t0 order (stable: ties in list order).
func byT0(reqs []Request) []int {
	idx := make([]int, len(reqs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(reqs[a].T0Ns, reqs[b].T0Ns) })
	return idx
}

// Offset is the clocks' offset: client time = wire time + Ns.
type Offset struct {
	Ns int64
	// Source says where Ns comes from: "estimated" (the least-lagged
	// event taken as without lag) or the known clock that lies within
	// the bounds ("clock_monotonic_ns", "started_unix_ns").
	Source string
	// LowNs and HighNs bound the offset: requests are sent before the tap
	// gets them (LowNs), events arrive at the client after the tap
	// (HighNs). Consistent is false when LowNs > HighNs (requests matched
	// wrongly, or clocks that drift).
	LowNs, HighNs int64
	Consistent    bool
	Bounded       bool // false when no request could be compared
}

// Known is a clock offset known from the run's metadata.
type Known struct {
	Name string
	Ns   int64
}

// knownSlackNs is how far outside the bounds a known offset may lie (a
// client's float seconds lose that much).
const knownSlackNs = 2000

// EstimateOffset bounds and estimates the clocks' offset from the matched
// requests both sides could compare.
func EstimateOffset(wire, client []Request, pairs []Pair, known []Known) Offset {
	var o Offset
	// The upper bound comes from the requests whose two sides count the
	// same events (then the k-th point is the k-th event); only when none
	// does, from those where the client counts fewer (a client point
	// then stands for the wire's event k or a later one, unless the
	// counts differ otherwise than by merging).
	same := false
	for _, p := range pairs {
		w, c := &wire[p.Wire], &client[p.Client]
		same = same || (w.compared() && c.compared() && len(w.Points) == len(c.Points))
	}
	haveLow := false
	for _, p := range pairs {
		w, c := &wire[p.Wire], &client[p.Client]
		if !w.compared() || !c.compared() {
			continue
		}
		low := c.T0Ns - w.T0Ns
		high, ok := int64(0), false
		if len(c.Points) == len(w.Points) || (!same && len(c.Points) < len(w.Points)) {
			for k, t := range c.Points {
				if d := t - w.Points[k]; !ok || d < high {
					high, ok = d, true
				}
			}
		}
		if !haveLow || low > o.LowNs {
			o.LowNs, haveLow = low, true
		}
		if ok && (!o.Bounded || high < o.HighNs) {
			o.HighNs, o.Bounded = high, true
		}
	}
	if !o.Bounded {
		o.HighNs = o.LowNs
	}
	o.Consistent = o.Bounded && o.LowNs <= o.HighNs
	o.Ns, o.Source = o.HighNs, "estimated"
	for _, k := range known {
		if o.Bounded && k.Ns >= o.LowNs-knownSlackNs && k.Ns <= o.HighNs+knownSlackNs {
			o.Ns, o.Source = k.Ns, k.Name
			break
		}
	}
	return o
}

// Alignment maps a request's client points to wire events.
type Alignment struct {
	// Wire[k] is the wire event of client point k; -1 for a point the
	// wire does not show.
	Wire []int
	// Merged counts wire events the client timed together with a later
	// one; Extra the client points the wire does not show; Never the
	// wire events after the client's last point.
	Merged, Extra, Never int
}

// Align maps client points c to wire events w (offset removed): one to one
// when they count the same, else in time order.
func Align(c, w []int64, offset int64) Alignment {
	a := Alignment{Wire: make([]int, len(c))}
	if len(c) == len(w) {
		for k := range c {
			a.Wire[k] = k
		}
		return a
	}
	j := -1
	for k, t := range c {
		next := j
		for next+1 < len(w) && w[next+1]+offset <= t {
			next++
		}
		if next == j {
			a.Wire[k] = -1
			a.Extra++
			continue
		}
		a.Merged += next - j - 1
		a.Wire[k] = next
		j = next
	}
	a.Never = len(w) - 1 - j
	return a
}
