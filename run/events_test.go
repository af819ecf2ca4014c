package run

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/replay"
)

// Stored events decode to the events added, one each, whether kept as runs
// or one each: long runs (past a run's 65,535), alternation, single events,
// none, unknown.
func TestStoredEventsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	kinds := []record.Event{
		{Class: replay.ClassContent, ContentBytes: 3},
		{Class: replay.ClassReasoning, ReasoningBytes: 2},
		{Class: replay.ClassRole},
		{Class: replay.ClassUsageOnly},
		{Class: replay.ClassToolCall},
		{Class: replay.ClassContent, ContentBytes: 1, ReasoningBytes: 1},
	}
	cases := map[string][]record.Event{"none": {}, "one": {kinds[0]}}
	long := slices.Repeat([]record.Event{kinds[0]}, 200_000)
	long[0], long[len(long)-1] = kinds[2], kinds[3]
	cases["long run"] = long
	alternating := make([]record.Event, 301)
	for i := range alternating {
		alternating[i] = kinds[i%2]
	}
	cases["alternating"] = alternating
	for i := range 200 {
		evs := make([]record.Event, rng.IntN(400))
		k := rng.IntN(len(kinds))
		for j := range evs {
			if rng.IntN(1+i%20) == 0 {
				k = rng.IntN(len(kinds))
			}
			evs[j] = kinds[k]
		}
		cases["random "+string(rune('a'+i%26))+string(rune('a'+i/26))] = evs
	}
	for name, evs := range cases {
		st := storeEvents(evs)
		var buf []Event
		got := st.decode(&buf)
		want := make([]Event, len(evs))
		for i, e := range evs {
			want[i] = eventOf(e)
		}
		if got == nil || !slices.Equal(got, want) || st.len() != len(evs) {
			t.Fatalf("%s: %d events decode to %d (len %d)", name, len(evs), len(got), st.len())
		}
		if len(evs) > 0 && (st.first() != want[0] || st.last() != want[len(want)-1]) {
			t.Errorf("%s: first or last event differs", name)
		}
		var each []Event
		for k, e := range st.each {
			if k != len(each) {
				t.Fatalf("%s: event %d yielded as %d", name, len(each), k)
			}
			each = append(each, e)
		}
		if !slices.Equal(each, want) {
			t.Errorf("%s: each yields %d events, not the %d added", name, len(each), len(want))
		}
		runs := 0
		for i := range want {
			if i == 0 || want[i] != want[i-1] {
				runs++
			}
		}
		if asRuns := st.runs != nil; asRuns != (2*runs < len(evs)) {
			t.Errorf("%s: %d events in %d runs kept as runs %v", name, len(evs), runs, asRuns)
		}
	}
	var unknown storedEvents = storeEvents(nil)
	var buf []Event
	if unknown.decode(&buf) != nil || unknown.len() != 0 {
		t.Error("unknown events decode to some")
	}
}
