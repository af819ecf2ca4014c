package genaiperf

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/trace"
)

const fixture = "../../../testdata/import/genai-perf/profile_export.json"

func readAll(t *testing.T, path string, opts Options) ([]trace.Request, trace.Meta, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := Read(f, path, opts)
	if err != nil {
		return nil, nil, err
	}
	var reqs []trace.Request
	for rd.Scan() {
		reqs = append(reqs, *rd.Request())
	}
	return reqs, rd.Meta(), rd.Err()
}

// TestRoundTrip reads the fixture with encoding/json on its own and checks
// that every request of the trace gives back its timestamp, its response
// timestamps and its response texts exactly (less the clock offset), in
// timestamp order.
func TestRoundTrip(t *testing.T) {
	reqs, meta, err := readAll(t, fixture, Options{Experiment: -1})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(fixture)
	var doc struct {
		Experiments []struct {
			Requests []struct {
				Timestamp          int64   `json:"timestamp"`
				ResponseTimestamps []int64 `json:"response_timestamps"`
				ResponseOutputs    []struct {
					Response string `json:"response"`
				} `json:"response_outputs"`
			} `json:"requests"`
		} `json:"experiments"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	src := doc.Experiments[0].Requests
	if len(reqs) != len(src) {
		t.Fatalf("%d requests, want %d", len(reqs), len(src))
	}
	off, _ := meta.Get(trace.KeyRunPrefix + "clock_offset_ns")
	if off != "1718000000000000000" {
		t.Errorf("clock offset %q", off)
	}
	const offset = 1718000000000000000
	seen := map[int64]bool{}
	var prev int64
	for i, r := range reqs {
		if r.T0Ns < prev {
			t.Errorf("request %d: t0 %d before %d: want timestamp order", i, r.T0Ns, prev)
		}
		prev = r.T0Ns
		var s *struct {
			Timestamp          int64   `json:"timestamp"`
			ResponseTimestamps []int64 `json:"response_timestamps"`
			ResponseOutputs    []struct {
				Response string `json:"response"`
			} `json:"response_outputs"`
		}
		for j := range src {
			if src[j].Timestamp == r.T0Ns+offset {
				s = &src[j]
			}
		}
		if s == nil || seen[r.T0Ns] {
			t.Fatalf("request %d (%s): t0 %d matches no timestamp of the file", i, r.RequestID, r.T0Ns)
		}
		seen[r.T0Ns] = true
		if len(r.Chunks) != len(s.ResponseOutputs) {
			t.Fatalf("%s: %d chunks, want %d", r.RequestID, len(r.Chunks), len(s.ResponseOutputs))
		}
		for k, c := range r.Chunks {
			if c.TNs+offset != s.ResponseTimestamps[k] || string(c.Data) != s.ResponseOutputs[k].Response {
				t.Errorf("%s chunk %d: %d %q, want %d %q", r.RequestID, k, c.TNs+offset, c.Data, s.ResponseTimestamps[k], s.ResponseOutputs[k].Response)
			}
		}
		if len(s.ResponseOutputs) == 0 {
			if r.Error == nil || r.HTTPStatus != nil {
				t.Errorf("%s: no responses: want an error and no status", r.RequestID)
			}
		} else if r.HTTPStatus == nil || *r.HTTPStatus != 200 || *r.EndNs+offset != s.ResponseTimestamps[len(s.ResponseTimestamps)-1] {
			t.Errorf("%s: status %v end %v", r.RequestID, r.HTTPStatus, r.EndNs)
		}
	}
	if reqs[0].Extra[0].Str != "What is tea?" {
		t.Errorf("prompt %q", reqs[0].Extra[0].Str)
	}
	if c, _ := meta.Get(trace.KeyMaxConcurrency); c != "2" {
		t.Errorf("max_concurrency %q", c)
	}
}

func TestExperiments(t *testing.T) {
	two := "../../../testdata/import/genai-perf/two-experiments.json"
	if _, _, err := readAll(t, two, Options{Experiment: -1}); err == nil || !strings.Contains(err.Error(), "2 experiments") {
		t.Errorf("two experiments, none chosen: %v", err)
	}
	reqs, meta, err := readAll(t, two, Options{Experiment: 1})
	if err != nil || len(reqs) != 1 {
		t.Fatalf("experiment 1: %d requests, %v", len(reqs), err)
	}
	if r, _ := meta.Get(trace.KeyRequestRate); r != "4.0" {
		t.Errorf("request rate %q", r)
	}
	if _, _, err := readAll(t, two, Options{Experiment: 2}); err == nil {
		t.Errorf("experiment 2 of 2: no error")
	}
}

func TestBad(t *testing.T) {
	_, _, err := readAll(t, "../../../testdata/import/genai-perf/bad-lengths.json", Options{Experiment: -1})
	if err == nil || !strings.Contains(err.Error(), "experiments[0].requests[1]") || !strings.Contains(err.Error(), "response_timestamps") {
		t.Errorf("bad lengths: %v", err)
	}
	for _, c := range []struct{ in, want string }{
		{``, "not a JSON object"},
		{`[1]`, "not a JSON object"},
		{`{"start_times": []}`, `no "experiments"`},
		{`{"experiments": []}`, "empty"},
		{`{"experiments": [{"requests": [{"response_timestamps": []}]}]}`, `no "timestamp"`},
		{`{"experiments": [{"requests": [{"timestamp": 5, "response_timestamps": [4], "response_outputs": [{"response": "x"}]}]}]}`, "before t0_ns"},
		{`{"experiments": [{"experiment": {"mode": "concurrency", "value": "x"}, "requests": []}]}`, "positive integer"},
		{`{"experiments": [{"requests": [{"timestamp": 5, "response_timestamps": [6], "response_outputs": [{}]}]}]}`, `no "response"`},
	} {
		rd, err := Read(strings.NewReader(c.in), "x.json", Options{Experiment: -1})
		if err == nil {
			for rd.Scan() {
			}
			err = rd.Err()
		}
		if err == nil || !strings.HasPrefix(err.Error(), "x.json") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming x.json and %q", c.in, err, c.want)
		}
	}
}

func FuzzRead(f *testing.F) {
	raw, _ := os.ReadFile(fixture)
	f.Add(raw)
	f.Add([]byte(`{"experiments": [{"requests": [{"timestamp": 1, "response_timestamps": [2], "response_outputs": [{"response": "data: x\n\n"}]}]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		rd, err := Read(bytes.NewReader(b), "f", Options{Experiment: -1})
		if err != nil {
			return
		}
		chk := trace.NewChecker("f", trace.DefaultLimits)
		for rd.Scan() {
			r := rd.Request()
			if err := chk.Check(r, trace.Error{RowGroup: -1, Row: -1}); err != nil {
				t.Fatalf("Scan gave a request the schema refuses: %v", err)
			}
		}
	})
}
