package replay

import (
	"bytes"
	"testing"
)

// FuzzGenAIPerfFramer: the genai-perf framer hands on what perf_analyzer's
// write callback hands GenAI-Perf, written literally: every non-empty read
// whole, at its time, up to and including the first holding
// "data: [DONE]"; every body byte in one bucket.
func FuzzGenAIPerfFramer(f *testing.F) {
	addSeeds(f)
	for _, s := range append(clientSeeds, "data: {}\n\ndata: [DONE]\n\ndata: {}\n\n", "data: [DO", "NE]\n\n") {
		f.Add([]byte(s), []byte(nil))
		f.Add([]byte(s), []byte{4, 0, 6, 2, 7})
	}
	f.Fuzz(func(t *testing.T, body, sizes []byte) {
		req := chunked(body, sizes)
		res, err := Replay(req, Options{Framer: GenAIPerf, MaxEventBytes: -1})
		if err != nil {
			t.Fatal(err)
		}
		if s := res.Bytes.Sum(); s != int64(len(body)) {
			t.Fatalf("buckets sum to %d, body %d", s, len(body))
		}
		var want [][]byte
		var at []int64
		for _, c := range req.Chunks {
			if len(c.Data) == 0 {
				continue
			}
			want, at = append(want, c.Data), append(at, c.TNs)
			if bytes.Contains(c.Data, []byte("data: [DONE]")) {
				break
			}
		}
		if len(res.Messages) != len(want) {
			t.Fatalf("%d messages, %d reads", len(res.Messages), len(want))
		}
		for i, m := range res.Messages {
			if !bytes.Equal(m.Text, want[i]) || m.TNs != at[i] || m.Event != -1 {
				t.Fatalf("message %d: %q at %d (event %d), read %q at %d", i, m.Text, m.TNs, m.Event, want[i], at[i])
			}
		}
	})
}
