package aiperf

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/importer/crosscheck"
	"github.com/sseaudit/sseaudit/trace/importer/realfiles"
)

// readRecords imports a records export with the summary beside it.
func readRecords(t *testing.T, path string) ([]trace.Request, *Reader) {
	t.Helper()
	var opts Options
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
		t.Fatal(err)
	}
	var reqs []trace.Request
	for rd.Scan() {
		reqs = append(reqs, *rd.Request())
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return reqs, rd
}

// fileRecord is a line of the records export read on its own.
type fileRecord struct {
	Metadata map[string]any                 `json:"metadata"`
	Metrics  map[string]struct{ Value any } `json:"metrics"`
	Error    *struct {
		Code          any
		Type, Message string
	} `json:"error"`
}

func fileRecords(t *testing.T, path string) map[string]fileRecord {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]fileRecord{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r fileRecord
		d := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		d.UseNumber()
		if err := d.Decode(&r); err != nil {
			t.Fatal(err)
		}
		out[r.Metadata["x_request_id"].(string)] = r
	}
	return out
}

func num(t *testing.T, v any) float64 {
	t.Helper()
	f, err := v.(json.Number).Float64()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// checkRecords: every profiling record of the file, read on its own, comes
// back from the trace — its start, its TTFT, each inter-chunk latency and
// its request latency (in ms, from the time points), its token counts, its
// error — and AISBench's replay of each request agrees.
func checkRecords(t *testing.T, path string, reqs []trace.Request, rd *Reader) {
	t.Helper()
	src := fileRecords(t, path)
	offset := rd.offset
	profiling := 0
	for _, r := range src {
		if p, _ := r.Metadata["benchmark_phase"].(string); p == "warmup" {
			continue
		}
		if p, _ := r.Metadata["credit_phase"].(string); p == "warmup" {
			continue
		}
		profiling++
	}
	if len(reqs) != profiling {
		t.Fatalf("%d requests, want the %d profiling records", len(reqs), profiling)
	}
	var prev int64
	for _, r := range reqs {
		s, ok := src[r.RequestID]
		if !ok {
			t.Fatalf("request %s not in the file", r.RequestID)
		}
		if r.T0Ns < prev {
			t.Errorf("%s: not in start order", r.RequestID)
		}
		prev = r.T0Ns
		startKey := "request_start_ns"
		if _, ok := s.Metadata[startKey]; !ok {
			startKey = "timestamp_ns"
		}
		start, _ := s.Metadata[startKey].(json.Number).Int64()
		if r.T0Ns+offset != start {
			t.Errorf("%s: t0 %d + offset %d, want %s %d", r.RequestID, r.T0Ns, offset, startKey, start)
		}
		res, err := replay.Replay(&r, replay.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if s.Error != nil {
			if res.Success || r.Error == nil || !strings.HasSuffix(*r.Error, s.Error.Type+": "+s.Error.Message) {
				t.Errorf("%s: success %v error %v, want the failure %+v", r.RequestID, res.Success, r.Error, *s.Error)
			}
			continue
		}
		tp := res.TimePointsS
		if !res.Success || len(tp) < 2 {
			t.Fatalf("%s: success %v time points %v", r.RequestID, res.Success, tp)
		}
		ttftKey := "time_to_first_token"
		if _, ok := s.Metrics[ttftKey]; !ok {
			ttftKey = "ttft"
		}
		near := func(what string, got, want float64) {
			if math.Abs(got-want) > 1e-6 {
				t.Errorf("%s %s: %v ms from the trace, %v in the file", r.RequestID, what, got, want)
			}
		}
		near(ttftKey, (tp[1]-tp[0])*1e3, num(t, s.Metrics[ttftKey].Value))
		icl := s.Metrics["inter_chunk_latency"].Value.([]any)
		if len(tp) != 2+len(icl) {
			t.Fatalf("%s: %d time points for %d chunk latencies", r.RequestID, len(tp), len(icl))
		}
		for k, d := range icl {
			near("inter_chunk_latency", (tp[k+2]-tp[k+1])*1e3, num(t, d))
		}
		near("request_latency", (tp[len(tp)-1]-tp[0])*1e3, num(t, s.Metrics["request_latency"].Value))
		if *res.OutputTokens != int64(num(t, s.Metrics["output_sequence_length"].Value)) || *res.InputTokens != int64(num(t, s.Metrics["input_sequence_length"].Value)) {
			t.Errorf("%s: tokens %d %d", r.RequestID, *res.InputTokens, *res.OutputTokens)
		}
	}
}

// checkSummary: every figure of AIPerf's summary the trace can give agrees.
func checkSummary(t *testing.T, c *crosscheck.Comparison, atLeast int) {
	t.Helper()
	if c == nil {
		t.Fatal("no comparison with the summary")
	}
	if d := c.Differing(); len(d) > 0 || len(c.Figures) < atLeast {
		t.Errorf("%d figures, want at least %d, all agreeing: %s", len(c.Figures), atLeast, c)
	}
	t.Log(c)
}

func TestRecords(t *testing.T) {
	for _, schema := range []string{"2026", "0.2"} {
		t.Run(schema, func(t *testing.T) {
			path := filepath.Join("..", "..", "..", "testdata", "import", "aiperf", "records-"+schema, "profile_export.jsonl")
			reqs, rd := readRecords(t, path)
			checkRecords(t, path, reqs, rd)
			checkSummary(t, rd.Check(), 40)
			m := rd.Meta()
			if c, _ := m.Get(trace.KeyMaxConcurrency); c != "2" {
				t.Errorf("max_concurrency %q, want the summary's 2", c)
			}
			if s, _ := m.Get(trace.KeyRunPrefix + "skipped"); s != "1 warmup" {
				t.Errorf("skipped %q", s)
			}
			wantSchema := SchemaRequestStart
			if schema == "0.2" {
				wantSchema = SchemaTimestamp
			}
			if s, _ := m.Get(trace.KeyRunPrefix + "schema"); s != wantSchema {
				t.Errorf("schema %q, want %q", s, wantSchema)
			}
			// The timeout record has no code in 2026, the cancellation one.
			for _, r := range reqs {
				if r.RequestID == "c087da26-0003" && schema == "2026" && (r.Error == nil || *r.Error != "TimeoutError: Request timed out after 30.000 seconds") {
					t.Errorf("timeout: %v", r.Error)
				}
				if r.RequestID == "c087da26-0004" && (r.Error == nil || !strings.HasPrefix(*r.Error, "code 499: RequestCancellationError")) {
					t.Errorf("cancellation: %v", r.Error)
				}
			}
		})
	}
}

// TestRealRecords imports the records export of ai-dynamo/aiperf's
// examples/artifacts/run1 (AIPerf 0.1.1, 100 requests, 11 cancelled) and
// reproduces every figure of its profile_export_aiperf.json that a trace can
// hold.
func TestRealRecords(t *testing.T) {
	path := realfiles.Path(t, "aiperf", "ai-dynamo-aiperf-run1", "profile_export.jsonl")
	reqs, rd := readRecords(t, path)
	checkRecords(t, path, reqs, rd)
	c := rd.Check()
	checkSummary(t, c, 100)
	failed := 0
	for i := range reqs {
		if reqs[i].Failed() {
			failed++
		}
	}
	if len(reqs) != 100 || failed != 11 {
		t.Errorf("%d requests, %d failed: want 100 and 11", len(reqs), failed)
	}
	if v, _ := rd.Meta().Get(trace.KeyMaxConcurrency); v != "100" {
		t.Errorf("max_concurrency %q, want the summary's 100", v)
	}
	// TTFT plus the chunk latencies is the request latency, to the ns.
	src := fileRecords(t, path)
	worst := 0.0
	for id, r := range src {
		if r.Error != nil {
			continue
		}
		sum := num(t, r.Metrics["ttft"].Value)
		for _, d := range r.Metrics["inter_chunk_latency"].Value.([]any) {
			sum += num(t, d)
		}
		diff := math.Abs(sum - num(t, r.Metrics["request_latency"].Value))
		if diff > worst {
			worst = diff
		}
		if diff > 1e-9 {
			t.Errorf("%s: ttft + inter_chunk_latency %v ms, request_latency %v", id, sum, num(t, r.Metrics["request_latency"].Value))
		}
	}
	t.Logf("largest |ttft + sum(inter_chunk_latency) - request_latency|: %g ms", worst)
}

func TestRecordsBad(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"metadata": {"x_request_id": "a"}, "metrics": {}}`, `line 1: request "a": no metadata.request_start_ns (AIPerf 2026) nor metadata.timestamp_ns (AIPerf <= 0.2)`},
		{`{"metadata": {"request_start_ns": "x"}, "metrics": {}}`, `metadata.request_start_ns: "x": want a non-negative integer`},
		{`{"metadata": {"request_start_ns": 5, "request_end_ns": 4}, "metrics": {}}`, `request_end_ns 4 is before the start 5`},
		{`{"metadata": {"request_start_ns": 5}, "metrics": {}, "error": null}`, `a success with no metrics.time_to_first_token (or ttft) and no metrics.request_latency`},
		{`{"metadata": {"request_start_ns": 5}, "metrics": {"ttft": {"value": 1, "unit": "fortnight"}}, "error": null}`, `metrics.ttft: unit "fortnight"`},
		{`{"metadata": {"request_start_ns": 5}, "metrics": {"ttft": {"value": -1, "unit": "ms"}}}`, `metrics.ttft: -1: want a duration of 0 or more`},
		{`{"metadata": {"request_start_ns": 5}, "metrics": {"ttft": {"value": 1, "unit": "ms"}, "inter_chunk_latency": {"value": 2, "unit": "ms"}}}`, `metrics.inter_chunk_latency: want {"value": [numbers], "unit"}`},
		{`{"metadata": {"request_start_ns": 5}, "metrics": {"ttft": {"value": 1, "unit": "ms"}, "inter_chunk_latency": {"value": [2], "unit": "ms"}, "request_latency": {"value": 4, "unit": "ms"}}}`, `ttft + inter_chunk_latency = 3 ms but request_latency = 4 ms: want them equal (AIPerf's definitions)`},
		{`{"metadata": {"request_start_ns": 5}, "metrics": {"output_sequence_length": {"value": 1.5}}}`, `metrics.output_sequence_length: want {"value": a count of 0 or more}`},
		{`{"metadata": {"request_start_ns": 5}, "error": 7}`, `error: want null, a string or {code, type, message}`},
		{`{"metadata": {"request_start_ns": 5, "benchmark_phase": "warmup"}, "error": null}`, `no profiling records (only 1 warmup)`},
		{`{"records": {}}`, `AIPerf's summary (profile_export_aiperf.json), which has no per-request records`},
		{"{\"metadata\": {\"request_start_ns\": 1}, \"error\": \"x\"}\n{\"metadata\": {\"request_start_ns\": 2, \"x_request_id\": \"b\"}, \"metrics\": {\"ttft\": {\"value\": 1, \"unit\": \"ms\"}}}\n{\"metadata\": {", "line 3: the JSON value that starts here is cut short"},
	} {
		_, err := Read(strings.NewReader(c.in), "p.jsonl", Options{})
		if err == nil || !strings.HasPrefix(err.Error(), "p.jsonl") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\nerror %v\nwant one naming p.jsonl and %q", c.in, err, c.want)
		}
	}
}

