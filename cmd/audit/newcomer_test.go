package main

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// Issue 20, the newcomer's path: each item through the CLI (exit code,
// stderr, the file written).

// Item 1: the README's build command writes the binary where no package
// lives (go build -o audit put it inside the audit/ package folder).
func TestIssue20ReadmeBuildsOutsidePackages(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	builds := regexp.MustCompile(`go build -o (\S+) \./cmd/audit`).FindAllStringSubmatch(string(readme), -1)
	if len(builds) == 0 {
		t.Fatal("README gives no go build -o command")
	}
	for _, m := range builds {
		out := m[1]
		if st, err := os.Stat(out); err == nil && st.IsDir() {
			t.Errorf("README: go build -o %s names a folder: the binary would land inside it", out)
		}
		if goFiles, _ := filepath.Glob(filepath.Join(filepath.Dir(out), "*.go")); len(goFiles) > 0 {
			t.Errorf("README: go build -o %s writes into a package folder (%s)", out, filepath.Dir(out))
		}
	}
	// Item 2: the first build's cost is said, with the ways around it.
	for _, want := range []string{"go install", "scripts/build-release.sh", "first build"} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README does not mention %q", want)
		}
	}
}

// Item 3: one rule for every command's output: -o FILE, the format from
// its extension unless --format says otherwise; an extension naming no
// format of the command is a usage error naming --format.
func TestIssue20OutputRule(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join("testdata", "traces", "basic.parquet")
	for _, c := range []struct {
		args  []string
		file  string
		start string // what the file written starts with
	}{
		{[]string{"report", "-o", "r.html", trace}, "r.html", "<!DOCTYPE html>"},
		{[]string{"report", "-o", "r.json", trace}, "r.json", "{"},
		{[]string{"report", "-o", "r.md", trace}, "r.md", "**Requests:**"},
		{[]string{"report", "-o", "r.csv", trace}, "r.csv", "metric,source,stage"},
		{[]string{"report", "--format", "json", "-o", "r.txt", trace}, "r.txt", "{"},
		{[]string{"itl", "-o", "i.json", trace}, "i.json", "{"},
		{[]string{"whatif", "-o", "w.json", trace}, "w.json", "{"},
		{[]string{"events", "-o", "e.txt", trace}, "e.txt", "framer aisbench"},
		{[]string{"inspect", "-o", "n.json", trace}, "n.json", "{"},
		{[]string{"replay", "-o", "p.jsonl", trace}, "p.jsonl", `{"request_id"`},
		{[]string{"tools", "-o", "t.md", trace}, "t.md", "### "},
		{[]string{"diff", "-o", "d.json", trace, trace}, "d.json", "{"},
		{[]string{"gen", "--requests", "2", "-o", "g.arrows", "--trace-format", "jsonl"}, "g.arrows", `{"run"`},
		{[]string{"convert", "--trace-format", "jsonl", "-o", "c.bin", trace}, "c.bin", `{"run"`},
	} {
		for i, a := range c.args {
			if i > 0 && c.args[i-1] == "-o" {
				c.args[i] = filepath.Join(dir, a)
			}
		}
		stdout, stderr, code := runCLI(t, "", c.args...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", c.args, code, stderr)
			continue
		}
		if c.args[0] != "gen" && c.args[0] != "convert" && stdout != "" {
			t.Errorf("%v: wrote to stdout too: %.80q", c.args, stdout)
		}
		b, err := os.ReadFile(filepath.Join(dir, c.file))
		if err != nil || !strings.HasPrefix(string(b), c.start) {
			t.Errorf("%v: %s starts %.40q (%v), want %q", c.args, c.file, b, err, c.start)
		}
	}
	_, stderr, code := runCLI(t, "", "itl", "-o", filepath.Join(dir, "x.xml"), trace)
	if code != 2 || !strings.Contains(stderr, "--format") || !strings.Contains(stderr, ".xml") {
		t.Errorf("-o x.xml: exit %d, stderr %q; want a usage error naming .xml and --format", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.xml")); err == nil {
		t.Error("a refused -o left a file")
	}
}

// Item 4: report without C shows the whole stage and says on stderr what the
// native stage needs (exit 0); pointed at another tool's or command's files,
// it names the command that reads them.
func TestIssue20ReportWithoutC(t *testing.T) {
	noC := filepath.Join(t.TempDir(), "noc.jsonl")
	lines, err := os.ReadFile(filepath.Join("testdata", "traces", "basic.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(lines), "\n") // without the run line: no C
	if err := os.WriteFile(noC, []byte(rest), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runCLI(t, "", "report", noC)
	if code != 0 || !strings.Contains(stdout, "whole (total)") || !strings.Contains(stdout, "E2EL") ||
		!strings.Contains(stderr, "needs --max-concurrency") {
		t.Errorf("exit %d, stderr %q, stdout:\n%s", code, stderr, stdout)
	}
	tables := filepath.Join(t.TempDir(), "tables")
	if _, stderr, code := runCLI(t, "", "replay", "--format", "parquet", "-o", tables, filepath.Join("testdata", "traces", "basic.parquet")); code != 0 {
		t.Fatal(stderr)
	}
	for _, c := range []struct{ path, want string }{
		{filepath.Join("testdata", "aisbench", "basic"), "audit import --from aisbench"},
		{filepath.Join("testdata", "aisbench", "basic", "performances", "model", "ds_details.jsonl"), "audit import --from aisbench"},
		{tables, "audit merge " + tables},
	} {
		_, stderr, code := runCLI(t, "", "report", c.path)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("report %s: exit %d, stderr %q; want %q", c.path, code, stderr, c.want)
		}
	}
}

// Item 5: a statistic no one computes is a usage error naming the
// spellings; one AISBench's table lacks but sseaudit computes is kept.
func TestIssue20Stats(t *testing.T) {
	trace := filepath.Join("testdata", "traces", "basic.parquet")
	for _, cmd := range []string{"report", "itl"} {
		_, stderr, code := runCLI(t, "", cmd, "--stats", "Average,p99", trace)
		if code != 2 || !strings.Contains(stderr, `"p99"`) || !strings.Contains(stderr, "P99.9") {
			t.Errorf("%s --stats p99: exit %d, stderr %q", cmd, code, stderr)
		}
	}
	stdout, _, code := runCLI(t, "", "report", "--stats", "Average,P99.9", trace)
	if code != 0 || !strings.Contains(stdout, "P99.9*") {
		t.Errorf("--stats P99.9: exit %d", code)
	}
}

// Item 6: the text report fits 120 columns by default on every findings
// trace; --stage shows one stage; --summary is one screen.
func TestIssue20FitsAndSummary(t *testing.T) {
	traces, _ := filepath.Glob(filepath.Join("testdata", "traces", "findings", "*.jsonl"))
	traces = append(traces, filepath.Join("testdata", "traces", "basic.parquet"))
	for _, tr := range traces {
		stdout, stderr, code := runCLI(t, "", "report", "--min-window", "1s", tr)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tr, code, stderr)
		}
		sc := bufio.NewScanner(strings.NewReader(stdout))
		for n := 1; sc.Scan(); n++ {
			if w := utf8.RuneCountInString(sc.Text()); w > 120 {
				t.Errorf("%s line %d is %d columns: %q", tr, n, w, sc.Text())
			}
		}
		summary, _, code := runCLI(t, "", "report", "--summary", tr)
		if lines := strings.Count(summary, "\n"); code != 0 || lines > 40 || !strings.Contains(summary, "Mean TTFT") {
			t.Errorf("%s --summary: exit %d, %d lines", tr, code, lines)
		}
	}
	stdout, _, _ := runCLI(t, "", "report", "--stage", "native", filepath.Join("testdata", "traces", "basic.parquet"))
	if strings.Contains(stdout, "whole (total)") || !strings.Contains(stdout, "native (stable)") {
		t.Errorf("--stage native shows the whole stage:\n%s", stdout)
	}
	if _, stderr, code := runCLI(t, "", "report", "--summary", "--format", "json", filepath.Join("testdata", "traces", "basic.parquet")); code != 2 {
		t.Errorf("--summary --format json: exit %d, %s", code, stderr)
	}
}

// Item 9: the CSV holds the common metrics of each stage.
func TestIssue20CSVCommonMetrics(t *testing.T) {
	stdout, _, code := runCLI(t, "", "report", "--format", "csv", filepath.Join("testdata", "traces", "basic.parquet"))
	for _, want := range []string{"Benchmark Duration,aisbench,total,ms,,,2012,", "Concurrency,aisbench,stable,", "Request Throughput,aisbench,total,req/s,", "Output Token Throughput,aisbench,stable,token/s,"} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("CSV lacks %q", want)
		}
	}
}

