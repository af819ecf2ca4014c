package vllmbench

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/importer/crosscheck"
)

const dir = "../../../testdata/import/vllm/"

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

// ulps is how far apart two floats are in units of the last place.
func ulps(a, b float64) int64 {
	d := int64(math.Float64bits(a)) - int64(math.Float64bits(b))
	if d < 0 {
		d = -d
	}
	return d
}

// result is the part of the fixture the round trip compares, read on its
// own.
type result struct {
	StartTimes []float64   `json:"start_times"`
	TTFTs      []float64   `json:"ttfts"`
	ITLs       [][]float64 `json:"itls"`
	InputLens  []int64     `json:"input_lens"`
	OutputLens []int64     `json:"output_lens"`
	Errors     []string    `json:"errors"`
}

// roundTrip: AISBench's replay of each imported request gives back the
// file's ttft, itls (within a few ulps: the time points are rebuilt by
// addition and differenced again), token counts and errors; its start when
// the file has start times, 0 when not.
func roundTrip(t *testing.T, res result, reqs []trace.Request) {
	t.Helper()
	if len(reqs) != len(res.TTFTs) {
		t.Fatalf("%d requests, want %d", len(reqs), len(res.TTFTs))
	}
	for i, r := range reqs {
		rr, err := replay.Replay(&r, replay.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Errors[i] != "" {
			if rr.Success || r.Error == nil || *r.Error != res.Errors[i] {
				t.Errorf("request %d: success %v error %v, want the failure %q", i, rr.Success, r.Error, res.Errors[i])
			}
			continue
		}
		start := 0.0
		if res.StartTimes != nil {
			start = res.StartTimes[i]
		}
		tp := rr.TimePointsS
		if !rr.Success || len(tp) != 2+len(res.ITLs[i]) || tp[0] != start {
			t.Fatalf("request %d: success %v time points %v, want %d from %v", i, rr.Success, tp, 2+len(res.ITLs[i]), start)
		}
		if u := ulps(tp[1]-tp[0], res.TTFTs[i]); u > 1<<12 {
			t.Errorf("request %d: ttft %v, want %v (%d ulps)", i, tp[1]-tp[0], res.TTFTs[i], u)
		}
		for k, d := range res.ITLs[i] {
			if got := tp[k+2] - tp[k+1]; math.Abs(got-d) > 1e-12 {
				t.Errorf("request %d itl %d: %v, want %v", i, k, got, d)
			}
		}
		if *rr.InputTokens != res.InputLens[i] || *rr.OutputTokens != res.OutputLens[i] || rr.TokenSource != "trace" {
			t.Errorf("request %d: tokens %d %d (%s)", i, *rr.InputTokens, *rr.OutputTokens, rr.TokenSource)
		}
	}
}

func decodeFile(t *testing.T, path string) result {
	t.Helper()
	raw, _ := os.ReadFile(path)
	var res result
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	return res
}

// agree: every figure of the run's own summary that the lists determine is
// reproduced from the trace.
func agree(t *testing.T, c *crosscheck.Comparison, atLeast int) {
	t.Helper()
	if d := c.Differing(); len(d) > 0 || len(c.Figures) < atLeast {
		t.Errorf("%d figures (want %d or more), differing %v: %s", len(c.Figures), atLeast, d, c)
	}
}

func TestRoundTrip(t *testing.T) {
	reqs, rd, err := readFile(t, dir+"result.json", 0)
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, decodeFile(t, dir+"result.json"), reqs)
	meta := rd.Meta()
	if c, _ := meta.Get(trace.KeyMaxConcurrency); c != "2" {
		t.Errorf("max_concurrency %q", c)
	}
	if _, ok := meta.Get(trace.KeyRequestRate); ok {
		t.Errorf("request_rate \"inf\" became a rate")
	}
	if _, ok := meta.Get(KeyStartTimes); ok {
		t.Errorf("%s set for a file with start times", KeyStartTimes)
	}
	// completed, failed, the token totals, and mean/median/std/p99 of TTFT,
	// TPOT, ITL and E2EL.
	agree(t, rd.Check(), 20)
}

// TestNoStartTimes: a result saved before vLLM PR #32667 imports, each
// request from 0, and says so.
func TestNoStartTimes(t *testing.T) {
	path := dir + "no-start-times.json"
	reqs, rd, err := readFile(t, path, 0)
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, decodeFile(t, path), reqs)
	if v, _ := rd.Meta().Get(KeyStartTimes); v != NoStartTimes {
		t.Errorf("%s = %q", KeyStartTimes, v)
	}
	if n := strings.Join(rd.Notes(), "\n"); !strings.Contains(n, "no start_times (vLLM before PR #32667") {
		t.Errorf("notes %s", n)
	}
	agree(t, rd.Check(), 20)
}

