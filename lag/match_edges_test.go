package lag

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/findings"
)

// run is a run whose truth is known: n requests sent 5 to 60 ms apart,
// 12 to 20 events each about 10 ms apart; the client's clock is the wire's
// plus 5000 s, its t0 1 ms before the tap's, every event seen 0.2 ms late.
// Request i is "w%02d" on the wire, "c%02d" on the client.
func run(seed uint64, n int) (wire, client []Request) {
	rng := rand.New(rand.NewPCG(seed, 1))
	const off = 5_000_000_000_000
	t0 := int64(0)
	for i := range n {
		t0 += 5e6 + rng.Int64N(55e6)
		ev := 12 + rng.IntN(9)
		w := Request{ID: fmt.Sprintf("w%02d", i), Success: true, T0Ns: t0, OutputTokens: int64(ev)}
		c := Request{ID: fmt.Sprintf("c%02d", i), Success: true, T0Ns: t0 + off - 1e6, OutputTokens: int64(ev)}
		t := t0 + 30e6
		for range ev {
			t += 8e6 + rng.Int64N(4e6)
			w.Points = append(w.Points, t)
			c.Points = append(c.Points, t+off+200e3)
		}
		w.EndNs, c.EndNs = t, t+off+200e3
		wire, client = append(wire, w), append(client, c)
	}
	return wire, client
}

// One request that only one side holds (vllm bench serve's initial test
// request, an AIPerf warm-up, a request the client lost) must not shift the
// matching of all the others.
func TestMatchOneRequestOnOneSide(t *testing.T) {
	for seed := range uint64(5) {
		wire, client := run(seed, 40)
		for _, side := range []struct {
			name string
			w, c []Request
		}{{"client lacks the first", wire, client[1:]}, {"wire lacks the first", wire[1:], client}} {
			wrong := 0
			for _, p := range Match(side.w, side.c) {
				if side.w[p.Wire].ID[1:] != side.c[p.Client].ID[1:] {
					wrong++
				}
			}
			rep := Compare(side.w, side.c, Options{})
			if wrong > 0 || !rep.Offset.Consistent || rep.Lag.Max != 0 || len(rep.Findings) != 0 {
				t.Errorf("seed %d, %s: %d of 39 matched wrongly; offset %+v; lag P50 %.3f ms, max %.3f ms (true: 0); %d findings",
					seed, side.name, wrong, rep.Offset, rep.Lag.P50/1e6, rep.Lag.Max/1e6, len(rep.Findings))
			}
		}
	}
}

// A prompt the wire holds twice and the client once (a warm-up request of
// the dataset's first prompt, which AIPerf and GenAI-Perf leave out of
// their export) is the client's later request, not the warm-up.
func TestMatchDuplicatePromptOneSide(t *testing.T) {
	const off = 1000e9
	mk := func(id, prompt string, t0, shift int64) Request {
		r := Request{ID: id, Prompt: prompt, Success: true, T0Ns: t0 + shift - 100e3, OutputTokens: 10}
		if shift == 0 {
			r.T0Ns = t0
		}
		for k := range 10 {
			r.Points = append(r.Points, t0+20e6+int64(k)*10e6+shift)
		}
		r.EndNs = r.Points[9]
		return r
	}
	wire := []Request{mk("warmup", "p", 0, 0), mk("w1", "q", 2e9, 0), mk("w2", "p", 4e9, 0)}
	// The client's clock: the wire's + 1000 s; every event 0.1 ms late.
	client := []Request{mk("c1", "q", 2e9, off+100e3), mk("c2", "p", 4e9, off+100e3)}
	for _, p := range Match(wire, client) {
		if w, c := wire[p.Wire].ID, client[p.Client].ID; w[1:] != c[1:] {
			t.Errorf("client %s matched with wire %s (by prompt %v)", c, w, p.ByPrompt)
		}
	}
	rep := Compare(wire, client, Options{})
	if rep.Lag.Max != 0 || len(rep.Findings) != 0 {
		t.Errorf("lag P50 %.3f ms, max %.3f ms (true: 0); offset %+v; findings %d", rep.Lag.P50/1e6, rep.Lag.Max/1e6, rep.Offset, len(rep.Findings))
	}
}

// A client that times one point more than the wire shows in every request
// (a last event its framer counts and --framer does not) gives no high
// bound; CLOCK_MONOTONIC, recorded by the tap and above the low bound, is
// still the offset: the lag is 0.2 ms, not the 1.2 ms of the low bound
// (which holds the client's 1 ms send delay), and no client-lag finding.
func TestOffsetKnownClockWithoutHighBound(t *testing.T) {
	wire, client := run(1, 10)
	for i := range client {
		client[i].EndNs += 1e6
		client[i].Points = append(client[i].Points, client[i].EndNs)
	}
	rep := Compare(wire, client, Options{Known: []Known{{"clock_monotonic_ns", 5_000_000_000_000}}})
	if rep.Offset.Source != "clock_monotonic_ns" || rep.Lag.P50 != 200e3 || len(rep.Findings) != 0 {
		t.Errorf("offset %+v; lag P50 %.3f ms (true 0.200); %d findings", rep.Offset, rep.Lag.P50/1e6, len(rep.Findings))
	}
	var b strings.Builder
	rep.WriteText(&b, Sources{})
	if strings.Contains(b.String(), "no request to compare") {
		t.Errorf("%d requests compared, yet:\n%s", rep.Compared, b.String())
	}
}

