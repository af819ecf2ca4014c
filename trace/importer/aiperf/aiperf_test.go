package aiperf

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/trace"
)

const fixture = "../../../testdata/import/aiperf/profile_export_raw.jsonl"

func readFile(t *testing.T, path string) ([]trace.Request, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd, err := Read(f, path, Options{})
	if err != nil {
		return nil, err
	}
	var reqs []trace.Request
	for rd.Scan() {
		reqs = append(reqs, *rd.Request())
	}
	return reqs, rd.Err()
}

// parseSSE splits SSE text back into packets: the inverse of Response.SSE
// for the text it writes.
func parseSSE(b []byte) [][2]*string {
	var out [][2]*string
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n\n"), "\n") {
		name, value, ok := strings.Cut(l, ": ")
		if strings.HasPrefix(l, ":") {
			name, value, ok = "comment", strings.TrimPrefix(strings.TrimPrefix(l, ":"), " "), true
		}
		n := name
		if !ok {
			out = append(out, [2]*string{&n, nil})
			continue
		}
		v := value
		out = append(out, [2]*string{&n, &v})
	}
	return out
}

// TestRoundTrip: every record of the fixture, read with encoding/json on
// its own, comes back from the trace: start, status, each response's time
// and packets (parsed back from the SSE text), in start order.
func TestRoundTrip(t *testing.T) {
	reqs, err := readFile(t, fixture)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(fixture)
	defer f.Close()
	type rec struct {
		Metadata struct {
			XRequestID string `json:"x_request_id"`
		} `json:"metadata"`
		StartPerfNs int64  `json:"start_perf_ns"`
		Status      *int32 `json:"status"`
		Responses   []struct {
			PerfNs  int64 `json:"perf_ns"`
			Packets []struct {
				Name  string  `json:"name"`
				Value *string `json:"value"`
			} `json:"packets"`
			Text *string `json:"text"`
		} `json:"responses"`
	}
	byID := map[string]rec{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r rec
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		byID[r.Metadata.XRequestID] = r
	}
	if len(reqs) != len(byID) {
		t.Fatalf("%d requests, want %d", len(reqs), len(byID))
	}
	var prev int64
	for _, r := range reqs {
		s, ok := byID[r.RequestID]
		if !ok {
			t.Fatalf("request %s not in the file", r.RequestID)
		}
		if r.T0Ns < prev {
			t.Errorf("%s: not in start order", r.RequestID)
		}
		prev = r.T0Ns
		if r.T0Ns != s.StartPerfNs || (s.Status == nil) != (r.HTTPStatus == nil) || (s.Status != nil && *s.Status != *r.HTTPStatus) {
			t.Errorf("%s: t0 %d status %v, want %d %v", r.RequestID, r.T0Ns, r.HTTPStatus, s.StartPerfNs, s.Status)
		}
		if len(r.Chunks) != len(s.Responses) {
			t.Fatalf("%s: %d chunks, want %d", r.RequestID, len(r.Chunks), len(s.Responses))
		}
		for k, c := range r.Chunks {
			resp := s.Responses[k]
			if c.TNs != resp.PerfNs {
				t.Errorf("%s chunk %d: t %d want %d", r.RequestID, k, c.TNs, resp.PerfNs)
			}
			if resp.Text != nil {
				if string(c.Data) != *resp.Text {
					t.Errorf("%s chunk %d: %q want %q", r.RequestID, k, c.Data, *resp.Text)
				}
				continue
			}
			got := parseSSE(c.Data)
			if len(got) != len(resp.Packets) {
				t.Fatalf("%s chunk %d: %q: %d packets, want %d", r.RequestID, k, c.Data, len(got), len(resp.Packets))
			}
			for i, p := range resp.Packets {
				if *got[i][0] != p.Name || (got[i][1] == nil) != (p.Value == nil) || (p.Value != nil && *got[i][1] != *p.Value) {
					t.Errorf("%s chunk %d packet %d: %v, want %s %v", r.RequestID, k, i, got[i], p.Name, p.Value)
				}
			}
		}
	}
	// The events survive: the first request replays as a success with its
	// usage.
	res, err := replay.Replay(&reqs[0], replay.Options{})
	if err != nil || !res.Success || res.OutputTokens == nil || *res.OutputTokens != 3 {
		t.Errorf("replay of %s: %+v %v", reqs[0].RequestID, res, err)
	}
	if e := reqs[2].Error; e == nil || *e != "code 500: InternalServerError: Internal Server Error" {
		t.Errorf("error %v", e)
	}
	if reqs[3].Extra[0].Str != "Count to two:" {
		t.Errorf("prompt %q", reqs[3].Extra[0].Str)
	}
}

