package lag

import (
	"math/rand/v2"
	"testing"
)

// synth is a run whose truth is known: n requests, c at a time, on the
// wire clock; the client's clock is the wire's plus offset, each event
// seen lag(k) late, t0 recorded send before the tap got the request.
func synth(n, events int, offset, send int64, lag func(req, k int) int64) (wire, client []Request) {
	for i := range n {
		t0 := int64(i/4) * 300e6
		w := Request{ID: "w" + string(rune('a'+i%26)) + string(rune('a'+i/26)), T0Ns: t0, Success: true, OutputTokens: int64(events + i%3)}
		ev := events + i%3 // requests that start together differ in length
		for k := range ev {
			w.Points = append(w.Points, t0+30e6+int64(k)*10e6+int64(i%4)*1e6)
		}
		w.EndNs = w.Points[len(w.Points)-1]
		c := Request{ID: "c" + w.ID, T0Ns: t0 + offset - send, Success: true, OutputTokens: w.OutputTokens}
		for k, t := range w.Points {
			c.Points = append(c.Points, t+offset+lag(i, k))
		}
		c.EndNs = c.Points[len(c.Points)-1]
		wire, client = append(wire, w), append(client, c)
	}
	// The client lists its requests in another order.
	for i := 0; i+1 < len(client); i += 2 {
		client[i], client[i+1] = client[i+1], client[i]
	}
	return wire, client
}

func TestCompareKnownLag(t *testing.T) {
	const offset = 5_000_000_000_123
	wire, client := synth(40, 12, offset, 200e3, func(req, k int) int64 { return 1e6 + int64(k%3)*100e3 })
	rep := Compare(wire, client, Options{})
	if rep.Matched != 40 || rep.Compared != 40 {
		t.Fatalf("matched %d, compared %d", rep.Matched, rep.Compared)
	}
	for _, p := range Match(wire, client) {
		if client[p.Client].ID != "c"+wire[p.Wire].ID {
			t.Fatalf("%s matched with %s", wire[p.Wire].ID, client[p.Client].ID)
		}
	}
	// The least-lagged event is taken as without lag: 1 ms less.
	o := rep.Offset
	if o.Source != "estimated" || o.Ns != offset+1e6 || !o.Consistent || o.LowNs != offset-200e3 {
		t.Fatalf("offset %+v", o)
	}
	if rep.Lag.Min != 0 || rep.Lag.Max != 200e3 || rep.Events.Aligned != rep.Lag.N || rep.Events.Merged != 0 {
		t.Fatalf("lag %+v, events %+v", rep.Lag, rep.Events)
	}
	// A clock known to lie within the bounds is taken: the lag is exact.
	rep = Compare(wire, client, Options{Known: []Known{{"far", 1}, {"mono", offset}}})
	if rep.Offset.Source != "mono" || rep.Lag.Min != 1e6 || rep.Lag.Max != 1.2e6 {
		t.Fatalf("known offset: %+v, lag %+v", rep.Offset, rep.Lag)
	}
	if len(rep.Findings) != 1 || rep.Findings[0].Code != "client-lag" {
		t.Fatalf("a 1 ms lag on a 10 ms ITL: findings %+v", rep.Findings)
	}
	// ITL unchanged by a lag that varies by at most 0.2 ms; TTFT less by
	// the lag.
	for _, m := range rep.Metrics {
		if m.Name == "TTFT" && m.Client.Mean-m.Wire.Mean < 1e6 {
			t.Errorf("TTFT client %v, wire %v", m.Client.Mean, m.Wire.Mean)
		}
	}
}

// Lag that grows with the requests in flight shows in the slope.
func TestLagGrowsWithInFlight(t *testing.T) {
	wire, client := synth(16, 10, 7, 0, func(req, k int) int64 { return 0 })
	for i := range wire { // matched by prompt: the test is about the slope
		wire[i].Prompt, client[i^1].Prompt = wire[i].ID, wire[i].ID
	}
	flight := newInFlight(wire)
	for i := range client {
		for k := range client[i].Points {
			n := flight.at(wire[i^1].Points[k]) // client i is wire i^1 (swapped)
			client[i].Points[k] += int64(n) * 500e3
		}
		client[i].EndNs = client[i].Points[len(client[i].Points)-1]
	}
	rep := Compare(wire, client, Options{Known: []Known{{"k", 7}}})
	if rep.ByPrompt != 16 {
		t.Fatalf("%d matched by prompt", rep.ByPrompt)
	}
	if rep.SlopeNsPerStream < 499e3 || rep.SlopeNsPerStream > 501e3 || len(rep.ByInFlight) < 2 {
		t.Fatalf("slope %v, buckets %+v", rep.SlopeNsPerStream, rep.ByInFlight)
	}
}

func TestAlign(t *testing.T) {
	w := []int64{10, 20, 30, 40}
	a := Align([]int64{25, 41}, w, 0) // merged 10+20, 30+40
	if a.Merged != 2 || a.Wire[0] != 1 || a.Wire[1] != 3 || a.Never != 0 || a.Extra != 0 {
		t.Errorf("merged: %+v", a)
	}
	a = Align([]int64{11, 12, 21, 31, 41}, w, 0)
	if a.Extra != 1 || a.Wire[1] != -1 || a.Never != 0 {
		t.Errorf("extra: %+v", a)
	}
	a = Align([]int64{11}, w, 0)
	if a.Never != 3 {
		t.Errorf("never: %+v", a)
	}
}

// FuzzCompare: any two sides compare without a panic, and the counts add
// up.
func FuzzCompare(f *testing.F) {
	f.Add(uint64(1), uint8(5), uint8(4), int64(1e9))
	f.Add(uint64(2), uint8(0), uint8(3), int64(-5))
	f.Fuzz(func(t *testing.T, seed uint64, nw, nc uint8, offset int64) {
		rng := rand.New(rand.NewPCG(seed, 15))
		side := func(n uint8, off int64) []Request {
			var out []Request
			for i := range int(n) % 40 {
				r := Request{ID: string(rune('a' + i)), T0Ns: rng.Int64N(1e9) + off, Success: rng.IntN(5) > 0, OutputTokens: rng.Int64N(5) - 1}
				if rng.IntN(4) == 0 {
					r.Prompt = string(rune('p' + rng.IntN(3)))
				}
				t := r.T0Ns
				for range rng.IntN(8) {
					t += rng.Int64N(2e7) - 1e6
					r.Points = append(r.Points, t)
				}
				r.EndNs = t
				out = append(out, r)
			}
			return out
		}
		wire, client := side(nw, 0), side(nc, offset)
		rep := Compare(wire, client, Options{})
		if rep.Matched > min(len(wire), len(client)) || rep.Compared > rep.Matched || rep.Events.Aligned != rep.Lag.N {
			t.Fatalf("report %+v", rep)
		}
	})
}
