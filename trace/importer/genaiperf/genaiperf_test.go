package genaiperf

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/importer/realfiles"
)

const (
	dir     = "../../../testdata/import/genai-perf/"
	fixture = dir + "profile_export.json"
)

func readAll(t *testing.T, path string, opts Options) ([]trace.Request, trace.Meta, error) {
	t.Helper()
	reqs, rd, err := read(t, path, opts)
	if rd == nil {
		return nil, nil, err
	}
	return reqs, rd.Meta(), err
}

// read imports path with the summary beside it, if any.
func read(t *testing.T, path string, opts Options) ([]trace.Request, *Reader, error) {
	t.Helper()
	if p := SummaryBeside(path); p != "" {
		s, err := ReadSummary(p)
		if err != nil {
			t.Fatal(err)
		}
		opts.Summary = s
	}
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
	return reqs, rd, rd.Err()
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
		{``, "empty: want perf_analyzer's"},
		{`[1]`, "not a JSON object"},
		{`{"start_times": []}`, `no "experiments"`},
		{`{"experiments": []}`, "empty"},
		{`{"experiments": [{"requests": [{"response_timestamps": []}]}]}`, `no "timestamp"`},
		{`{"experiments": [{"requests": [{"timestamp": 5, "response_timestamps": [4], "response_outputs": [{"response": "x"}]}]}]}`, "before t0_ns"},
		{`{"experiments": [{"experiment": {"mode": "concurrency", "value": "x"}, "requests": []}]}`, "positive integer"},
		{`{"service_kind": "openai", "experiments": [{"requests": [{"timestamp": 5, "response_timestamps": [6], "response_outputs": [{}]}]}]}`, `no "response"`},
		{`{"service_kind": "openai", "experiments": [{"requests": [{"timestamp": 5, "response_timestamps": [6]}]}]}`, `requests[0]: no "response_outputs": want each response's text`},
		{`{"experiments": [{"requests": [{"timestamp": 5, "request_inputs": {}}]}]}`, `no "response_timestamps" (nor perf_analyzer's older "responses_timestamps")`},
		{`{"experiments": [{"requests": [{"timestamp": 5, "response_timestamps": [7, 6]}]}]}`, `response_timestamps[1] = 6: want times from the request's timestamp 5 on, in order`},
		{`{"experiments": [{"requests": [{"timestamp": 5, "response_timestamps": [7], "response_outputs": 3}]}]}`, `response_outputs: want a list of objects`},
		{`{"service_kind": "tpu", "experiments": [{"requests": []}]}`, `service_kind "tpu": want openai, triton`},
		{`{"experiments": [{"requests": []}]} {"experiments": []}`, `line 1: a second JSON value after the export (line 1)`},
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
	for _, name := range []string{"profile_export.json", "triton/profile_export.json", "tensorrtllm/profile_export.json", "perf-analyzer-2023.json"} {
		raw, _ := os.ReadFile(dir + name)
		f.Add(raw)
	}
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

// TestSummary: GenAI-Perf's summary beside the openai export — TTFT,
// TTST, request latency and request throughput, after GenAI-Perf drops
// the responses without text and merges split messages — comes back from
// the imported trace; the figures made with its tokenizer are named as not
// reproducible.
func TestSummary(t *testing.T) {
	_, rd, err := read(t, fixture, Options{Experiment: -1})
	if err != nil {
		t.Fatal(err)
	}
	c := rd.Check()
	if c == nil || len(c.Differing()) > 0 || len(c.Figures) != 40 || len(c.Skipped) != 2 {
		t.Errorf("%v", c)
	}
}

// TestTriton: output tensors become time points, one a response, the empty
// last one too; no response is a failure with its time point; GenAI-Perf's
// summary comes back.
func TestTriton(t *testing.T) {
	reqs, rd, err := read(t, dir+"triton/profile_export.json", Options{Experiment: -1})
	if err != nil {
		t.Fatal(err)
	}
	if rd.Kind() != KindTensors || len(reqs) != 3 {
		t.Fatalf("kind %s, %d requests", rd.Kind(), len(reqs))
	}
	r := reqs[0]
	res, err := replay.Replay(&r, replay.Options{})
	if err != nil || !res.Success || len(res.TimePointsS) != 5 || r.Chunks != nil || r.OutputTokens != nil {
		t.Fatalf("%+v %v", r, err)
	}
	if d := (res.TimePointsS[1] - res.TimePointsS[0]) * 1e3; math.Abs(d-41) > 1e-9 || r.Extra[0].Str != "What is tea?" {
		t.Errorf("ttft %v ms, prompt %q", d, r.Extra[0].Str)
	}
	if f := reqs[2]; !f.Failed() || len(f.TimePointsS) != 1 || f.Error == nil {
		t.Errorf("no response: %+v", f)
	}
	if c := rd.Check(); c == nil || len(c.Differing()) > 0 || len(c.Figures) != 40 {
		t.Errorf("%v", c)
	}
}

// TestTensorRTLLM: token ids give the token counts (a list, a single id,
// an empty list a response).
func TestTensorRTLLM(t *testing.T) {
	reqs, meta, err := readAll(t, dir+"tensorrtllm/profile_export.json", Options{Experiment: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 2 || *reqs[0].OutputTokens != 3 || *reqs[0].InputTokens != 5 || *reqs[1].OutputTokens != 2 || *reqs[1].InputTokens != 4 {
		t.Errorf("tokens %v %v %v %v", *reqs[0].InputTokens, *reqs[0].OutputTokens, *reqs[1].InputTokens, *reqs[1].OutputTokens)
	}
	if r, _ := meta.Get(trace.KeyRequestRate); r != "2.0" {
		t.Errorf("rate %q", r)
	}
}

// TestPerfAnalyzer: perf_analyzer's own export (response times only, with
// either key) imports as time points, not as failures.
func TestPerfAnalyzer(t *testing.T) {
	for _, name := range []string{"perf-analyzer-2023.json", "perf-analyzer-no-outputs.json"} {
		reqs, rd, err := read(t, dir+name, Options{Experiment: -1})
		if err != nil {
			t.Fatal(err)
		}
		if rd.Kind() != KindTimestamps || len(reqs) != 3 {
			t.Fatalf("%s: kind %s, %d requests", name, rd.Kind(), len(reqs))
		}
		for i, want := range []int{4, 1, 3} {
			r := reqs[i]
			if len(r.TimePointsS) != want || r.Failed() != (want == 1) {
				t.Errorf("%s request %d: %v, failed %v", name, i, r.TimePointsS, r.Failed())
			}
		}
		if d := (reqs[0].TimePointsS[1] - reqs[0].TimePointsS[0]) * 1e3; math.Abs(d-5) > 1e-9 {
			t.Errorf("%s: ttft %v ms", name, d)
		}
		if c, _ := rd.Meta().Get(trace.KeyMaxConcurrency); c != "4" {
			t.Errorf("%s: concurrency %q", name, c)
		}
	}
}

// TestRealPerfAnalyzer: the example exports perf_analyzer's documentation
// shipped in triton-inference-server/client (response times only; the
// first spelling "responses_timestamps", then "response_timestamps"): every
// request with responses is a success with one time point a response.
func TestRealPerfAnalyzer(t *testing.T) {
	for _, c := range []struct {
		name    string
		points  []int
		concurr string
	}{
		{"decoupled_output_file.21dae61.json", []int{4, 1, 4}, "4"},
		{"decoupled_output_file.6fbc18c.json", []int{4, 1, 4}, "4"},
		{"coupled_output_file.21dae61.json", []int{2, 2, 2}, "4"},
	} {
		path := realfiles.Path(t, "genai-perf", "triton-client-perf-analyzer-docs", c.name)
		reqs, rd, err := read(t, path, Options{Experiment: -1})
		if err != nil {
			t.Fatal(err)
		}
		if rd.Kind() != KindTimestamps || len(reqs) != len(c.points) {
			t.Fatalf("%s: kind %s, %d requests", c.name, rd.Kind(), len(reqs))
		}
		for i, r := range reqs {
			if len(r.TimePointsS) != c.points[i] || r.Failed() != (c.points[i] == 1) {
				t.Errorf("%s request %d: time points %v, failed %v", c.name, i, r.TimePointsS, r.Failed())
			}
		}
		if v, _ := rd.Meta().Get(trace.KeyMaxConcurrency); v != c.concurr {
			t.Errorf("%s: max_concurrency %q", c.name, v)
		}
	}
}

func FuzzKeep(f *testing.F) {
	for _, s := range []string{"data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\n", "data: [DONE]\n\n", ": ping\n\n", "event: error\ndata: {}\n\n", "data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"choices\":[]}"} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, chat bool) {
		format := formatCompletions
		if chat {
			format = formatChat
		}
		k := keep(s, format)
		if k && strings.TrimSpace(s) == "" {
			t.Fatal("kept an empty response")
		}
		if got := keptTimes([]trace.Chunk{{TNs: 1, Data: []byte(s)}}, format); (len(got) == 1) != k {
			t.Fatalf("keptTimes %v, keep %v", got, k)
		}
	})
}

// FuzzDecodeSummary: any summary that decodes compares with the imported
// requests without a panic, and names only figures of metrics it has.
func FuzzDecodeSummary(f *testing.F) {
	for _, name := range []string{"profile_export_genai_perf.json", "triton/profile_export_genai_perf.json"} {
		raw, _ := os.ReadFile(dir + name)
		f.Add(raw)
	}
	f.Add([]byte(`{"request_latency": {"unit": "ms", "avg": null, "p0.5": 1, "px": 2}, "request_throughput": {"unit": "", "avg": 1e308}}`))
	raw, err := os.ReadFile(fixture)
	if err != nil {
		f.Fatal(err)
	}
	rd, err := Read(bytes.NewReader(raw), "p", Options{Experiment: -1})
	if err != nil {
		f.Fatal(err)
	}
	for rd.Scan() {
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := DecodeSummary(bytes.NewReader(b), "s.json")
		if err != nil {
			return
		}
		for _, fig := range rd.tally.compare(s).Figures {
			metric, _, _ := strings.Cut(fig.Name, ".")
			if _, ok := s.Metrics[metric]; !ok {
				t.Fatalf("figure %s of a metric the summary does not have", fig.Name)
			}
		}
	})
}
