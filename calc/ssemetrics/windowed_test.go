package ssemetrics

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/run"
)

// windowedByScan is Windowed's count made the plain way: every point of
// every kept request read and tested against the window.
func windowedByScan(r *run.Run, ais *aisbench.Calc, w *aisbench.Window) (events, requests int, count float64, basis string) {
	var tokens, outputEvents int64
	allKnown, allEvents := true, true
	var tp []float64
	var decoded []run.Event
	for _, i := range ais.Kept {
		tp = r.TimePoints(i, tp)
		evs := r.Events(i, &decoded)
		if evs == nil || len(evs) != len(tp)-1 {
			evs, allEvents = nil, false
		}
		counted := false
		for k, t := range tp[1:] {
			if t < w.StartSeconds || t > w.EndSeconds {
				continue
			}
			counted = true
			events++
			if evs == nil {
				continue
			}
			n := r.EventTokens(i, k)
			if OutputEvent(evs[k]) {
				outputEvents++
				allKnown = allKnown && n >= 0
			}
			if n > 0 {
				tokens += n
			}
		}
		if counted {
			requests++
		}
	}
	switch {
	case !allEvents:
		return events, requests, float64(events), "time points"
	case !allKnown:
		return events, requests, float64(outputEvents), "output events"
	}
	return events, requests, float64(tokens), "tokens"
}

// TestWindowedAsScan: the windowed throughput, which counts a request
// inside the window without reading its points, counts what a scan of
// every point does: requests inside, across either edge and outside the
// window; with events and without; time points that go back (unordered,
// where First and End bound nothing) and repeat.
func TestWindowedAsScan(t *testing.T) {
	for seed := range uint64(40) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			r := run.New(nil)
			withEvents := seed%2 == 0
			for i := range 300 {
				start := float64(i/8) * 0.05
				n := 2 + rng.IntN(30)
				tp := []float64{start}
				var evs []record.Event
				for k := 1; k < n; k++ {
					step := 0.01 * rng.Float64()
					switch rng.IntN(12) {
					case 0:
						step = 0 // a repeated point
					case 1:
						if seed%3 == 0 && tp[len(tp)-1]-start > 0.01 {
							step = -0.005 * rng.Float64() // back: unordered
						}
					}
					tp = append(tp, tp[len(tp)-1]+step)
					if withEvents {
						e := record.Event{Class: replay.ClassContent, ContentBytes: 1, Tokens: int64(rng.IntN(3))}
						if k == 1 {
							e = record.Event{Class: replay.ClassRole}
						}
						evs = append(evs, e)
					}
				}
				if seed%3 == 0 && rng.IntN(40) == 0 && n > 3 {
					tp[1] = tp[len(tp)-1] + 0.02 // the first point after the last
				}
				r.Add(record.Request{ID: fmt.Sprint(i), Success: rng.IntN(20) != 0, TimePoints: tp, Events: evs})
			}
			ais, err := aisbench.New(r, aisbench.Config{MaxConcurrency: 8})
			if err != nil {
				t.Fatal(err)
			}
			sse := New(r, ais, Config{})
			parts := ais.Parts()
			for k := range parts {
				ais.Derive(&parts[k], sse.Deriver())
			}
			ais.Finish(parts)
			st := ais.Stable()
			if st.Window == nil {
				t.Skipf("no stable window: %v", st.Err)
			}
			got := sse.Windowed(st)
			events, requests, count, basis := windowedByScan(r, ais, st.Window)
			if got.Events != events || got.Requests != requests || got.Count != count || got.Basis != basis {
				t.Errorf("windowed %d events, %d requests, %v %s; by a scan %d, %d, %v %s",
					got.Events, got.Requests, got.Count, got.Basis, events, requests, count, basis)
			}
			if got.Requests == 0 || got.Requests == len(ais.Kept) {
				t.Errorf("%d of %d requests in the window: the test wants some in and some out", got.Requests, len(ais.Kept))
			}
		})
	}
}
