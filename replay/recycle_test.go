package replay

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sseaudit/sseaudit/trace"
)

// TestRecycle: one Replayer that is given back every result (Recycle) gives
// the results a fresh Replayer gives, request after request of the test
// traces in turn (long bodies before short ones and after), with both
// framers and an event limit small enough to trip.
func TestRecycle(t *testing.T) {
	paths, err := filepath.Glob("../testdata/traces/findings/*.jsonl")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no findings traces: %v", err)
	}
	paths = append(paths, "testdata/cases.jsonl", "testdata/random_mix.jsonl", "../testdata/traces/basic.jsonl")
	var reqs []*trace.Request
	for _, p := range paths {
		reqs = append(reqs, loadJSONL(t, p)...)
	}
	reused := 0
	for _, f := range []Framer{AISBench, SSE} {
		for _, limit := range []int64{0, 40} {
			opts := Options{Framer: f, MaxEventBytes: limit}
			var recycling Replayer
			for _, order := range []int{1, -1} {
				for k := range reqs {
					req := reqs[k]
					if order < 0 {
						req = reqs[len(reqs)-1-k]
					}
					var fresh Replayer
					want, wantErr := fresh.Replay(req, opts)
					spare := recycling.spare
					got, gotErr := recycling.Replay(req, opts)
					if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
						t.Fatalf("request %q, %s, limit %d: error %v, fresh %v", req.RequestID, f, limit, gotErr, wantErr)
					}
					if gotErr != nil {
						continue
					}
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("request %q, %s, limit %d: recycled\n%+v\nfresh\n%+v", req.RequestID, f, limit, got, want)
					}
					if spare != nil && got == spare {
						reused++
					}
					recycling.Recycle(got)
				}
			}
		}
	}
	if reused == 0 {
		t.Fatal("no result was reused")
	}
}
