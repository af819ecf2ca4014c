package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The determinism test: the same input gives the same output bytes across
// runs and GOMAXPROCS values. Each run is a child process (the test binary
// again) with its own GOMAXPROCS, running every command line below and
// leaving each command's stdout, exit code and written files in a directory
// of its own; the directories must be identical.

const determinismEnv = "SSEAUDIT_DETERMINISM_OUT"

// determinismTraces are the bundled traces the commands run on: every
// format, both layouts, files written by other tools, and the findings
// traces (odd framings, failures, usage tails).
func determinismTraces(t *testing.T) []string {
	t.Helper()
	traces := []string{
		"testdata/traces/basic.parquet", "testdata/traces/basic.arrow", "testdata/traces/basic.arrows",
		"testdata/traces/basic.jsonl", "testdata/traces/basic-flat.parquet", "testdata/traces/basic-flat.arrow",
		"testdata/traces/external/duckdb-nested.parquet", "testdata/traces/external/duckdb-flat.parquet",
		"testdata/traces/external/arrowjs-nested.arrow",
	}
	findings, err := filepath.Glob("testdata/traces/findings/*.jsonl")
	if err != nil || len(findings) == 0 {
		t.Fatalf("no findings traces: %v", err)
	}
	return append(traces, findings...)
}

// determinismCommands are the command lines; {out} is the run's output
// directory, {n} the command's number.
func determinismCommands(t *testing.T) [][]string {
	var cmds [][]string
	for _, tr := range determinismTraces(t) {
		cmds = append(cmds,
			[]string{"report", "--format", "json", tr},
			[]string{"report", tr},
			[]string{"replay", tr},
			[]string{"replay", "--framer", "sse", tr},
			[]string{"events", "--per-request", tr},
			[]string{"events", "--per-request", "--format", "json", "--framer", "sse", tr},
			[]string{"inspect", "--format", "json", tr},
		)
	}
	for _, tr := range []string{"testdata/traces/basic.jsonl", "testdata/traces/basic-flat.arrow", "testdata/traces/external/duckdb-nested.parquet"} {
		for _, ext := range []string{"parquet", "arrow", "arrows", "jsonl"} {
			cmds = append(cmds, []string{"convert", tr, "-o", "{out}/{n}." + ext})
			if ext != "jsonl" {
				cmds = append(cmds, []string{"convert", tr, "--layout", "flat", "--row-group-requests", "2", "-o", "{out}/{n}-flat." + ext})
			}
		}
	}
	return cmds
}

// TestDeterminismChild runs every command line, writing into the directory
// its environment names.
func TestDeterminismChild(t *testing.T) {
	out := os.Getenv(determinismEnv)
	if out == "" {
		t.Skip("the child process of TestDeterminism")
	}
	for i, args := range determinismCommands(t) {
		n := strconv.Itoa(i)
		for j := range args {
			args[j] = strings.NewReplacer("{out}", out, "{n}", n).Replace(args[j])
		}
		var stdout, stderr bytes.Buffer
		code := runEnv(env{stdout: &stdout, stderr: &stderr, stdin: strings.NewReader("")}, append([]string{"audit"}, args...))
		record := fmt.Sprintf("%s\nexit %d\n%s", strings.Join(args, " "), code, stdout.Bytes())
		if err := os.WriteFile(filepath.Join(out, n+".out"), []byte(record), 0o644); err != nil {
			t.Fatal(err)
		}
		if code != 0 {
			t.Errorf("audit %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
		}
	}
}

func TestDeterminism(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the commands in three processes")
	}
	root := t.TempDir()
	runs := []string{"1", "2", "2"} // GOMAXPROCS of each run; 2 twice, for run-to-run changes
	var dirs []string
	for i, procs := range runs {
		dir := filepath.Join(root, fmt.Sprintf("run%d", i))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestDeterminismChild$")
		cmd.Dir = filepath.Join("cmd", "audit") // TestMain moves to the repository's root
		cmd.Env = append(os.Environ(), determinismEnv+"="+dir, "GOMAXPROCS="+procs)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("run %d (GOMAXPROCS=%s): %v\n%s", i, procs, err, out)
		}
		dirs = append(dirs, dir)
	}
	// Outputs hold the run's directory where a command names its output
	// file: compare them with the directory replaced.
	read := func(dir string) map[string][]byte {
		files := map[string][]byte{}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			files[e.Name()] = bytes.ReplaceAll(b, []byte(dir), []byte("{out}"))
		}
		return files
	}
	first := read(dirs[0])
	if n := len(determinismCommands(t)); len(first) < n {
		t.Fatalf("run 0 left %d files for %d commands", len(first), n)
	}
	for i := 1; i < len(dirs); i++ {
		got := read(dirs[i])
		var names []string
		for name := range first {
			names = append(names, name)
		}
		sort.Strings(names)
		if len(got) != len(first) {
			t.Errorf("run %d (GOMAXPROCS=%s) left %d files, run 0 (GOMAXPROCS=%s) %d", i, runs[i], len(got), runs[0], len(first))
		}
		for _, name := range names {
			if !bytes.Equal(got[name], first[name]) {
				t.Errorf("%s differs between run 0 (GOMAXPROCS=%s) and run %d (GOMAXPROCS=%s):\n%s", name, runs[0], i, runs[i], firstDiff(first[name], got[name]))
			}
		}
	}
	// The records must hold real output, not empty files that agree.
	var nonEmpty int
	for name, b := range first {
		if strings.HasSuffix(name, ".out") && bytes.Count(b, []byte("\n")) > 2 {
			nonEmpty++
		}
	}
	if nonEmpty < len(determinismTraces(t))*6 {
		t.Errorf("only %d command outputs hold more than their header", nonEmpty)
	}
	t.Logf("%d files, %d command outputs with content, identical in %d runs", len(first), nonEmpty, len(dirs))
}

// firstDiff shows where two outputs part.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(i-80, 0)
	clipTo := func(s []byte) string {
		return strconv.Quote(string(s[lo:min(i+80, len(s))]))
	}
	return fmt.Sprintf("at byte %d:\n  %s\n  %s", i, clipTo(a), clipTo(b))
}