// TestMatchDuplicatePromptBothSides: a prompt sent twice on both sides is
// matched by prompt both times, in t0 order.
func TestMatchDuplicatePromptBothSides(t *testing.T) {
	mk := func(id, prompt string, t0 int64) Request {
		r := Request{ID: id, Prompt: prompt, Success: true, T0Ns: t0, OutputTokens: 3}
		for k := range 3 {
			r.Points = append(r.Points, t0+int64(k+1)*10e6)
		}
		r.EndNs = r.Points[2]
		return r
	}
	wire := []Request{mk("w1", "p", 0), mk("w2", "q", 1e9), mk("w3", "p", 2e9)}
	client := []Request{mk("c1", "p", 5e9), mk("c2", "q", 6e9), mk("c3", "p", 7e9)}
	pairs := Match(wire, client)
	if len(pairs) != 3 {
		t.Fatalf("%d pairs, want 3", len(pairs))
	}
	for _, p := range pairs {
		if w, c := wire[p.Wire].ID, client[p.Client].ID; w[1:] != c[1:] || !p.ByPrompt {
			t.Errorf("client %s matched with wire %s (by prompt %v)", c, w, p.ByPrompt)
		}
	}
}

// BenchmarkMatch: matching by order and time 100,000 requests a side,
// the client lacking the first.
func BenchmarkMatch(b *testing.B) {
	wire, client := run(7, 100_000)
	for b.Loop() {
		Match(wire, client[1:])
	}
}

// TestNearestFirstAsSortingAll: the pairs nearestFirst takes are those of
// sorting every candidate pair (nearest first, ties in (k, r) order) and
// taking each whose sides are both free, on runs with many equal costs,
// requests that are not alike and up to three times nearestKept
// candidates a request taken before its turn.
func TestNearestFirstAsSortingAll(t *testing.T) {
	allSorted := func(wire, client []Request, w, c []int, d int64) []Pair {
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
			if !usedC[x.k] && !usedW[x.r] {
				usedC[x.k], usedW[x.r] = true, true
				pairs = append(pairs, Pair{Wire: w[x.r], Client: c[x.k]})
			}
		}
		return pairs
	}
	sorted := func(p []Pair) []Pair {
		return slices.SortedFunc(slices.Values(p), func(a, b Pair) int { return cmp.Compare(a.Client, b.Client) })
	}
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 3))
		req := func(id string) Request {
			r := Request{ID: id, Success: true, T0Ns: rng.Int64N(8) * 1e6}
			for range rng.IntN(4) + 1 {
				r.Points = append(r.Points, r.T0Ns+rng.Int64N(4)*1e6)
			}
			slices.Sort(r.Points)
			r.EndNs = r.Points[len(r.Points)-1]
			return r
		}
		var wire, client []Request
		for i := range 10 + rng.IntN(150) {
			wire = append(wire, req(fmt.Sprint("w", i)))
		}
		for i := range 10 + rng.IntN(150) {
			client = append(client, req(fmt.Sprint("c", i)))
		}
		w, c := byT0(wire), byT0(client)
		d := rng.Int64N(3) * 1e6
		if got, want := sorted(nearestFirst(wire, client, w, c, d)), sorted(allSorted(wire, client, w, c, d)); !slices.Equal(got, want) {
			t.Fatalf("seed %d: %d pairs, want %d\n got %v\nwant %v", seed, len(got), len(want), got, want)
		}
	}
}

// The same run without a known clock: the offset is only its low bound,
// which holds the client's 1 ms send delay, so the lag (1.2 ms against a
// true 0.2 ms, 12% of the 10 ms ITL) is an upper bound: no client-lag
// finding, a lag-offset-unbounded one, and the text says so.
func TestOffsetUnboundedNoClientLag(t *testing.T) {
	wire, client := run(1, 10)
	for i := range client {
		client[i].EndNs += 1e6
		client[i].Points = append(client[i].Points, client[i].EndNs)
	}
	rep := Compare(wire, client, Options{})
	if !rep.Offset.Unbounded() || rep.Compared == 0 {
		t.Fatalf("offset %+v, %d compared: want one bounded from below only", rep.Offset, rep.Compared)
	}
	codes := map[string]bool{}
	for _, f := range rep.Findings {
		codes[f.Code] = true
	}
	if codes[findings.ClientLagCode] || !codes[findings.LagOffsetUnboundedCode] || len(rep.Findings) != 1 {
		t.Errorf("findings %+v: want lag-offset-unbounded alone", rep.Findings)
	}
	var b strings.Builder
	rep.WriteText(&b, Sources{})
	for _, want := range []string{"its low bound", "upper bounds", findings.LagOffsetUnboundedCode} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the text lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "no request to compare") {
		t.Errorf("%d requests compared, yet:\n%s", rep.Compared, b.String())
	}
}
