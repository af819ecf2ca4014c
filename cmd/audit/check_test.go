package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// aisbenchCases are the work_dirs AISBench's own code wrote
// (testdata/aisbench/make.py), with the max concurrency of each.
var aisbenchCases = []struct {
	name string
	c    string
}{{"basic", "2"}, {"failures", "4"}, {"no-stable", "4"}, {"from-trace", "2"}, {"cut-short", "2"}, {"killed", "2"}}

// TestImportAISBenchMatchesAISBench: a work_dir imported, then recomputed by
// `report --aisbench-out`, gives byte for byte the files AISBench's
// summarizer wrote for both of its calculators (testdata/aisbench/CASE/expected),
// including a run cut short (records only in tmp/, arrays never committed),
// a run with failures and one without a stable stage; in JSONL and Parquet.
func TestImportAISBenchMatchesAISBench(t *testing.T) {
	for _, c := range aisbenchCases {
		for _, ext := range []string{".jsonl", ".parquet"} {
			t.Run(c.name+ext, func(t *testing.T) {
				dir := t.TempDir()
				tr := filepath.Join(dir, "trace"+ext)
				if _, stderr, code := runCLI(t, "", "import", "--from", "aisbench", "--max-concurrency", c.c, filepath.Join("testdata", "aisbench", c.name), "-o", tr); code != 0 {
					t.Fatalf("import: exit %d: %s", code, stderr)
				}
				out := filepath.Join(dir, "out")
				if _, stderr, code := runCLI(t, "", "report", "--aisbench-out", out, tr); code != 0 {
					t.Fatalf("report: exit %d: %s", code, stderr)
				}
				exp := filepath.Join("testdata", "aisbench", c.name, "expected")
				ents, err := os.ReadDir(exp)
				if err != nil || len(ents) < 3 {
					t.Fatalf("expected files: %v %v", ents, err)
				}
				for _, e := range ents {
					want, _ := os.ReadFile(filepath.Join(exp, e.Name()))
					got, err := os.ReadFile(filepath.Join(out, e.Name()))
					if err != nil {
						t.Errorf("%s: %v", e.Name(), err)
						continue
					}
					if !bytes.Equal(got, want) {
						t.Errorf("%s differs from AISBench's:\n%s\nwant\n%s", e.Name(), got, want)
					}
				}
			})
		}
	}
}

// TestCheckTampered: an untouched report passes; a report with one cell
// edited, one rounded differently and one computed on a subset fail, each
// with that cell named and its cause.
func TestCheckTampered(t *testing.T) {
	for _, c := range aisbenchCases {
		if c.name == "cut-short" || c.name == "killed" {
			continue // no report files
		}
		if _, stderr, code := runCLI(t, "", "check", "--aisbench-dir", filepath.Join("testdata", "aisbench", c.name)); code != 0 {
			t.Errorf("%s: untouched report: exit %d: %s", c.name, code, stderr)
		}
	}
	tampered := filepath.Join("testdata", "aisbench", "basic", "tampered")
	type cell struct{ file, metric, stat, reported, cause string }
	cases := map[string][]cell{
		"edited":  {{"edited.csv", "TTFT", "P90", "269.0 ms", "hand-edit"}},
		"rounded": {{"rounded.csv", "E2EL", "Average", "747.18 ms", "rounding"}, {"rounded.json", "Output Token Throughput", "", "43.96 token/s", "rounding"}},
		"subset":  {{"subset.csv", "E2EL", "P90", "1010.0 ms", "subset"}, {"subset.json", "Success Requests", "", "9", "subset"}},
	}
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, "", "check", "--format", "json", "--aisbench-dir", filepath.Join("testdata", "aisbench", "basic"),
				"--csv", filepath.Join(tampered, name+".csv"), "--json", filepath.Join(tampered, name+".json"))
			if code != 3 {
				t.Fatalf("exit %d, want 3: %s", code, stderr)
			}
			var res struct {
				Diffs []struct {
					File, Metric, Statistic, Reported, Cause, Stage string
				} `json:"diffs"`
			}
			if err := json.Unmarshal([]byte(stdout), &res); err != nil {
				t.Fatal(err)
			}
			if name != "subset" && len(res.Diffs) != len(want) {
				t.Errorf("%d diffs, want %d: %+v", len(res.Diffs), len(want), res.Diffs)
			}
			for _, w := range want {
				found := false
				for _, d := range res.Diffs {
					if filepath.Base(d.File) == w.file && d.Metric == w.metric && d.Statistic == w.stat && d.Reported == w.reported && d.Cause == w.cause && d.Stage == "total" {
						found = true
					}
				}
				if !found {
					t.Errorf("no diff %+v in %+v", w, res.Diffs)
				}
			}
			if name == "subset" {
				for _, d := range res.Diffs {
					if d.Cause != "subset" {
						t.Errorf("%+v: want subset", d)
					}
				}
			}
		})
	}
}

// TestCheckTraceAgainstDetails: the raw bytes AISBench's client read and
// the work_dir it wrote agree on every request and every cell; a trace that
// was altered disagrees on exactly the altered requests.
func TestCheckTraceAgainstDetails(t *testing.T) {
	dir := filepath.Join("testdata", "aisbench", "from-trace")
	if stdout, stderr, code := runCLI(t, "", "check", "--aisbench-dir", dir, "--trace", filepath.Join("testdata", "traces", "basic.parquet")); code != 0 || !strings.Contains(stdout, "10 requests, 0 disagreements") {
		t.Errorf("exit %d: %s%s", code, stdout, stderr)
	}
	stdout, _, code := runCLI(t, "", "check", "--format", "json", "--aisbench-dir", dir, "--trace", filepath.Join(dir, "edited-trace.jsonl"))
	if code != 3 {
		t.Fatalf("exit %d", code)
	}
	var res struct {
		Mismatches []struct {
			TraceID string `json:"trace_request_id"`
			Field   string `json:"field"`
		} `json:"trace_details_mismatches"`
		Diffs []struct{ Cause string } `json:"diffs"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range res.Mismatches {
		got = append(got, m.TraceID+" "+m.Field)
	}
	if strings.Join(got, ", ") != "req-02 TTFT, req-02 E2EL, req-07 output_tokens" {
		t.Errorf("mismatches %v", got)
	}
	for _, d := range res.Diffs {
		if d.Cause != "trace-vs-details" {
			t.Errorf("cause %q, want trace-vs-details", d.Cause)
		}
	}
}