func TestSSE(t *testing.T) {
	v := func(s string) *string { return &s }
	r := Response{Packets: []Packet{{"comment", v("hi")}, {"event", v("message")}, {"data", v("{}")}, {"retry", nil}, {"id", v("")}}}
	if got := string(r.SSE()); got != ": hi\nevent: message\ndata: {}\nretry\nid: \n\n" {
		t.Errorf("SSE %q", got)
	}
}

func TestBad(t *testing.T) {
	_, err := readFile(t, "../../../testdata/import/aiperf/bad-line.jsonl")
	if err == nil || !strings.Contains(err.Error(), "bad-line.jsonl: line 2") || !strings.Contains(err.Error(), "start_perf_ns") {
		t.Errorf("bad line: %v", err)
	}
	for _, c := range []struct{ in, want string }{
		{"", "no records"},
		{"[]\n", "line 1: not a JSON object: want AIPerf's records export"},
		{"\n{\"experiments\": []}", "line 2: GenAI-Perf's or perf_analyzer's profile export (\"experiments\"; import it with --from genai-perf)"},
		{`{"start_perf_ns": 1}`, `no "responses"`},
		{`{"start_perf_ns": 1, "responses": [{"packets": []}]}`, `no "perf_ns"`},
		{`{"start_perf_ns": 1, "responses": [{"perf_ns": 2}]}`, `neither "packets" nor "text"`},
		{`{"start_perf_ns": 1, "responses": [{"perf_ns": 2, "packets": [{"value": "x"}]}]}`, `no "name"`},
		{`{"start_perf_ns": 1, "responses": [{"perf_ns": 2, "packets": [{"name": "data", "value": 3}]}]}`, "want a string"},
		{`{"start_perf_ns": 1, "status": "ok", "responses": []}`, "status"},
		{`{"start_perf_ns": 1, "error": 5, "responses": []}`, "error"},
		{`{"start_perf_ns": 5, "responses": [{"perf_ns": 2, "text": "x"}]}`, "before t0_ns"},
		{"{\"request_id\": \"a\", \"start_perf_ns\": 1, \"responses\": []}\n{\"request_id\": \"a\", \"start_perf_ns\": 2, \"responses\": []}", "duplicate"},
	} {
		rd, err := Read(strings.NewReader(c.in), "x.jsonl", Options{})
		if err == nil {
			for rd.Scan() {
			}
			err = rd.Err()
		}
		if err == nil || !strings.HasPrefix(err.Error(), "x.jsonl") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming x.jsonl and %q", c.in, err, c.want)
		}
	}
}

func FuzzRead(f *testing.F) {
	raw, _ := os.ReadFile(fixture)
	f.Add(raw)
	records, _ := os.ReadFile("../../../testdata/import/aiperf/records-2026/profile_export.jsonl")
	f.Add(records)
	f.Add([]byte(`{"start_perf_ns": 1, "status": null, "error": {"code": null, "message": "x"}, "responses": [{"perf_ns": 2, "packets": [{"name": "data", "value": null}]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		rd, err := Read(bytes.NewReader(b), "f", Options{})
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