// Item 13: no file of the repository names a path of one machine; what lies
// outside it is found relative to it (../shared beside the checkout).
func TestIssue20NoMachinePaths(t *testing.T) {
	root := "." // TestMain runs the tests from the repository's root
	machine := regexp.MustCompile(`(^|[\s"'=(:])/(work|root|home/[a-z][\w-]*)/`)
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" { // a worktree's .git is a file naming its main checkout
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if path != root && d.Name() == "bin" {
				return filepath.SkipDir
			}
			return nil
		}
		if info, err := d.Info(); err != nil || !info.Mode().IsRegular() || info.Size() > 4<<20 || strings.HasSuffix(path, ".got") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil || !utf8.Valid(b) {
			return err
		}
		for n, line := range strings.Split(string(b), "\n") {
			if machine.MatchString(line) {
				t.Errorf("%s:%d names a machine's path: %.120s", path, n+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Item 11: split, replay the parts apart, merge: the report of the whole
// trace, byte for byte; a folder holding another split's parts is refused.
func TestIssue20SplitReplayMerge(t *testing.T) {
	for _, c := range []struct {
		trace string
		split []string
	}{
		{filepath.Join("testdata", "traces", "basic.parquet"), []string{"--parts", "4"}},
		{filepath.Join("testdata", "traces", "basic.parquet"), []string{"--parts", "1"}},
		{filepath.Join("testdata", "traces", "basic.jsonl"), []string{"--requests", "3", "--trace-format", "arrows"}},
		{filepath.Join("testdata", "traces", "findings", "failure_quirk.jsonl"), []string{"--parts", "3", "--trace-format", "parquet", "--layout", "flat"}},
	} {
		dir := t.TempDir()
		stdout, stderr, code := runCLI(t, "", append(append([]string{"split"}, c.split...), "-o", dir, c.trace)...)
		if code != 0 {
			t.Fatalf("split %v %s: exit %d: %s", c.split, c.trace, code, stderr)
		}
		parts := strings.Fields(stdout)
		if len(parts) == 0 {
			t.Fatalf("split %v: no parts named", c.split)
		}
		merge := []string{"merge"}
		for i, p := range parts {
			tables := filepath.Join(dir, "tables", filepath.Base(p))
			if _, stderr, code := runCLI(t, "", "replay", "--format", "parquet", "-o", tables, p); code != 0 {
				t.Fatalf("replay part %d: %s", i, stderr)
			}
			merge = append(merge, tables)
		}
		for _, format := range []string{"text", "json"} {
			merged, stderr, code := runCLI(t, "", append([]string{merge[0], "--format", format}, merge[1:]...)...)
			whole, _, _ := runCLI(t, "", "report", "--format", format, c.trace)
			if code != 0 || merged != whole {
				t.Errorf("split %v %s: merge --format %s (exit %d, %s) differs from report of the whole trace", c.split, c.trace, format, code, stderr)
			}
		}
	}
	dir := t.TempDir()
	trace := filepath.Join("testdata", "traces", "basic.parquet")
	if _, stderr, code := runCLI(t, "", "split", "--parts", "2", "-o", dir, trace); code != 0 {
		t.Fatal(stderr)
	}
	_, stderr, code := runCLI(t, "", "split", "--parts", "3", "-o", dir, trace)
	if code != 1 || !strings.Contains(stderr, "part-0001-of-0002.parquet") || !strings.Contains(stderr, "twice") {
		t.Errorf("a second split into the same folder: exit %d, %s", code, stderr)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*")); len(files) != 2 {
		t.Errorf("the refused split left %v", files)
	}
	if _, stderr, code := runCLI(t, "", "split", "--parts", "2", "-o", dir, trace); code != 0 {
		t.Errorf("the same split again: exit %d, %s", code, stderr)
	}
	_, stderr, code = runCLI(t, "", "split", "--parts", "11", "-o", t.TempDir(), trace)
	if code != 1 || !strings.Contains(stderr, "holds 10 requests") {
		t.Errorf("--parts 11 of 10 requests: exit %d, %s", code, stderr)
	}
}

// Item 8: errors that point to the fix: a capture cut inside a record batch
// names capture --salvage; a trace format the extension does not tell names
// --in-format.
func TestIssue20ErrorHints(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full.arrows")
	if _, stderr, code := runCLI(t, "", "gen", "--requests", "20", "--seed", "1", "-o", full); code != 0 {
		t.Fatal(stderr)
	}
	b, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.arrows")
	if err := os.WriteFile(cut, b[:len(b)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"report", "inspect", "events"} {
		_, stderr, code := runCLI(t, "", cmd, cut)
		if code != 1 || !strings.Contains(stderr, "audit capture --salvage "+cut) {
			t.Errorf("%s of a cut stream: exit %d, stderr %q; want the salvage command", cmd, code, stderr)
		}
	}
	// Cut inside the schema: nothing to salvage, no such hint.
	if err := os.WriteFile(cut, b[:20], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runCLI(t, "", "report", cut); code != 1 || strings.Contains(stderr, "--salvage") {
		t.Errorf("a stream cut inside its schema: exit %d, stderr %q", code, stderr)
	}
	noExt := filepath.Join(dir, "trace.data")
	if err := os.WriteFile(noExt, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCLI(t, "", "report", noExt)
	if code != 2 || !strings.Contains(stderr, "--in-format") {
		t.Errorf("report of trace.data: exit %d, stderr %q; want a usage error naming --in-format", code, stderr)
	}
	if _, stderr, code := runCLI(t, "", "report", "--in-format", "arrows", noExt); code != 0 {
		t.Errorf("--in-format arrows: exit %d, %s", code, stderr)
	}
}

// Item 10: serve of a trace holding time points only (imported from
// AISBench) is refused with the reason, before it listens.
func TestIssue20ServeTimePointsOnly(t *testing.T) {
	imported := filepath.Join(t.TempDir(), "imported.jsonl")
	if _, stderr, code := runCLI(t, "", "import", "--from", "aisbench", filepath.Join("testdata", "aisbench", "basic"), "-o", imported); code != 0 {
		t.Fatal(stderr)
	}
	_, stderr, code := runCLI(t, "", "serve", "--listen", "127.0.0.1:0", imported)
	if code != 1 || !strings.Contains(stderr, "time points only") || !strings.Contains(stderr, "nothing to serve") {
		t.Errorf("serve of an imported trace: exit %d, stderr %q", code, stderr)
	}
}

// Issue 19: a trace without send times (a vLLM result saved before
// start_times) has its timeline figures refused or marked, never printed
// as the run's.
func TestNoSendTimesRefused(t *testing.T) {
	dir := t.TempDir()
	imported := filepath.Join(dir, "nst.jsonl")
	if _, stderr, code := runCLI(t, "", "import", "--from", "vllm", filepath.Join("testdata", "import", "vllm", "no-start-times.json"), "-o", imported); code != 0 {
		t.Fatal(stderr)
	}
	out := filepath.Join(dir, "ais")
	stdout, stderr, code := runCLI(t, "", "report", "--aisbench-out", out, imported)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"no-timeline", "native (stable): the trace has no send times", "not the run's"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if !strings.Contains(stderr, "total.json not written") {
		t.Errorf("stderr %q", stderr)
	}
	for name, want := range map[string]bool{"total.csv": true, "total.json": false, "stable.error": true} {
		if _, err := os.Stat(filepath.Join(out, name)); (err == nil) != want {
			t.Errorf("%s written: %v, want %v", name, err == nil, want)
		}
	}
	// diff and whatif refuse the stable stage too, saying why; tools,
	// which replay bytes, refuse time points.
	if stdout, stderr, code := runCLI(t, "", "diff", imported, imported); code != 0 || !strings.Contains(stdout, "has no native (stable) stage: the trace has no send times") {
		t.Errorf("diff: exit %d: %s%s", code, stdout, stderr)
	}
	if _, stderr, code := runCLI(t, "", "tools", imported); code != 1 || !strings.Contains(stderr, "holds time points, not the bytes") {
		t.Errorf("tools: exit %d: %s", code, stderr)
	}
	// The same requests with send times: no such finding.
	withTimes := filepath.Join(dir, "with.jsonl")
	if _, stderr, code := runCLI(t, "", "import", "--from", "vllm", filepath.Join("testdata", "import", "vllm", "result.json"), "-o", withTimes); code != 0 {
		t.Fatal(stderr)
	}
	if stdout, _, _ := runCLI(t, "", "report", withTimes); strings.Contains(stdout, "no-timeline") {
		t.Error("a trace with send times has the no-timeline finding")
	}
}
