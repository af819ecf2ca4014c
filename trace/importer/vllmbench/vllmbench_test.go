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
)

const fixture = "../../../testdata/import/vllm/result.json"

func readFile(t *testing.T, path string) ([]trace.Request, trace.Meta, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := Read(f, path, 0)
	if err != nil {
		return nil, nil, err
	}
	var reqs []trace.Request
	for rd.Scan() {
		reqs = append(reqs, *rd.Request())
	}
	return reqs, rd.Meta(), rd.Err()
}

// ulps is how far apart two floats are in units of the last place.
func ulps(a, b float64) int64 {
	d := int64(math.Float64bits(a)) - int64(math.Float64bits(b))
	if d < 0 {
		d = -d
	}
	return d
}

// TestRoundTrip: AISBench's replay of each imported request gives back the
// fixture's ttft, itls (within a few ulps: the time points are rebuilt by
// addition and differenced again), token counts and errors.
func TestRoundTrip(t *testing.T) {
	reqs, meta, err := readFile(t, fixture)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(fixture)
	var res Result
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
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
		tp := rr.TimePointsS
		if !rr.Success || len(tp) != 2+len(res.ITLs[i]) || tp[0] != res.StartTimes[i] {
			t.Fatalf("request %d: success %v time points %v", i, rr.Success, tp)
		}
		if u := ulps(tp[1]-tp[0], res.TTFTs[i]); u > 1<<12 {
			t.Errorf("request %d: ttft %v, want %v (%d ulps)", i, tp[1]-tp[0], res.TTFTs[i], u)
		}
		for k, d := range res.ITLs[i] {
			got := tp[k+2] - tp[k+1]
			if math.Abs(got-d) > 1e-12 {
				t.Errorf("request %d itl %d: %v, want %v", i, k, got, d)
			}
		}
		if *rr.InputTokens != res.InputLens[i] || *rr.OutputTokens != res.OutputLens[i] || rr.TokenSource != "trace" {
			t.Errorf("request %d: tokens %d %d (%s)", i, *rr.InputTokens, *rr.OutputTokens, rr.TokenSource)
		}
	}
	if c, _ := meta.Get(trace.KeyMaxConcurrency); c != "2" {
		t.Errorf("max_concurrency %q", c)
	}
	if _, ok := meta.Get(trace.KeyRequestRate); ok {
		t.Errorf("request_rate \"inf\" became a rate")
	}
}

func TestBad(t *testing.T) {
	_, _, err := readFile(t, "../../../testdata/import/vllm/no-start-times.json")
	if err == nil || !strings.Contains(err.Error(), "no start_times") {
		t.Errorf("no start_times: %v", err)
	}
	for _, c := range []struct{ in, want string }{
		{``, "not a JSON object"},
		{`{"experiments": []}`, "--save-detailed"},
		{`{"start_times":[1],"ttfts":[0.1,0.2],"itls":[[],[]],"input_lens":[1,1],"output_lens":[1,1],"errors":["",""]}`, "start_times has 1 entries"},
		{`{"start_times":[1],"ttfts":[-0.1],"itls":[[]],"input_lens":[1],"output_lens":[1],"errors":[""]}`, "ttft"},
		{`{"start_times":[1],"ttfts":[0.1],"itls":[[-1]],"input_lens":[1],"output_lens":[1],"errors":[""]}`, "itls[0]"},
		{`{"start_times":[1],"ttfts":[0.1],"itls":[[]],"input_lens":[-1],"output_lens":[1],"errors":[""]}`, "input_len"},
		{`{"start_times":[NaN],"ttfts":[0.1],"itls":[[]],"input_lens":[1],"output_lens":[1],"errors":[""]}`, "cannot unmarshal"},
		{`{"start_times":["x"],"ttfts":[0.1],"itls":[[]],"input_lens":[1],"output_lens":[1],"errors":[""]}`, "cannot unmarshal"},
	} {
		rd, err := Read(strings.NewReader(c.in), "r.json", 0)
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

func TestPythonJSON(t *testing.T) {
	in := `{"a": Infinity, "b": "NaN Infinity", "c": [-Infinity, NaN], "d": "\"Infinity"}`
	want := `{"a": "Infinity", "b": "NaN Infinity", "c": ["-Infinity", "NaN"], "d": "\"Infinity"}`
	if got := string(PythonJSON([]byte(in))); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func FuzzRead(f *testing.F) {
	raw, _ := os.ReadFile(fixture)
	f.Add(raw)
	f.Add([]byte(`{"start_times":[1e300],"ttfts":[1e308],"itls":[[1e308]],"input_lens":[1],"output_lens":[1],"errors":[""]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		rd, err := Read(bytes.NewReader(b), "f", 0)
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
