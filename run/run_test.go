package run

import (
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/replay"
)

// A run hands back every request as added, over several blocks: its ID,
// success, token counts (unknown ones nil), time points and events' token
// counts, byte-wide, 8 bytes wide (at and past the byte's bound, negative,
// the largest) and unknown.
func TestRunRoundTrip(t *testing.T) {
	tokenSets := [][]int64{
		nil, // no events
		{-1, -1, -1},
		{0, 1, 2, 252},
		{0, 253},
		{1, 254, -1},
		{254, 0, 3}, // a first count whose byte would be wideTokens
		{-2, 5},
		{math.MaxInt64, math.MinInt64, 0},
		{-1, 7, 253, 252},
	}
	r := New(nil)
	n := 2*requestBlock + 17
	for i := range n {
		rec := record.Request{ID: "r" + strconv.Itoa(i), Success: i%3 != 0,
			TimePoints: []float64{float64(i), float64(i) + 0.5, float64(i) + 0.75}}
		if i%4 != 1 {
			v := int64(i * 3)
			rec.InputTokens = &v
		}
		if i%5 != 2 {
			v := int64(i*7 + 1)
			rec.OutputTokens = &v
		}
		for _, tk := range tokenSets[i%len(tokenSets)] {
			rec.Events = append(rec.Events, record.Event{Class: replay.ClassContent, ContentBytes: 1, Tokens: tk})
		}
		r.Add(rec)
	}
	if r.Len() != n {
		t.Fatalf("%d requests, want %d", r.Len(), n)
	}
	var buf []float64
	for i := range n {
		if r.ID(i) != "r"+strconv.Itoa(i) || r.Success(i) != (i%3 != 0) {
			t.Fatalf("request %d: id %q, success %v", i, r.ID(i), r.Success(i))
		}
		in, out := r.InputTokens(i), r.OutputTokens(i)
		if (in == nil) != (i%4 == 1) || in != nil && *in != int64(i*3) {
			t.Fatalf("request %d: input tokens %v", i, in)
		}
		if (out == nil) != (i%5 == 2) || out != nil && *out != int64(i*7+1) {
			t.Fatalf("request %d: output tokens %v", i, out)
		}
		if tp := r.TimePoints(i, buf); !slices.Equal(tp, []float64{float64(i), float64(i) + 0.5, float64(i) + 0.75}) {
			t.Fatalf("request %d: time points %v", i, tp)
		}
		want := tokenSets[i%len(tokenSets)]
		if r.EventCount(i) != len(want) {
			t.Fatalf("request %d: %d events, want %d", i, r.EventCount(i), len(want))
		}
		for e, w := range want {
			if got := r.EventTokens(i, e); got != w {
				t.Fatalf("request %d event %d: %d tokens, want %d", i, e, got, w)
			}
		}
	}
	if got := len(r.blocks); got != 3 || cap(r.blocks[1]) != requestBlock {
		t.Errorf("%d blocks, the second of capacity %d", got, cap(r.blocks[1]))
	}
}
