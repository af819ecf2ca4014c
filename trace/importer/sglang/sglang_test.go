package sglang

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/trace"
)

const fixture = "../../../testdata/import/sglang/details.jsonl"

func readFile(t *testing.T, path string, run int) ([]trace.Request, trace.Meta, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := Read(f, path, run, 0)
	if err != nil {
		return nil, nil, err
	}
	var reqs []trace.Request
	for rd.Scan() {
		reqs = append(reqs, *rd.Request())
	}
	return reqs, rd.Meta(), rd.Err()
}

// TestRoundTrip: the replayed time points give back the fixture's ttfts
// and itls, token counts and errors; every start is 0 and the run's
// request_rate (Python's Infinity) is no rate.
func TestRoundTrip(t *testing.T) {
	reqs, meta, err := readFile(t, fixture, 0)
	if err != nil {
		t.Fatal(err)
	}
	ttfts := []float64{0.2, 0.19, 0.21, 0}
	itls := [][]float64{{0.03, 0.031, 0.029}, {0.028, 0.03, 0.035}, {0.03, 0.0, 0.031}, {}}
	errs := []string{"", "", "", "ClientConnectorError: Cannot connect to host 127.0.0.1:30000"}
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, r := range reqs {
		if r.T0Ns != 0 {
			t.Errorf("request %d: t0 %d, want 0", i, r.T0Ns)
		}
		rr, _ := replay.Replay(&r, replay.Options{})
		if errs[i] != "" {
			if rr.Success || r.Error == nil || *r.Error != errs[i] {
				t.Errorf("request %d: want the failure %q", i, errs[i])
			}
			continue
		}
		tp := rr.TimePointsS
		if !rr.Success || tp[1]-tp[0] != ttfts[i] || len(tp) != 2+len(itls[i]) {
			t.Fatalf("request %d: %v", i, tp)
		}
		for k, d := range itls[i] {
			if math.Abs(tp[k+2]-tp[k+1]-d) > 1e-15 {
				t.Errorf("request %d itl %d: %v want %v", i, k, tp[k+2]-tp[k+1], d)
			}
		}
		if *rr.OutputTokens != 4 || *rr.InputTokens != 100 {
			t.Errorf("request %d: tokens %d %d", i, *rr.InputTokens, *rr.OutputTokens)
		}
	}
	if c, _ := meta.Get(trace.KeyMaxConcurrency); c != "2" {
		t.Errorf("max_concurrency %q", c)
	}
	if _, ok := meta.Get(trace.KeyRequestRate); ok {
		t.Errorf("request_rate Infinity became a rate")
	}
}

func TestRuns(t *testing.T) {
	two := "../../../testdata/import/sglang/two-runs.jsonl"
	if _, _, err := readFile(t, two, 0); err == nil || !strings.Contains(err.Error(), "2 runs") {
		t.Errorf("two runs, none chosen: %v", err)
	}
	_, meta, err := readFile(t, two, 2)
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := meta.Get(trace.KeyMaxConcurrency); c != "4" {
		t.Errorf("run 2: max_concurrency %q, want 4", c)
	}
	if _, _, err := readFile(t, two, 3); err == nil {
		t.Errorf("run 3 of 2: no error")
	}
}

func TestBad(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "empty"},
		{"\n[1]\n", "line 2: not a JSON object"},
		{`{"backend": "sglang", "completed": 3}`, "--output-details"},
		{`{"ttfts":[0.1],"itls":[],"input_lens":[1],"output_lens":[1],"errors":[""]}`, "itls has 0 entries"},
		{`{"ttfts":[0.1],"itls":[[-2]],"input_lens":[1],"output_lens":[1],"errors":[""]}`, "request 0: itls[0]"},
		{`{"ttfts":[0.1],"itls":[[]],"input_lens":[1],"output_lens":[1],"errors":[3]}`, "cannot unmarshal"},
	} {
		rd, err := Read(strings.NewReader(c.in), "s.jsonl", 0, 0)
		if err == nil {
			for rd.Scan() {
			}
			err = rd.Err()
		}
		if err == nil || !strings.HasPrefix(err.Error(), "s.jsonl") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming s.jsonl and %q", c.in, err, c.want)
		}
	}
}

func FuzzRead(f *testing.F) {
	raw, _ := os.ReadFile(fixture)
	f.Add(raw)
	f.Add([]byte(`{"ttfts":[1e308],"itls":[[1e308,1e308]],"input_lens":[0],"output_lens":[0],"errors":[""]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		rd, err := Read(bytes.NewReader(b), "f", 0, 0)
		if err != nil {
			return
		}
		chk := trace.NewChecker("f", trace.DefaultLimits)
		for rd.Scan() {
			if err := chk.Check(rd.Request(), trace.Error{RowGroup: -1, Row: -1}); err != nil {
				t.Fatalf("Scan gave a request the schema refuses: %v", err)
			}
		}
	})
}
