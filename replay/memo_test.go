package replay

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sseaudit/sseaudit/trace"
)

// replayBoth replays req with both framers, sharing memo when it is not nil
// (and resetting it first), else each framer with a fresh Replayer.
func replayBoth(t *testing.T, req *trace.Request, memo *VerdictMemo, maxEventBytes int64) [2]*Result {
	t.Helper()
	var out [2]*Result
	if memo != nil {
		memo.Reset()
	}
	for i, f := range []Framer{AISBench, SSE} {
		var r Replayer
		res, err := r.Replay(req, Options{Framer: f, MaxEventBytes: maxEventBytes, Memo: memo})
		if err != nil {
			out[i] = &Result{ErrorInfo: "error: " + err.Error()}
			continue
		}
		out[i] = res
	}
	return out
}

// TestVerdictMemo: replaying with a shared memo gives the very results
// replaying without one gives, for every request of the test traces, with
// the default event limit and with one small enough to trip.
func TestVerdictMemo(t *testing.T) {
	paths, err := filepath.Glob("../testdata/traces/findings/*.jsonl")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no findings traces: %v", err)
	}
	paths = append(paths, "testdata/cases.jsonl", "testdata/random_mix.jsonl")
	var memo VerdictMemo
	remembered := 0
	for _, p := range paths {
		for _, req := range loadJSONL(t, p) {
			for _, limit := range []int64{0, 40} {
				want := replayBoth(t, req, nil, limit)
				got := replayBoth(t, req, &memo, limit)
				for i := range want {
					if !reflect.DeepEqual(got[i], want[i]) {
						t.Fatalf("%s: request %q, limit %d, framer %d: with the memo\n%+v\nwithout\n%+v", p, req.RequestID, limit, i, got[i], want[i])
					}
				}
				remembered += len(memo.entries)
			}
		}
	}
	if remembered == 0 {
		t.Fatal("the memo remembered nothing")
	}
}

// FuzzVerdictMemo: any body, cut anyhow, replays alike with and without a
// shared memo.
func FuzzVerdictMemo(f *testing.F) {
	addSeeds(f)
	var memo VerdictMemo
	f.Fuzz(func(t *testing.T, body, sizes []byte) {
		req := chunked(body, sizes)
		want := replayBoth(t, req, nil, 0)
		got := replayBoth(t, req, &memo, 0)
		for i := range want {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("framer %d: with the memo\n%+v\nwithout\n%+v", i, got[i], want[i])
			}
		}
	})
}
