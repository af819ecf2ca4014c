package sglang

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/importer/vllmbench"
)

const dir = "../../../testdata/import/sglang/"

func readFile(t *testing.T, path string, run int) ([]trace.Request, *Reader, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := Read(f, path, Options{Run: run})
	if err != nil {
		return nil, nil, err
	}
	var reqs []trace.Request
	for rd.Scan() {
		reqs = append(reqs, *rd.Request())
	}
	return reqs, rd, rd.Err()
}

// TestRoundTrip: the replayed time points give back the fixture's ttfts
// and itls, token counts and errors; every start is 0 and the run's
// request_rate (Python's Infinity) is no rate; the run's own completed,
// token totals, TTFT and ITL figures come back from the trace; the same
// for the run pretty-printed.
func TestRoundTrip(t *testing.T) {
	for _, name := range []string{"details.jsonl", "pretty.json"} {
		reqs, rd, err := readFile(t, dir+name, 0)
		if err != nil {
			t.Fatal(err)
		}
		ttfts := []float64{0.2, 0.19, 0.21, 0}
		itls := [][]float64{{0.03, 0.031, 0.029}, {0.028, 0.03, 0.035}, {0.03, 0.0, 0.031}, {}}
		errs := []string{"", "", "", "ClientConnectorError: Cannot connect to host 127.0.0.1:30000"}
		if len(reqs) != 4 {
			t.Fatalf("%s: %d requests", name, len(reqs))
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
		meta := rd.Meta()
		if c, _ := meta.Get(trace.KeyMaxConcurrency); c != "2" {
			t.Errorf("max_concurrency %q", c)
		}
		if _, ok := meta.Get(trace.KeyRequestRate); ok {
			t.Errorf("request_rate Infinity became a rate")
		}
		if v, _ := meta.Get(vllmbench.KeyStartTimes); v != vllmbench.NoStartTimes {
			t.Errorf("%s = %q", vllmbench.KeyStartTimes, v)
		}
		c := rd.Check()
		if d := c.Differing(); len(d) > 0 || len(c.Figures) != 15 || len(c.Skipped) != 2 {
			t.Errorf("%s: %s", name, c)
		}
	}
}

func TestRuns(t *testing.T) {
	two := dir + "two-runs.jsonl"
	if _, _, err := readFile(t, two, 0); err == nil || !strings.Contains(err.Error(), "2 runs (JSON Lines, appended): choose one with --run (1 to 2; run 1 starts on line 1, run 2 on line 2)") {
		t.Errorf("two runs, none chosen: %v", err)
	}
	_, rd, err := readFile(t, two, 2)
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := rd.Meta().Get(trace.KeyMaxConcurrency); c != "4" {
		t.Errorf("run 2: max_concurrency %q, want 4", c)
	}
	if _, _, err := readFile(t, two, 3); err == nil {
		t.Errorf("run 3 of 2: no error")
	}
}

// TestNewerSchema: server_info, tag and accept_length; the run without
// --output-details is refused with the flag, the one with it imports.
func TestNewerSchema(t *testing.T) {
	path := dir + "newer-schema.jsonl"
	if _, _, err := readFile(t, path, 1); err == nil || !strings.Contains(err.Error(), "newer-schema.jsonl: line 1: no ttfts: a summary without the per-request lists (was it written with --output-details?") {
		t.Errorf("run 1: %v", err)
	}
	reqs, rd, err := readFile(t, path, 2)
	if err != nil || len(reqs) != 4 {
		t.Fatalf("run 2: %d requests, %v", len(reqs), err)
	}
	m := rd.Meta()
	for k, want := range map[string]string{"tag": "spec-c2", "accept_length": "2.75", "line": "2", "run": "2"} {
		if v, _ := m.Get(trace.KeyRunPrefix + k); v != want {
			t.Errorf("%s = %q, want %q", k, v, want)
		}
	}
	if c := rd.Check(); len(c.Differing()) > 0 {
		t.Error(c)
	}
}

func TestBad(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "empty"},
		{"\n[1]\n", "line 2: not a JSON object"},
		{`{"backend": "sglang", "completed": 3}`, "--output-details"},
		{`{"model_id": "m", "start_times": [], "ttfts": []}`, `line 1: a vllm bench serve result ("model_id", "start_times"): import it with --from vllm`},
		{`{"ttfts":[0.1],"itls":[],"input_lens":[1],"output_lens":[1],"errors":[""]}`, "itls has 0 entries"},
		{`{"ttfts":[0.1],"itls":[[-2]],"input_lens":[1],"output_lens":[1],"errors":[""]}`, "request 0: itls[0]"},
		{`{"ttfts":[0.1],"itls":[[]],"input_lens":[1],"output_lens":[1],"errors":[3]}`, "errors[0] (3): json: cannot unmarshal"},
		{`{"ttfts":[0.1],"itls":[[]],"input_lens":[1],"errors":[""]}`, "line 1: no output_lens"},
	} {
		rd, err := Read(strings.NewReader(c.in), "s.jsonl", Options{})
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
	for _, name := range []string{"details.jsonl", "newer-schema.jsonl"} {
		raw, _ := os.ReadFile(dir + name)
		f.Add(raw, 0)
		f.Add(raw, 2)
	}
	f.Add([]byte(`{"ttfts":[1e308],"itls":[[1e308,1e308]],"input_lens":[0],"output_lens":[0],"errors":[""]}`), 0)
	f.Fuzz(func(t *testing.T, b []byte, run int) {
		rd, err := Read(bytes.NewReader(b), "f", Options{Run: run})
		if err != nil {
			return
		}
		chk := trace.NewChecker("f", trace.DefaultLimits)
		for rd.Scan() {
			r := rd.Request()
			if err := chk.Check(r, trace.Error{RowGroup: -1, Row: -1}); err != nil {
				t.Fatalf("Scan gave a request the schema refuses: %v", err)
			}
			if r.T0Ns != 0 {
				t.Fatalf("t0 %d: SGLang's requests start at 0", r.T0Ns)
			}
		}
	})
}
