package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/trace/importer/realfiles"
)

// TestImportRealAIPerf imports the records AIPerf 0.1.1 left in
// ai-dynamo/aiperf's examples/artifacts/run1 (testdata/import/SOURCES.md),
// and checks what a user sees: the import reproduces every figure of
// profile_export_aiperf.json that a trace can hold, and `audit report` gives
// AIPerf's own TTFT, request latency and throughputs.
func TestImportRealAIPerf(t *testing.T) {
	src := realfiles.Path(t, "aiperf", "ai-dynamo-aiperf-run1", "profile_export.jsonl")
	out := filepath.Join(t.TempDir(), "run1.jsonl")
	_, stderr, code := runCLI(t, "", "import", "--from", "aiperf", src, "-o", out)
	if code != 0 || !strings.Contains(stderr, "audit: imported 100 requests (11 failed)") || !strings.Contains(stderr, "106 of 106 figures of the tool's own summary reproduced from the imported trace") {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	stdout, stderr, code := runCLI(t, "", "report", out, "--format", "json")
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	var rep struct {
		Metrics map[string]map[string]struct{ Average float64 }
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(src), "profile_export_aiperf.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct {
		Records map[string]struct{ Avg float64 }
	}
	if err := json.Unmarshal(raw, &sum); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ aisbench, aiperf string }{
		{"TTFT", "ttft"},
		{"E2EL", "request_latency"},
		{"OutputTokens", "output_sequence_length"},
		{"InputTokens", "input_sequence_length"},
	} {
		got, want := rep.Metrics[c.aisbench]["total"].Average, sum.Records[c.aiperf].Avg
		if math.Abs(got-want) > 1e-9*want {
			t.Errorf("report's %s average %v, AIPerf's %s %v", c.aisbench, got, c.aiperf, want)
		}
	}
}

// TestImportEveryRequestFailed: an import where every request failed says
// so rather than passing silently.
func TestImportEveryRequestFailed(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "failed.jsonl")
	rec := `{"metadata":{"x_request_id":"a","request_start_ns":1785359889990741174,"benchmark_phase":"profiling"},"metrics":{"error_isl":{"value":3,"unit":"tokens"}},"error":{"type":"TimeoutError","message":"Request timed out"}}`
	if err := os.WriteFile(src, []byte(rec+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCLI(t, "", "import", "--from", "aiperf", "--max-concurrency", "1", src, "-o", filepath.Join(dir, "t.jsonl"))
	if code != 0 || !strings.Contains(stderr, "audit: warning: "+src+": every request failed") {
		t.Errorf("exit %d:\n%s", code, stderr)
	}
}

// TestImportBadSummaryWarns: a tool's summary beside the file that does not
// read is a warning naming it; the import goes on.
func TestImportBadSummaryWarns(t *testing.T) {
	dir := t.TempDir()
	raw, err := os.ReadFile(filepath.Join("testdata", "import", "aiperf", "records-2026", "profile_export.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "profile_export.jsonl")
	summary := filepath.Join(dir, "profile_export_aiperf.json")
	if os.WriteFile(src, raw, 0o644) != nil || os.WriteFile(summary, []byte(`{"records": 5}`), 0o644) != nil {
		t.Fatal("cannot write")
	}
	_, stderr, code := runCLI(t, "", "import", "--from", "aiperf", src, "-o", filepath.Join(dir, "t.jsonl"))
	if code != 0 || !strings.Contains(stderr, "audit: warning: "+summary+`: "records": want an object of metrics by tag: imported without checking against it`) || !strings.Contains(stderr, "imported 5 requests (2 failed)") {
		t.Errorf("exit %d:\n%s", code, stderr)
	}
}
