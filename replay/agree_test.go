package replay

import (
	"sort"
	"strings"
	"testing"
)

// TestSSEOutcome: on the oracle's cases and the random mix, the sse framer's
// outcome an aisbench replay gives is the sse replay's; of the cases where
// the framers differ (TestFramersOnCases), only those whose difference lies
// in the JSON, not in the framing, are known without the sse replay.
func TestSSEOutcome(t *testing.T) {
	framingOK := map[string]bool{"json_error_mid_stream": true, "completions_text": true}
	var known []string
	for _, path := range []string{"testdata/cases.jsonl", "testdata/random_mix.jsonl"} {
		for _, req := range loadJSONL(t, path) {
			a, s := mustReplay(t, req, AISBench), mustReplay(t, req, SSE)
			if a.SSE == nil {
				continue
			}
			known = append(known, req.RequestID)
			if *a.SSE != s.Outcome() {
				t.Errorf("%s %s: sse outcome %+v from the aisbench replay, %+v from the sse replay", path, req.RequestID, *a.SSE, s.Outcome())
			}
		}
	}
	for _, req := range loadJSONL(t, "testdata/cases.jsonl") {
		a, s := mustReplay(t, req, AISBench), mustReplay(t, req, SSE)
		framersDiffer := a.Success != s.Success || classesOf(a) != classesOf(s) || !equalInts(a.TimePointsNs, s.TimePointsNs)
		if framersDiffer && (a.SSE != nil) != framingOK[req.RequestID] {
			t.Errorf("%s: the framers differ; sse outcome known %v, want %v", req.RequestID, a.SSE != nil, framingOK[req.RequestID])
		}
	}
	sort.Strings(known)
	t.Logf("sse outcome known for %d requests: %s", len(known), strings.Join(known, " "))
	if sse := mustReplay(t, mkReq("data: "+pContent+"\n\n"), SSE); sse.SSE != nil {
		t.Errorf("the sse framer's own replay carries an sse outcome %+v", *sse.SSE)
	}
}
