package audit_test

import (
	"slices"
	"testing"

	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/pynum"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/samples"
)

// FuzzPooledSamples: the pooled metrics' samples, read through the stored
// records (intervals decoded from packed time points, events kept as runs,
// token counts a byte each), are the values computed from the records
// added, and their statistics those of the values gathered in one array.
// Each request: a byte of event count, then per event a byte that picks
// its class, token count and gap.
func FuzzPooledSamples(f *testing.F) {
	f.Add([]byte{5, 1, 1, 1, 1, 1, 4, 0, 16, 16, 32, 3}, true)
	f.Add([]byte{3, 2, 2, 2, 6, 1, 9, 1, 1, 1, 0, 200, 255, 17}, false)
	// Content with and without token counts and gaps, role, reasoning,
	// usage-only and tool-call events between.
	f.Add([]byte{20, 49, 48, 54, 24, 24, 96, 102, 0, 48, 48, 50, 50, 48, 120, 72, 48, 52, 48, 51, 51,
		12, 24, 24, 88, 24, 216, 24, 24, 24, 24, 24, 24, 51}, true)
	f.Fuzz(func(t *testing.T, raw []byte, epoch bool) {
		classes := []replay.Class{replay.ClassContent, replay.ClassRole, replay.ClassReasoning, replay.ClassUsageOnly, replay.ClassToolCall, replay.ClassFinish}
		var recs []record.Request
		ns := int64(1_000_000)
		if epoch {
			ns = 1_700_000_000_000_000_000
		}
		for i := 0; len(raw) > 0 && i < 200; i++ {
			n := int(raw[0] % 40)
			raw = raw[1:]
			start := ns + int64(i)*7_000_000
			tp := []float64{pynum.SecondsFromNanos(start)}
			evs := []record.Event{}
			at := start + 50_000_000
			for k := 0; k < n && len(raw) > 0; k++ {
				b := raw[0]
				raw = raw[1:]
				e := record.Event{Class: classes[int(b)%len(classes)], Tokens: -1}
				switch e.Class {
				case replay.ClassContent:
					e.ContentBytes = 1 + int(b>>4)
				case replay.ClassReasoning:
					e.ReasoningBytes = 2
				}
				if b&8 != 0 {
					e.Tokens = int64(b >> 3)
				}
				if b&16 != 0 { // else the same read
					at += int64(b) * 137_000
				}
				tp = append(tp, pynum.SecondsFromNanos(at))
				evs = append(evs, e)
			}
			out := int64(max(len(evs), 1))
			recs = append(recs, record.Request{ID: string(rune('a' + i%26)), Success: i%11 != 5, TimePoints: tp, Events: evs, InputTokens: &out, OutputTokens: &out})
		}
		rep := buildPacked(t, recs, nil)
		st := rep.Total
		if st.Err != nil {
			return
		}
		var itl, content, tokens []float64
		for _, idx := range st.Requests {
			r := recs[idx]
			if len(r.TimePoints) > 2 {
				itl = append(itl, pynum.NumpyDiff(r.TimePoints[1:])...)
			}
			var ts []float64
			allKnown, anyOutput := true, false
			var tk []float64
			for j, e := range r.Events {
				if e.HasContent() {
					ts = append(ts, r.TimePoints[j+1])
				}
				if e.HasText() || e.Class == replay.ClassToolCall {
					anyOutput = true
					if e.Tokens < 0 {
						allKnown = false
					}
					tk = append(tk, float64(e.Tokens))
				}
			}
			if len(ts) > 1 {
				content = append(content, pynum.NumpyDiff(ts)...)
			}
			if allKnown && anyOutput {
				tokens = append(tokens, tk...)
			}
		}
		if m := st.Metric(metric.ITL); m != nil {
			if got := m.Values; !slices.EqualFunc(got, itl, sameFloat) {
				t.Fatalf("ITL samples %v, want %v", got, itl)
			}
		}
		for _, c := range []struct {
			m    metric.Metric
			want []float64
		}{{metric.ContentUpdateInterval, content}, {metric.TokensPerEvent, tokens}} {
			m := rep.SSE.Total.Metric(c.m)
			if m == nil {
				if len(c.want) > 0 {
					t.Fatalf("%s absent, want %d samples", c.m, len(c.want))
				}
				continue
			}
			if m.Samples != len(c.want) {
				t.Fatalf("%s: %d samples, want %d", c.m, m.Samples, len(c.want))
			}
			if want := samples.Statistics(rep.AllStats, samples.PoolOf(c.want)); !slices.EqualFunc(m.Stats, want, func(a, b samples.Statistic) bool {
				return a.Name == b.Name && sameFloat(a.Raw, b.Raw)
			}) {
				t.Fatalf("%s statistics %v, want %v", c.m, m.Stats, want)
			}
		}
	})
}
