package audit_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/pynum"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/render"
	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/samples"
)

// packedRecords are requests whose time points are whole nanoseconds (as
// replay makes them, so that they pack): every event content, or a role
// event first and a usage-only tail, or content between role-only events,
// or reasoning before content; some intervals are 0, one request has too
// few points, one failed.
func packedRecords(n int) []record.Request {
	rng := rand.New(rand.NewPCG(3, 4))
	recs := make([]record.Request, n)
	for i := range recs {
		ns := int64(1_700_000_000_000_000_000) + int64(i)*40_000_000 + rng.Int64N(1_000_000)
		tp := []float64{pynum.SecondsFromNanos(ns)}
		var evs []record.Event
		events := 20 + i%50
		if i == 7 {
			events = 1
		}
		for k := range events {
			class, content, reasoning := replay.ClassContent, 3, 0
			switch {
			case i%4 == 1 && k == 0:
				class, content = replay.ClassRole, 0
			case i%4 == 1 && k == events-1:
				class, content = replay.ClassUsageOnly, 0
			case i%4 == 2 && k%5 == 2:
				class, content = replay.ClassRole, 0
			case i%4 == 3 && k < events/2:
				class, content, reasoning = replay.ClassReasoning, 0, 4
			}
			if k%9 != 4 { // else the same read: a zero interval
				ns += 5_000_000 + rng.Int64N(30_000_000)
			}
			tp = append(tp, pynum.SecondsFromNanos(ns))
			evs = append(evs, record.Event{Class: class, TNs: ns, Tokens: -1, ContentBytes: content, ReasoningBytes: reasoning})
		}
		in, out := int64(100), int64(events)
		recs[i] = record.Request{ID: fmt.Sprintf("p%d", i), Success: i != 11, TimePoints: tp, Events: evs, InputTokens: &in, OutputTokens: &out}
	}
	return recs
}

// buildPacked audits recs with the time points in the store newStore makes
// (nil: the default), ITL's samples kept.
func buildPacked(t testing.TB, recs []record.Request, newStore func() samples.Store) *audit.Report {
	t.Helper()
	b := audit.NewBuilder(audit.Config{MaxConcurrency: 3, Stats: []string{"Average", "Min", "Max", "P50", "P90", "P99.9"},
		NewStore: newStore, KeepITLSamples: true})
	for _, r := range recs {
		b.Add(r)
	}
	rep, err := b.Finalize()
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func renderAll(t *testing.T, rep *audit.Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	for _, write := range []func(*bytes.Buffer) error{
		func(w *bytes.Buffer) error { return render.JSON(w, rep) },
		func(w *bytes.Buffer) error { return render.Text(w, rep) },
		func(w *bytes.Buffer) error { return render.ITLJSON(w, rep) },
	} {
		if err := write(&buf); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// The report is the same whatever store keeps the time points: the plain
// reference (samples.Heap), the packed one in the Go heap, and the packed
// one mapping its slabs outside the heap from the first or a later slab;
// Finalize releases the store (no slab stays mapped), and the report holds
// nothing of it: it renders the same after the run's memory is gone.
func TestMappedStepsSameReport(t *testing.T) {
	recs := packedRecords(2000) // more than one slab of steps
	var wantITL []float64
	for _, r := range recs {
		if r.Success && len(r.TimePoints) > 2 {
			wantITL = append(wantITL, pynum.NumpyDiff(r.TimePoints[1:])...)
		}
	}
	want := buildPacked(t, recs, func() samples.Store { return samples.NewHeap() })
	wantOut := renderAll(t, want)
	if got := want.Total.Metric(metric.ITL).Values; !slices.Equal(got, wantITL) {
		t.Fatalf("ITL samples from the reference store: %d values, want %d (or different values)", len(got), len(wantITL))
	}
	for _, mapAfter := range []int{-1, 0, 1000, samples.DefaultMapAfter} {
		var store *samples.Packed
		rep := buildPacked(t, recs, func() samples.Store {
			store = samples.NewPacked(mapAfter)
			return store
		})
		if n := store.Mapped(); n != 0 {
			t.Errorf("map after %d: %d slabs still mapped after Finalize", mapAfter, n)
		}
		if got := renderAll(t, rep); !bytes.Equal(got, wantOut) {
			t.Errorf("map after %d: the report differs from the reference store's", mapAfter)
		}
		if got := rep.Total.Metric(metric.ITL).Values; !slices.Equal(got, wantITL) {
			t.Errorf("map after %d: ITL samples differ", mapAfter)
		}
	}
	// A store's mapping is its own: after Release, Finalize again is refused.
	b := audit.NewBuilder(audit.Config{})
	if _, err := b.Finalize(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Finalize(); !errors.Is(err, audit.ErrFinalized) {
		t.Errorf("a second Finalize: %v, want ErrFinalized", err)
	}
}