func TestReadSummaryBad(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ in, want string }{
		{"[]", "not a JSON object"},
		{"{}\n{}", "2 JSON values"},
		{`{"records": 5}`, `"records": want an object of metrics by tag`},
		{`{"x": 1}`, `no metrics`},
	} {
		p := filepath.Join(dir, SummaryName)
		os.WriteFile(p, []byte(c.in), 0o644)
		if _, err := ReadSummary(p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.in, err, c.want)
		}
	}
}

func FuzzParseMetricRecord(f *testing.F) {
	raw, _ := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "import", "aiperf", "records-2026", "profile_export.jsonl"))
	for _, l := range bytes.Split(raw, []byte("\n")) {
		f.Add(l)
	}
	f.Add([]byte(`{"metadata": {"timestamp_ns": 9223372036854775807}, "metrics": {"ttft": {"value": 1e300, "unit": "sec"}, "inter_chunk_latency": {"value": [1e-300, 4611686018427.387904], "unit": "ms"}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, err := ParseMetricRecord(b)
		if err != nil {
			return
		}
		req := rec.Request("r", 0)
		chk := trace.NewChecker("f", trace.DefaultLimits)
		if err := chk.Check(&req, trace.Error{RowGroup: -1, Row: -1}); err != nil {
			t.Fatalf("a request the schema refuses: %v", err)
		}
		tp := req.TimePointsS
		for i := 1; i < len(tp); i++ {
			if tp[i] < tp[i-1] {
				t.Fatalf("time points go back: %v", tp)
			}
		}
		if req.EndNs == nil || *req.EndNs < req.T0Ns {
			t.Fatalf("end %v before t0 %d", req.EndNs, req.T0Ns)
		}
	})
}

// FuzzDecodeSummary: any summary that decodes compares with the imported
// records without a panic, and names only figures of metrics it has.
func FuzzDecodeSummary(f *testing.F) {
	dir := filepath.Join("..", "..", "..", "testdata", "import", "aiperf")
	for _, s := range []string{"records-2026", "records-0.2"} {
		raw, _ := os.ReadFile(filepath.Join(dir, s, SummaryName))
		f.Add(raw)
	}
	f.Add([]byte(`{"request_count": {"unit": "requests", "avg": "x"}, "ttft": {"unit": "fortnight", "p101": 1, "p-5": 2}}`))
	rd, err := Read(bytes.NewReader(mustRead(f, filepath.Join(dir, "records-2026", "profile_export.jsonl"))), "p", Options{})
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
			tag, _, _ := strings.Cut(fig.Name, ".")
			if _, ok := s.Metrics[tag]; !ok {
				t.Fatalf("figure %s of a metric the summary does not have", fig.Name)
			}
		}
	})
}

func mustRead(f *testing.F, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return b
}
