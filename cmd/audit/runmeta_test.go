package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A trace that lost its run metadata (its JSONL run line cut; a copy
// through DuckDB): inspect says so, and --run-meta gives it back, from the
// original's inspect JSON, to the same report byte for byte; never over
// the file's own.
func TestRunMetaSidecar(t *testing.T) {
	dir := t.TempDir()
	orig := "testdata/traces/basic.jsonl"
	raw, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(raw), "\n")
	lost := filepath.Join(dir, "lost.jsonl")
	if err := os.WriteFile(lost, []byte(rest), 0o644); err != nil {
		t.Fatal(err)
	}
	sidecar := filepath.Join(dir, "run.json")
	if _, stderr, code := runCLI(t, "", "inspect", "-o", sidecar, "--format", "json", orig); code != 0 {
		t.Fatal(stderr)
	}
	want, _, _ := runCLI(t, "", "report", orig)

	copies := map[string]string{"jsonl without its run line": lost}
	if modules := os.Getenv("SSEAUDIT_NODE_MODULES"); modules != "" {
		duck := filepath.Join(dir, "duck.parquet")
		script, _ := filepath.Abs("cmd/audit/testdata/duckdb-sql.mjs")
		src, _ := filepath.Abs("testdata/traces/basic.parquet")
		cmd := exec.Command("node", script, "COPY (SELECT * FROM read_parquet('"+src+"')) TO '"+duck+"' (FORMAT parquet)")
		cmd.Env = append(os.Environ(), "SSEAUDIT_NODE_MODULES="+modules)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("DuckDB copy: %v\n%s", err, out)
		}
		copies["DuckDB's COPY of the Parquet"] = duck
	}
	for name, path := range copies {
		out, _, _ := runCLI(t, "", "inspect", path)
		if !strings.Contains(out, "no sseaudit.* metadata") || !strings.Contains(out, "--run-meta") {
			t.Errorf("%s: inspect says nothing of the lost metadata:\n%s", name, out)
		}
		got, stderr, code := runCLI(t, "", "report", "--run-meta", sidecar, path)
		if code != 0 || got != want {
			t.Errorf("%s: report --run-meta: exit %d (%s), the same report as the original: %v", name, code, stderr, got == want)
		}
	}

	// convert writes the given metadata into the new file.
	fixed := filepath.Join(dir, "fixed.parquet")
	if _, stderr, code := runCLI(t, "", "convert", "--run-meta", sidecar, lost, "-o", fixed); code != 0 {
		t.Fatal(stderr)
	}
	if out, _, _ := runCLI(t, "", "inspect", fixed); !strings.Contains(out, "max concurrency  2") || strings.Contains(out, "no sseaudit.* metadata") {
		t.Errorf("the converted file lacks the metadata:\n%s", out)
	}

	bad := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "--run-meta", bad("other-c.json", `{"sseaudit.max_concurrency": 3}`), orig}, `sseaudit.max_concurrency is "3", but testdata/traces/basic.jsonl holds "2"`},
		{[]string{"report", "--run-meta", bad("foreign.json", `{"max_concurrency": 3}`), lost}, `key "max_concurrency": want sseaudit.* keys only`},
		{[]string{"report", "--run-meta", bad("list.json", `[1]`), lost}, "want a JSON object"},
		{[]string{"report", "--run-meta", bad("nested.json", `{"sseaudit.source": {"a": 1}}`), lost}, `key "sseaudit.source": want a string or a number`},
		{[]string{"report", "--run-meta", bad("empty.json", `{}`), lost}, "no sseaudit.* key"},
		{[]string{"report", "--run-meta", filepath.Join(dir, "nope.json"), lost}, "nope.json"},
	} {
		_, stderr, code := runCLI(t, "", c.args...)
		if code != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 naming %q", c.args[2], code, stderr, c.want)
		}
	}
}