// TestAppended: --append-result files, one run a line or pretty-printed
// runs one after the other, need a run; each run is its own.
func TestAppended(t *testing.T) {
	for _, name := range []string{"appended.json", "appended-pretty.json"} {
		_, _, err := readFile(t, dir+name, 0)
		if err == nil || !strings.Contains(err.Error(), "2 runs (") || !strings.Contains(err.Error(), "choose one with --run (1 to 2") {
			t.Errorf("%s, no run: %v", name, err)
		}
		reqs, rd, err := readFile(t, dir+name, 2)
		if err != nil {
			t.Fatalf("%s run 2: %v", name, err)
		}
		if c, _ := rd.Meta().Get(trace.KeyMaxConcurrency); c != "4" || len(reqs) != 5 {
			t.Errorf("%s run 2: max_concurrency %q, %d requests", name, c, len(reqs))
		}
		agree(t, rd.Check(), 20)
		if _, _, err := readFile(t, dir+name, 3); err == nil || !strings.Contains(err.Error(), "run 3: the file holds 2") {
			t.Errorf("%s run 3: %v", name, err)
		}
	}
}

func TestBad(t *testing.T) {
	_, _, err := readFile(t, dir+"summary-only.json", 0)
	if err == nil || !strings.Contains(err.Error(), "summary-only.json: line 1: no ttfts: a summary without the per-request lists (was it saved with --save-detailed?") {
		t.Errorf("summary only: %v", err)
	}
	for _, c := range []struct{ in, want string }{
		{``, "empty"},
		{`[1]`, "line 1: not a JSON object"},
		{`{"experiments": []}`, "--save-detailed"},
		{`{"backend": "sglang", "dataset_name": "random", "ttfts": []}`, "line 1: an sglang.bench_serving run (\"dataset_name\", \"mean_e2e_latency_ms\", no \"model_id\"): import it with --from sglang"},
		{`{"ttfts":[0.1],"itls":[[]],"input_lens":[1],"output_lens":[1]}`, "line 1: no errors"},
		{`{"ttfts":[0.1],"input_lens":[1]}`, "line 1: no itls, output_lens, errors"},
		{`{"start_times":[1],"ttfts":[0.1,0.2],"itls":[[],[]],"input_lens":[1,1],"output_lens":[1,1],"errors":["",""]}`, "start_times has 1 entries"},
		{`{"start_times":[1],"ttfts":[-0.1],"itls":[[]],"input_lens":[1],"output_lens":[1],"errors":[""]}`, "request 0: ttft"},
		{`{"start_times":[1],"ttfts":[0.1],"itls":[[-1]],"input_lens":[1],"output_lens":[1],"errors":[""]}`, "itls[0]"},
		{`{"start_times":[1],"ttfts":[0.1],"itls":[[]],"input_lens":[-1],"output_lens":[1],"errors":[""]}`, "input_len"},
		{`{"start_times":[NaN],"ttfts":[0.1],"itls":[[]],"input_lens":[1],"output_lens":[1],"errors":[""]}`, `start_times[0] ("NaN"): json: cannot unmarshal`},
		{`{"start_times":["x"],"ttfts":[0.1],"itls":[[]],"input_lens":[1],"output_lens":[1],"errors":[""]}`, "cannot unmarshal"},
		{"{\"ttfts\": [0.1],\n \"itls\": [[]], \"input_lens\": [1], \"output_lens\": [1], \"errors\": [\"\"]}\n{\"ttfts\": ", "line 3: the JSON value that starts here is cut short"},
	} {
		rd, err := Read(strings.NewReader(c.in), "r.json", Options{})
		if err == nil {
			for rd.Scan() {
			}
			err = rd.Err()
		}
		if err == nil || !strings.HasPrefix(err.Error(), "r.json") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming r.json and %q", c.in, err, c.want)
		}
	}
}

func FuzzRead(f *testing.F) {
	for _, name := range []string{"result.json", "appended-pretty.json"} {
		raw, _ := os.ReadFile(dir + name)
		f.Add(raw, 0)
		f.Add(raw, 2)
	}
	f.Add([]byte(`{"start_times":[1e300],"ttfts":[1e308],"itls":[[1e308]],"input_lens":[1],"output_lens":[1],"errors":[""]}`), 0)
	f.Fuzz(func(t *testing.T, b []byte, run int) {
		rd, err := Read(bytes.NewReader(b), "f", Options{Run: run})
		if err != nil {
			return
		}
		chk := trace.NewChecker("f", trace.DefaultLimits)
		for rd.Scan() {
			if err := chk.Check(rd.Request(), trace.Error{RowGroup: -1, Row: -1}); err != nil {
				t.Fatalf("Scan gave a request the schema refuses: %v", err)
			}
		}
		if c := rd.Check(); !strings.HasPrefix(c.Source, "f: line ") {
			t.Fatalf("check of %q", c.Source)
		}
	})
}
