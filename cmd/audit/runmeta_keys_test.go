package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// lostCopies writes copies of testdata/traces/basic.* that lost their run
// metadata: the JSONL without its run line, and the Parquet's rows copied
// into a file without key/value metadata (what DuckDB's COPY leaves).
func lostCopies(t *testing.T, dir string) map[string]string {
	t.Helper()
	raw, err := os.ReadFile("testdata/traces/basic.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(raw), "\n")
	jsonl := filepath.Join(dir, "lost.jsonl")
	if err := os.WriteFile(jsonl, []byte(rest), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open("testdata/traces/basic.parquet")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	st, _ := in.Stat()
	pf, err := parquet.OpenFile(in, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	pq := filepath.Join(dir, "lost.parquet")
	out, err := os.Create(pq)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[any](out, pf.Schema())
	for _, rg := range pf.RowGroups() {
		rows := rg.Rows()
		if _, err := parquet.CopyRows(w, rows); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return map[string]string{"jsonl": jsonl, "parquet": pq}
}

func writeSidecar(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// inspectJSON is what 'audit inspect --format json' says of a trace.
type inspectJSON struct {
	SchemaVersion string            `json:"schema_version"`
	Metadata      map[string]string `json:"metadata"`
	Notes         []string          `json:"notes"`
}

func inspectAsJSON(t *testing.T, args ...string) inspectJSON {
	t.Helper()
	out, stderr, code := runCLI(t, "", append([]string{"inspect", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("inspect %v: exit %d: %s", args, code, stderr)
	}
	var s inspectJSON
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("inspect %v: %v\n%s", args, err, out)
	}
	return s
}

// TestRunMetaInspectRoundTrip: 'audit inspect --format json orig >
// run.json; audit report --run-meta run.json copy' gives the original's
// report, for a Parquet copy without key/value metadata and a JSONL one
// without its run line. The original's inspect JSON holds its
// sseaudit.schema_version; that is accepted (it is the version the copy is
// read as), but the copy's own schema version stays what it is: assumed.
func TestRunMetaInspectRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for format, lost := range lostCopies(t, dir) {
		orig := "testdata/traces/basic." + format
		sidecar := filepath.Join(dir, format+"-run.json")
		if _, stderr, code := runCLI(t, "", "inspect", "--format", "json", "-o", sidecar, orig); code != 0 {
			t.Fatal(stderr)
		}
		if s := inspectAsJSON(t, orig); s.Metadata["sseaudit.schema_version"] != "1" {
			t.Fatalf("%s: the original's inspect JSON has no sseaudit.schema_version 1: %v", orig, s.Metadata)
		}
		if s := inspectAsJSON(t, lost); len(s.Metadata) != 0 {
			t.Fatalf("%s: not a copy that lost its metadata: %+v", format, s)
		}
		want, _, _ := runCLI(t, "", "report", orig)
		got, stderr, code := runCLI(t, "", "report", "--run-meta", sidecar, lost)
		if code != 0 || got != want {
			t.Errorf("%s: report --run-meta: exit %d (%s); the original's report: %v\n%s", format, code, stderr, got == want, got)
		}
		s := inspectAsJSON(t, "--run-meta", sidecar, lost)
		if s.Metadata["sseaudit.max_concurrency"] != "2" || s.Metadata["sseaudit.source"] != "testdata/traces/make" {
			t.Errorf("%s: inspect --run-meta: the run metadata not given back: %v", format, s.Metadata)
		}
		if v, ok := s.Metadata["sseaudit.schema_version"]; ok {
			t.Errorf("%s: inspect --run-meta: metadata sseaudit.schema_version %q: the copy has none; want no key from the sidecar", format, v)
		}
		if out, _, _ := runCLI(t, "", "inspect", "--run-meta", sidecar, lost); !strings.Contains(out, "schema version   1 (assumed)") {
			t.Errorf("%s: inspect --run-meta: want the copy's own schema version, \"1 (assumed)\":\n%s", format, out)
		}
		for _, n := range s.Notes {
			if strings.Contains(n, "--run-meta") && strings.Contains(n, "sseaudit.schema_version") {
				t.Errorf("%s: a note says the sidecar gave the schema version: %q", format, n)
			}
		}
	}
}

// TestRunMetaSchemaVersionClaim: sseaudit.schema_version says how a file
// was written, not how the run went. A sidecar's claim of a version the
// file is not read as was taken as the file's own: inspect printed
// "schema version 2" (beside the reader's note "read as version 1") and
// wrote it into its JSON. It is refused, naming the sidecar, the key and
// the file; a version equal to the file's (given or assumed) is accepted.
func TestRunMetaSchemaVersionClaim(t *testing.T) {
	dir := t.TempDir()
	lost := lostCopies(t, dir)["jsonl"]
	v2 := writeSidecar(t, dir, "v2.json", `{"sseaudit.schema_version": "2", "sseaudit.max_concurrency": 2}`)
	v2inspect := writeSidecar(t, dir, "v2-inspect.json", `{"file": "x", "metadata": {"sseaudit.schema_version": 2, "sseaudit.max_concurrency": "2"}}`)
	for _, c := range []struct{ sidecar, file string }{
		{v2, lost},
		{v2inspect, lost},
		{v2, "testdata/traces/basic.jsonl"},
	} {
		for _, cmd := range []string{"inspect", "report"} {
			out, stderr, code := runCLI(t, "", cmd, "--run-meta", c.sidecar, c.file)
			if code != 1 || !strings.Contains(stderr, c.sidecar) || !strings.Contains(stderr, "sseaudit.schema_version") || !strings.Contains(stderr, c.file) {
				t.Errorf("%s --run-meta %s %s: exit %d, stderr %q; want exit 1 naming the sidecar, sseaudit.schema_version and the file\n%s",
					cmd, filepath.Base(c.sidecar), c.file, code, stderr, out)
			}
		}
	}
	v1 := writeSidecar(t, dir, "v1.json", `{"sseaudit.schema_version": 1, "sseaudit.max_concurrency": 2}`)
	s := inspectAsJSON(t, "--run-meta", v1, lost)
	if _, ok := s.Metadata["sseaudit.schema_version"]; ok || s.Metadata["sseaudit.max_concurrency"] != "2" {
		t.Errorf("a sidecar's schema version equal to the assumed one: %+v; want it accepted, not added", s)
	}
}

// TestRunMetaUnknownKey: a sidecar's sseaudit.* key that no trace has
// (sseaudit.max_concurency, misspelt) was accepted without a word and then
// ignored: the report ran with no max concurrency, inspect listed it as
// metadata, convert wrote it into the new file. It is refused, naming the
// sidecar, the key and the keys a sidecar may give. Keys that describe how
// a file is written (sseaudit.extra_kind.*) or belong to replay tables
// (sseaudit.tables.*) are no run's metadata either.
func TestRunMetaUnknownKey(t *testing.T) {
	dir := t.TempDir()
	lost := lostCopies(t, dir)["jsonl"]
	for _, key := range []string{"sseaudit.max_concurency", "sseaudit.concurrency", "sseaudit.extra_kind.model", "sseaudit.tables.framer", "sseaudit.runs.model"} {
		for i, text := range []string{
			`{"` + key + `": "2", "sseaudit.source": "x"}`,
			`{"metadata": {"sseaudit.source": "x", "` + key + `": 2}}`,
		} {
			sidecar := writeSidecar(t, dir, strings.ReplaceAll(key, ".", "_")+[]string{"", "-inspect"}[i]+".json", text)
			for _, cmd := range []string{"inspect", "report", "convert"} {
				args := []string{cmd, "--run-meta", sidecar, lost}
				if cmd == "convert" {
					args = append(args, "-o", filepath.Join(dir, "out.parquet"))
				}
				_, stderr, code := runCLI(t, "", args...)
				if code != 1 || !strings.Contains(stderr, sidecar) || !strings.Contains(stderr, `"`+key+`"`) ||
					!strings.Contains(stderr, "sseaudit.max_concurrency") || !strings.Contains(stderr, "sseaudit.run.") {
					t.Errorf("%s --run-meta %s: exit %d, stderr %q; want exit 1 naming the sidecar, the key and the known keys", cmd, filepath.Base(sidecar), code, stderr)
				}
			}
		}
	}
	ok := writeSidecar(t, dir, "ok.json", `{"sseaudit.max_concurrency": 2, "sseaudit.request_rate": "1.5", "sseaudit.source": "x", "sseaudit.run.anything.at_all": "y"}`)
	if s := inspectAsJSON(t, "--run-meta", ok, lost); len(s.Metadata) != 4 {
		t.Errorf("the run metadata keys: %v; want all four given", s.Metadata)
	}
}

// TestRunMetaOwnWritersKeys: what inspect prints of a trace written by our
// own tools (gen, capture, the importers, the test fixtures) is a sidecar
// every key of which is accepted.
func TestRunMetaOwnWritersKeys(t *testing.T) {
	dir := t.TempDir()
	lost := lostCopies(t, dir)["jsonl"]
	traces := []string{
		"testdata/traces/basic.jsonl", "testdata/traces/basic.parquet", "testdata/traces/basic.arrow",
		"testdata/traces/basic-flat.parquet", "testdata/traces/external/duckdb-nested.parquet",
		"testdata/traces/external/arrowjs-nested.arrow", "testdata/traces/findings/clean.jsonl",
	}
	made := func(name string, args ...string) {
		out := filepath.Join(dir, name)
		if _, stderr, code := runCLI(t, "", append(args, "-o", out)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		traces = append(traces, out)
	}
	made("gen.parquet", "gen", "--profile", "chat", "--requests", "3", "--concurrency", "2")
	made("aisbench.jsonl", "import", "--from", "aisbench", "testdata/aisbench/basic")
	made("aiperf.jsonl", "import", "--from", "aiperf", "--max-concurrency", "1", "testdata/import/aiperf/records-2026/profile_export.jsonl")
	made("vllm.jsonl", "import", "--from", "vllm", "testdata/import/vllm/no-start-times.json")
	made("sglang.jsonl", "import", "--from", "sglang", "testdata/import/sglang/details.jsonl")
	made("genaiperf.jsonl", "import", "--from", "genai-perf", "testdata/import/genai-perf/profile_export.json")
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"text\":\"Hi\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer ts.Close()
	made("capture.arrows", "capture", "--url", ts.URL+"/v1/completions", "--requests", "1", "--progress", "never")

	for i, tr := range traces {
		sidecar := filepath.Join(dir, "sidecar-"+filepath.Base(tr)+".json")
		if _, stderr, code := runCLI(t, "", "inspect", "--format", "json", "-o", sidecar, tr); code != 0 {
			t.Fatalf("inspect %s: %s", tr, stderr)
		}
		want := inspectAsJSON(t, tr).Metadata
		got := inspectAsJSON(t, "--run-meta", sidecar, lost).Metadata
		delete(want, "sseaudit.schema_version")
		if len(got) != len(want) {
			t.Errorf("%d %s: the sidecar gave %v; want %v", i, tr, got, want)
		}
	}
}
