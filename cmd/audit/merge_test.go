package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/trace"
)

// splitTrace writes the requests of the trace at path into consecutive
// shards ending before each of ends (the last shard takes the rest), with the
// trace's metadata and extra columns, and returns their paths.
func splitTrace(t *testing.T, path, dir string, ends ...int) []string {
	t.Helper()
	r, err := trace.Open(path, trace.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	info := r.Info()
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	var paths []string
	var w *trace.Writer
	next := func() {
		if w != nil {
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		}
		p := filepath.Join(dir, fmt.Sprintf("%s-%d.parquet", base, len(paths)+1))
		if w, err = trace.Create(p, "", nil, trace.WriteOptions{Meta: info.Meta, Extra: info.Extra}); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	next()
	for i := 0; r.Scan(); i++ {
		if len(paths) <= len(ends) && i == ends[len(paths)-1] {
			next()
		}
		if err := w.Write(r.Request()); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return paths
}

// joinTraces writes the requests of the traces, in the order given, into
// one trace with the first one's metadata.
func joinTraces(t *testing.T, out string, paths ...string) string {
	t.Helper()
	var w *trace.Writer
	for _, p := range paths {
		r, err := trace.Open(p, trace.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if w == nil {
			if w, err = trace.Create(out, "", nil, trace.WriteOptions{Meta: r.Info().Meta, Extra: r.Info().Extra}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := trace.Copy(w, r); err != nil {
			t.Fatal(err)
		}
		r.Close()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

// replayToTables runs audit replay --format parquet on each trace and
// returns the partial directories.
func replayToTables(t *testing.T, dir string, traces []string, extra ...string) []string {
	t.Helper()
	var dirs []string
	for i, p := range traces {
		out := filepath.Join(dir, fmt.Sprintf("partial-%d", i+1))
		args := append(append([]string{"replay", "--format", "parquet", "--out-dir", out}, extra...), p)
		if _, stderr, code := runCLI(t, "", args...); code != 0 {
			t.Fatalf("audit %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
		}
		dirs = append(dirs, out)
	}
	return dirs
}

// mixedTrace generates a trace of every profile's streams: failures, reasoning,
// comments, the framings AISBench's client mishandles.
func mixedTrace(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "mixed.parquet")
	if _, stderr, code := runCLI(t, "", "gen", "--profile", "mixed", "--requests", "300", "--concurrency", "8",
		"--output-tokens", "24", "--seed", "1", "-o", path); code != 0 {
		t.Fatalf("gen: exit %d\n%s", code, stderr)
	}
	return path
}

// reportOutputs runs a command (report or merge) with each output format
// and --aisbench-out, and returns every output by name.
func reportOutputs(t *testing.T, dir string, args ...string) map[string]string {
	t.Helper()
	outs := map[string]string{}
	for _, format := range []string{"text", "json", "csv", "markdown"} {
		cmd := append([]string{args[0], "--format", format, "--color", "never", "--stats", "Average,P50,P99.9", "--slo", "TPOT<20ms"}, args[1:]...)
		if format == "json" {
			aisbench := filepath.Join(dir, "aisbench")
			cmd = append(cmd[:1:1], append([]string{"--aisbench-out", aisbench}, cmd[1:]...)...)
		}
		stdout, stderr, code := runCLI(t, "", cmd...)
		if code != 0 {
			t.Fatalf("audit %s: exit %d\n%s", strings.Join(cmd, " "), code, stderr)
		}
		outs[format] = stdout
		outs[format+" stderr"] = stderr
	}
	files, _ := filepath.Glob(filepath.Join(dir, "aisbench", "*"))
	if len(files) == 0 {
		t.Fatal("--aisbench-out wrote nothing")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		outs["aisbench/"+filepath.Base(f)] = string(data)
	}
	return outs
}

func compareOutputs(t *testing.T, got, want map[string]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("merge wrote %d outputs, report %d", len(got), len(want))
	}
	for name, w := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("%s: merge did not write it", name)
		} else if g != w {
			t.Errorf("%s of merge differs from audit report's:\n got %.600q\nwant %.600q", name, g, w)
		}
	}
}

// TestMergeEqualsReport is issue 8's proof: a trace split into consecutive
// parts, each replayed to tables on its own, merges into the report of the
// whole trace, byte for byte (text, JSON, CSV, markdown, AISBench's files).
func TestMergeEqualsReport(t *testing.T) {
	tmp := t.TempDir()
	for _, tc := range []struct {
		name  string
		trace string
		ends  []int
	}{
		{"basic in 2", "testdata/traces/basic.parquet", []int{4}},
		{"basic in 3", "testdata/traces/basic.jsonl", []int{3, 7}},
		{"mixed in 3", mixedTrace(t, tmp), []int{97, 211}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			want := reportOutputs(t, filepath.Join(dir, "report"), "report", tc.trace)
			partials := replayToTables(t, dir, splitTrace(t, tc.trace, dir, tc.ends...))
			got := reportOutputs(t, filepath.Join(dir, "merge"), append([]string{"merge"}, partials...)...)
			compareOutputs(t, got, want)
		})
	}
}

// TestMergeOrder: partials given in another order give the report of the
// trace whose requests come in that order (AISBench's statistics depend on
// the order in their last bits).
func TestMergeOrder(t *testing.T) {
	dir := t.TempDir()
	shards := splitTrace(t, mixedTrace(t, dir), dir, 120, 200)
	reordered := joinTraces(t, filepath.Join(dir, "reordered.parquet"), shards[2], shards[0], shards[1])
	want := reportOutputs(t, filepath.Join(dir, "report"), "report", reordered)
	partials := replayToTables(t, dir, shards)
	got := reportOutputs(t, filepath.Join(dir, "merge"), "merge", partials[2], partials[0], partials[1])
	compareOutputs(t, got, want)
}

// TestReplayTablesDeterministic: the same trace gives the same table bytes
// whatever GOMAXPROCS.
func TestReplayTablesDeterministic(t *testing.T) {
	dir := t.TempDir()
	trace := mixedTrace(t, dir)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var dirs []string
	for _, procs := range []int{1, 4} {
		runtime.GOMAXPROCS(procs)
		dirs = append(dirs, replayToTables(t, filepath.Join(dir, fmt.Sprint(procs)), []string{trace})[0])
	}
	for _, name := range []string{"requests.parquet", "events.parquet"} {
		a, _ := os.ReadFile(filepath.Join(dirs[0], name))
		b, _ := os.ReadFile(filepath.Join(dirs[1], name))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s: GOMAXPROCS 1 and 4 give different bytes (%d and %d)", name, len(a), len(b))
		}
	}
}

// TestReplayJSONLUnchanged: --format jsonl is still the default and its
// output the same.
func TestReplayJSONLUnchanged(t *testing.T) {
	def, _, code := runCLI(t, "", "replay", "testdata/traces/basic.parquet")
	jsonl, _, code2 := runCLI(t, "", "replay", "--format", "jsonl", "testdata/traces/basic.parquet")
	if code != 0 || code2 != 0 || def != jsonl || strings.Count(def, "\n") != 10 {
		t.Errorf("replay: exit %d and %d, outputs equal %v, %d lines", code, code2, def == jsonl, strings.Count(def, "\n"))
	}
}

// TestMergeChecks: partials that do not belong together are errors naming
// the partial, the row and what was expected.
func TestMergeChecks(t *testing.T) {
	dir := t.TempDir()
	shards := splitTrace(t, "testdata/traces/basic.parquet", dir, 5)
	aisbench := replayToTables(t, filepath.Join(dir, "ais"), shards)
	sse := replayToTables(t, filepath.Join(dir, "sse"), shards, "--framer", "sse")
	c3 := replayToTables(t, filepath.Join(dir, "c3"), shards, "--max-concurrency", "3")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"framers differ", []string{aisbench[0], sse[1]}, 1,
			"partial-2: replayed with the sse framer, " + aisbench[0] + " with the aisbench framer: want partials replayed alike"},
		{"C differs", []string{aisbench[0], c3[1]}, 1,
			"partial-2: sseaudit.max_concurrency is 3, in " + aisbench[0] + " it is 2: want one C for every partial (or give --max-concurrency C)"},
		{"same request twice", []string{aisbench[0], aisbench[0]}, 1,
			`partial-1/requests.parquet: row 0, request "req-00", column request_id: request_id also at ` + aisbench[0] + "/requests.parquet row 0: want each request in one partial"},
		{"not a partial", []string{aisbench[0], dir}, 1, "requests.parquet: cannot open the table"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, "", append([]string{"merge"}, tc.args...)...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q: want exit %d and %q", code, stderr, tc.code, tc.want)
			}
		})
	}
	// --max-concurrency settles a difference in C: the report of C 3.
	want, _, _ := runCLI(t, "", "report", "--max-concurrency", "3", "--format", "json", "testdata/traces/basic.parquet")
	got, stderr, code := runCLI(t, "", "merge", "--max-concurrency", "3", "--format", "json", aisbench[0], c3[1])
	if code != 0 || got != want {
		t.Errorf("merge --max-concurrency 3: exit %d (%s), report equal %v", code, stderr, got == want)
	}
	// The sse framer's partials merge into report --framer sse.
	want, _, _ = runCLI(t, "", "report", "--framer", "sse", "--format", "json", "testdata/traces/basic.parquet")
	got, stderr, code = runCLI(t, "", "merge", "--format", "json", sse[0], sse[1])
	if code != 0 || got != want {
		t.Errorf("merge of sse partials: exit %d (%s), report --framer sse equal %v", code, stderr, got == want)
	}
}

// TestMergeFixtures keeps the partials of the golden merge cases what
// audit replay writes today (-update rewrites them).
func TestMergeFixtures(t *testing.T) {
	dir := t.TempDir()
	fixtures := filepath.Join("cmd", "audit", "testdata", "cli", "merge-basic")
	shards := splitTrace(t, "testdata/traces/basic.parquet", dir, 5)
	for i, shard := range shards {
		out := filepath.Join(dir, fmt.Sprintf("part%d", i+1))
		if _, stderr, code := runCLI(t, "", "replay", "--format", "parquet", "--out-dir", out, shard); code != 0 {
			t.Fatalf("replay: exit %d\n%s", code, stderr)
		}
		for _, name := range []string{"requests.parquet", "events.parquet"} {
			got, _ := os.ReadFile(filepath.Join(out, name))
			path := filepath.Join(fixtures, filepath.Base(out), name)
			if *update {
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if want, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s is not what audit replay writes now (%v): go test ./cmd/audit -run TestMergeFixtures -update", path, err)
			}
		}
	}
}
