package audit_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/pynum"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/replay"
)

// benchRecords is a closed-loop run at concurrency c: n requests, each with
// a TTFT near 50 ms and tokens events near 20 ms apart (every 16th event
// two tokens in one read, so ITLs of 0 occur), recorded events alongside,
// and one failure in 100.
func benchRecords(n, c, tokens int) []record.Request {
	rng := rand.New(rand.NewPCG(1, 2))
	free := make([]float64, c) // when each client slot is free again
	recs := make([]record.Request, n)
	in := int64(512)
	for i := range recs {
		slot := i % c
		t0 := free[slot] + 0.001*rng.Float64()
		tp := make([]float64, 0, tokens+1)
		evs := make([]record.Event, 0, tokens)
		tp = append(tp, pynum.SecondsFromNanos(int64(t0*1e9)))
		t := t0 + 0.05 + 0.01*rng.Float64()
		for k := range tokens {
			if k > 0 && k%16 != 0 {
				t += 0.015 + 0.01*rng.Float64()
			}
			// Whole nanoseconds, as replay makes them: the time points pack.
			ns := int64(t * 1e9)
			tp = append(tp, pynum.SecondsFromNanos(ns))
			evs = append(evs, record.Event{Class: replay.ClassContent, TNs: ns, Tokens: 1, ContentBytes: 6})
		}
		free[slot] = t
		out := int64(tokens)
		recs[i] = record.Request{ID: fmt.Sprintf("req-%d", i), Success: i%100 != 99, TimePoints: tp, Events: evs,
			InputTokens: &in, OutputTokens: &out}
		if !recs[i].Success {
			recs[i].TimePoints, recs[i].Events = nil, nil
		}
	}
	return recs
}

// BenchmarkFinalize is the statistics alone: both stages, the named metrics,
// ITL accounting, the window analysis, findings and figures, for 10,000
// requests of 256 tokens (2.5 M ITL samples) at concurrency 64; the Builder
// is filled outside the timing.
func BenchmarkFinalize(b *testing.B) {
	recs := benchRecords(10000, 64, 256)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		bd := audit.NewBuilder(audit.Config{MaxConcurrency: 64})
		for _, r := range recs {
			bd.Add(r)
		}
		b.StartTimer()
		rep, err := bd.Finalize()
		if err != nil {
			b.Fatal(err)
		}
		if rep.Stable.Err != nil {
			b.Fatal(rep.Stable.Err)
		}
	}
}
