package lag

import (
	"cmp"
	"container/heap"
	"math"
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
	// A prompt one side sends more often than the other (a warm-up, a
	// request one side lost) is matched by time: which of its requests go
	// together, their ranks do not tell.
	inClient := map[string]int{}
	for _, r := range client {
		inClient[r.Prompt]++
	}
	for p, q := range byPrompt {
		if len(q) != inClient[p] {
			delete(byPrompt, p)
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
	pairs = append(pairs, matchByTime(wire, client, restW, restC, pairs)...)
	slices.SortFunc(pairs, func(a, b Pair) int { return cmp.Compare(a.Wire, b.Wire) })
	return pairs
}

// matchByTime pairs the requests left (each list in t0 order). The
// clocks' rough offset d is the median of the t0 differences of the
// requests matched by prompt, or else roughOffset's; a client request and a wire request within
// maxRankDistance ranks are then as far apart as their time points are,
// d removed (t0, then each event while both have one, then the end); the
// nearest pairs are taken first (ties in list order).
func matchByTime(wire, client []Request, w, c []int, byPrompt []Pair) []Pair {
	n := min(len(w), len(c))
	if n == 0 {
		return nil
	}
	var d int64
	if len(byPrompt) > 0 { // the requests matched by prompt give it
		diffs := make([]int64, len(byPrompt))
		for i, p := range byPrompt {
			diffs[i] = client[p.Client].T0Ns - wire[p.Wire].T0Ns
		}
		slices.Sort(diffs)
		d = diffs[len(diffs)/2]
	} else {
		d = roughOffset(wire, client, w, c)
	}
	return nearestFirst(wire, client, w, c, d)
}

// nearestFirst pairs the nearest first, ties in (k, r) order: as if every
// candidate pair were sorted and taken unless a side is matched already.
// Each client request keeps only its few nearest candidates, found again
// (without the wire requests matched since) should they all be taken: all
// of them, sorted, took 9 s and 400 MB for 100,000 requests a side.
func nearestFirst(wire, client []Request, w, c []int, d int64) []Pair {
	usedW := make([]bool, len(w))
	lists := make([][]cand, len(c))
	h := &candHeap{lists: lists}
	for k := range c {
		if lists[k] = nearest(wire, client, w, c, k, d, usedW); len(lists[k]) > 0 {
			h.ks = append(h.ks, k)
		}
	}
	heap.Init(h)
	var pairs []Pair
	for h.Len() > 0 {
		k := h.ks[0]
		x := lists[k][0]
		if !usedW[x.r] {
			usedW[x.r] = true
			pairs = append(pairs, Pair{Wire: w[x.r], Client: c[k]})
			heap.Pop(h)
			continue
		}
		if lists[k] = lists[k][1:]; len(lists[k]) == 0 {
			lists[k] = nearest(wire, client, w, c, k, d, usedW)
		}
		if len(lists[k]) == 0 {
			heap.Pop(h)
		} else {
			heap.Fix(h, 0)
		}
	}
	return pairs
}

// cand is a client request (rank k) and a wire request (rank r) that may
// be one request, and how far apart they are.
type cand struct {
	cost float64
	k, r int
}

func compareCands(a, b cand) int {
	return cmp.Or(cmp.Compare(a.cost, b.cost), cmp.Compare(a.k, b.k), cmp.Compare(a.r, b.r))
}

// nearestKept is how many of its nearest candidates a client request keeps.
const nearestKept = 8

// nearest is client request k's nearestKept nearest candidates among the
// wire requests not used, nearest first.
func nearest(wire, client []Request, w, c []int, k int, d int64, usedW []bool) []cand {
	j := c[k]
	var kept [nearestKept]cand
	n := 0
	for r := max(0, k-maxRankDistance); r < min(len(w), k+maxRankDistance+1); r++ {
		if usedW[r] || !alike(&client[j], &wire[w[r]]) {
			continue
		}
		x := cand{distance(&client[j], &wire[w[r]], d), k, r}
		if n == nearestKept && compareCands(x, kept[n-1]) >= 0 {
			continue
		}
		// Insert x in order, the last one dropped when full.
		i := min(n, nearestKept-1)
		for ; i > 0 && compareCands(x, kept[i-1]) < 0; i-- {
			kept[i] = kept[i-1]
		}
		kept[i] = x
		n = min(n+1, nearestKept)
	}
	return slices.Clone(kept[:n])
}

// candHeap orders client requests by their nearest candidate left.
type candHeap struct {
	ks    []int
	lists [][]cand
}

func (h *candHeap) Len() int { return len(h.ks) }
func (h *candHeap) Less(i, j int) bool {
	return compareCands(h.lists[h.ks[i]][0], h.lists[h.ks[j]][0]) < 0
}
func (h *candHeap) Swap(i, j int) { h.ks[i], h.ks[j] = h.ks[j], h.ks[i] }
func (h *candHeap) Push(x any)    { h.ks = append(h.ks, x.(int)) }
func (h *candHeap) Pop() any {
	k := h.ks[len(h.ks)-1]
	h.ks = h.ks[:len(h.ks)-1]
	return k
}

// roughOffset is the clocks' rough offset: the median t0 difference of
// requests of the same rank, or of ranks a few apart when that difference
// puts each client request nearer a wire request (a request one side
// lacks shifts the ranks after it by one).
func roughOffset(wire, client []Request, w, c []int) int64 {
	const near = 16
	best, bestScore := int64(0), -1.0
	for i := 0; i <= 2*near; i++ { // shifts 0, -1, 1, -2, 2, ...: ties to the smaller
		s := (i + 1) / 2
		if i%2 == 1 {
			s = -s
		}
		var diffs []int64
		for k, j := range c {
			if r := k + s; r >= 0 && r < len(w) {
				diffs = append(diffs, client[j].T0Ns-wire[w[r]].T0Ns)
			}
		}
		if len(diffs) == 0 {
			continue
		}
		slices.Sort(diffs)
		d := diffs[len(diffs)/2]
		score := 0.0
		for k, j := range c {
			m := int64(math.MaxInt64)
			for r := max(0, k-near); r < min(len(w), k+near+1); r++ {
				m = min(m, abs(client[j].T0Ns-wire[w[r]].T0Ns-d))
			}
			score += float64(m)
		}
		if bestScore < 0 || score < bestScore {
			best, bestScore = d, score
		}
	}
	return best
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
	// LowBy and HighBy are the matched requests that give LowNs and
	// HighNs (the first when several do); HighBy only when Bounded.
	LowBy, HighBy Pair
	Consistent    bool
	Bounded       bool // false when no request could be compared
}

// Unbounded reports whether the offset is only a low bound: no request
// bounds it from above and no known clock lies above it. Every lag is then
// an upper bound.
func (o Offset) Unbounded() bool { return !o.Bounded && o.Source == "estimated" }

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
			o.LowNs, o.LowBy, haveLow = low, p, true
		}
		if ok && (!o.Bounded || high < o.HighNs) {
			o.HighNs, o.HighBy, o.Bounded = high, p, true
		}
	}
	if !o.Bounded {
		o.HighNs = o.LowNs
	}
	o.Consistent = o.Bounded && o.LowNs <= o.HighNs
	o.Ns, o.Source = o.HighNs, "estimated"
	for _, k := range known {
		// Without a high bound (every client counts more events), the low
		// bound alone bounds it.
		if haveLow && k.Ns >= o.LowNs-knownSlackNs && (!o.Bounded || k.Ns <= o.HighNs+knownSlackNs) {
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
