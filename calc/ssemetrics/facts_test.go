package ssemetrics

import (
	"slices"
	"testing"

	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/run"
)

// A request's Tokens span reads the token counts of its output events (text
// or tool calls), whole and in every piece, whether the events are kept as
// runs or one each; a request whose output events do not all carry a count
// has none.
func TestTokenSpans(t *testing.T) {
	classes := []replay.Class{replay.ClassRole, replay.ClassContent, replay.ClassContent, replay.ClassToolCall, replay.ClassUsageOnly, replay.ClassReasoning}
	r := run.New(nil)
	var want [][]float64
	for i := range 40 {
		n := 3 + i*7%60
		var evs []record.Event
		tp := []float64{float64(i)}
		var tokens []float64
		for k := range n {
			e := record.Event{Class: classes[(k/(1+i%5))%len(classes)], Tokens: int64((i + k) % 5)}
			switch e.Class {
			case replay.ClassContent:
				e.ContentBytes = 2
			case replay.ClassReasoning:
				e.ReasoningBytes = 3
			}
			if i%9 == 4 && k == 2 && e.Class != replay.ClassUsageOnly {
				e.Tokens = -1 // one output event without a count: none known, if it is one
			}
			if e.HasText() || e.Class == replay.ClassToolCall {
				tokens = append(tokens, float64(e.Tokens))
			}
			evs = append(evs, e)
			tp = append(tp, tp[len(tp)-1]+0.01)
		}
		if slices.Contains(tokens, -1) || len(tokens) == 0 {
			tokens = nil
		}
		want = append(want, tokens)
		r.Add(record.Request{ID: "r", Success: true, TimePoints: tp, Events: evs})
	}
	var tp []float64
	var decoded []run.Event
	var buf []float64
	for i, w := range want {
		tp = r.TimePoints(i, tp)
		intervals := make([]float64, 0, len(tp))
		for j := 2; j < len(tp); j++ {
			intervals = append(intervals, tp[j]-tp[j-1])
		}
		f := Derive(r, i, tp, intervals, r.Events(i, &decoded))
		if f.TokensKnown != (w != nil) {
			t.Fatalf("request %d: tokens known %v, want %v", i, f.TokensKnown, w != nil)
		}
		if got := f.Tokens().Read(&buf); f.Tokens().Len() != len(w) || !slices.Equal(got, w) {
			t.Fatalf("request %d: tokens %v (len %d), want %v", i, got, f.Tokens().Len(), w)
		}
		for lo := range len(w) {
			hi := min(len(w), lo+1+i%7)
			piece := f.Tokens().Sub(lo, hi)
			if got := piece.Read(&buf); !slices.Equal(got, w[lo:hi]) {
				t.Fatalf("request %d [%d:%d]: %v, want %v", i, lo, hi, got, w[lo:hi])
			}
		}
	}
}
