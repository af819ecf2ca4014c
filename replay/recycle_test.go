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

// FuzzRecycle: a Replayer given back its last result replays the next body
// as a fresh one does, whatever the two bodies and their reads.
func FuzzRecycle(f *testing.F) {
	for i, s := range framingSeeds {
		f.Add([]byte(s), []byte(framingSeeds[(i+1)%len(framingSeeds)]), []byte{0, 3, 7, 1}, false)
		f.Add([]byte(s), []byte(nil), []byte(nil), true)
	}
	f.Fuzz(func(t *testing.T, first, second, sizes []byte, sse bool) {
		opts := Options{Framer: AISBench, MaxEventBytes: 64}
		if sse {
			opts.Framer = SSE
		}
		var recycling Replayer
		if res, err := recycling.Replay(chunked(first, sizes), opts); err == nil {
			recycling.Recycle(res)
		}
		var fresh Replayer
		want, wantErr := fresh.Replay(chunked(second, sizes), opts)
		got, gotErr := recycling.Replay(chunked(second, sizes), opts)
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Fatalf("error %v, fresh %v", gotErr, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("recycled\n%+v\nfresh\n%+v", got, want)
		}
	})
}
