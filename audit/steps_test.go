package audit

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/sseaudit/sseaudit/replay"
)

// packedRecords are requests whose time points are whole nanoseconds (as
// replay makes them, so that they pack): every event content, or a role
// event first and a usage-only tail, or content between role-only events,
// or reasoning before content; some intervals are 0, one request has too
// few points, one failed.
func packedRecords(n int) []RequestRecord {
	rng := rand.New(rand.NewPCG(3, 4))
	recs := make([]RequestRecord, n)
	for i := range recs {
		ns := int64(1_700_000_000_000_000_000) + int64(i)*40_000_000 + rng.Int64N(1_000_000)
		tp := []float64{SecondsFromNanos(ns)}
		var evs []EventRecord
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
			tp = append(tp, SecondsFromNanos(ns))
			evs = append(evs, EventRecord{Class: class, TNs: ns, Tokens: -1, ContentBytes: content, ReasoningBytes: reasoning})
		}
		in, out := int64(100), int64(events)
		recs[i] = RequestRecord{ID: fmt.Sprintf("p%d", i), Success: i != 11, TimePoints: tp, Events: evs, InputTokens: &in, OutputTokens: &out}
	}
	return recs
}

func buildPacked(t *testing.T, recs []RequestRecord) (*Report, *Builder) {
	t.Helper()
	b := NewBuilder(Config{MaxConcurrency: 3, Stats: []string{"Average", "Min", "Max", "P50", "P90", "P99.9"}})
	for _, r := range recs {
		b.Add(r)
	}
	rep, err := b.Finalize()
	if err != nil {
		t.Fatal(err)
	}
	return rep, b
}

func renderAll(t *testing.T, rep *Report) []byte {
	t.Helper()
	var buf bytes.Buffer
	for _, write := range []func(*bytes.Buffer) error{
		func(w *bytes.Buffer) error { return rep.WriteJSON(w) },
		func(w *bytes.Buffer) error { return rep.WriteText(w) },
		func(w *bytes.Buffer) error { return rep.WriteITLJSON(w) },
	} {
		if err := write(&buf); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// Time points in slabs mapped outside the heap give the report they give in
// the heap, and stay readable through the report after the Builder is gone
// and the collector has run; the slabs are unmapped once nothing refers to
// them.
func TestMappedStepsSameReport(t *testing.T) {
	recs := packedRecords(2000) // more than one slab of steps
	want, _ := buildPacked(t, recs)
	wantOut := renderAll(t, want)
	var wantITL []float64
	for _, r := range recs {
		if r.Success && len(r.TimePoints) > 2 {
			wantITL = append(wantITL, NumpyDiff(r.TimePoints[1:])...)
		}
	}
	if got := want.Total.Metric(MetricITL).SampleValues(); !slices.Equal(got, wantITL) {
		t.Fatalf("ITL samples from the heap: %d values, want %d (or different values)", len(got), len(wantITL))
	}

	defer func(v int) { heapSteps = v }(heapSteps)
	before := mappedSlabs.Load()
	for _, h := range []int{0, 1000} {
		heapSteps = h
		rep, b := buildPacked(t, recs)
		if mapSupported() && b.steps.owner == nil {
			t.Fatalf("heapSteps %d: the last slab is not mapped", h)
		}
		b = nil
		for range 3 {
			runtime.GC()
		}
		if got := renderAll(t, rep); !bytes.Equal(got, wantOut) {
			t.Errorf("heapSteps %d: the report differs from the heap's", h)
		}
		if got := rep.Total.Metric(MetricITL).SampleValues(); !slices.Equal(got, wantITL) {
			t.Errorf("heapSteps %d: ITL samples differ after the Builder is collected", h)
		}
		runtime.KeepAlive(b)
	}
	if !mapSupported() {
		return
	}
	// Nothing refers to the slabs now: the cleanups unmap them.
	deadline := time.Now().Add(5 * time.Second)
	for mappedSlabs.Load() != before && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if n := mappedSlabs.Load(); n != before {
		t.Errorf("%d slabs still mapped, %d before", n, before)
	}
}

// mapSupported says whether this platform maps slabs outside the heap.
func mapSupported() bool {
	_, unmap, ok := mapSteps(1)
	if ok {
		unmap()
	}
	return ok
}
