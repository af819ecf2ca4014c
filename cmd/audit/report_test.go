package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// bundledTraces are the bundled traces: one run in every format and layout.
var bundledTraces = []string{
	"basic.jsonl", "basic.parquet", "basic.arrow", "basic.arrows", "basic-flat.parquet", "basic-flat.arrow",
}

// TestReportMatchesAISBench: for every bundled trace and the replay
// package's framing cases, --aisbench-out writes byte for byte what
// AISBench's own code wrote for the same bytes (testdata/oracle, made by
// replay_oracle.py).
func TestReportMatchesAISBench(t *testing.T) {
	type tc struct{ trace, oracle string }
	var cases []tc
	for _, name := range bundledTraces {
		cases = append(cases, tc{filepath.Join("testdata", "traces", name), filepath.Join("testdata", "oracle", "traces", "basic.")})
	}
	for _, name := range []string{"cases", "random_mix"} {
		cases = append(cases, tc{filepath.Join("replay", "testdata", name+".jsonl"), filepath.Join("testdata", "oracle", "replay", name+".")})
	}
	findings, _ := filepath.Glob(filepath.Join("testdata", "traces", "findings", "*.jsonl"))
	for _, f := range findings {
		name := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		if name == "unknown_tokens" {
			continue // AISBench would count tokens with its tokenizer: sseaudit refuses to guess (TestAISBenchOutUnknownTokens)
		}
		cases = append(cases, tc{f, filepath.Join("testdata", "oracle", "findings", name+".")})
	}
	if len(findings) < 10 {
		t.Fatalf("found %d findings traces", len(findings))
	}
	for _, c := range cases {
		t.Run(c.trace, func(t *testing.T) {
			dir := t.TempDir()
			_, stderr, code := runCLI(t, "", "report", "--aisbench-out", dir, c.trace)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			// Every file AISBench wrote (or the .error where it raised) is
			// there with the same bytes, and nothing else.
			for _, f := range []string{"total.csv", "total.json", "total.error", "stable.csv", "stable.json", "stable.error"} {
				want, werr := os.ReadFile(c.oracle + f)
				got, gerr := os.ReadFile(filepath.Join(dir, f))
				switch {
				case werr != nil && gerr != nil:
				case werr != nil:
					t.Errorf("%s written, AISBench wrote none", f)
				case gerr != nil:
					t.Errorf("%s missing: %v", f, gerr)
				case !bytes.Equal(got, want):
					t.Errorf("%s differs from AISBench's:\n%s\nwant\n%s", f, got, want)
				}
			}
		})
	}
}

// TestReplayMatchesAISBenchClient: the time points and token counts of
// `audit replay` equal what AISBench's client recorded, bit for bit.
func TestReplayMatchesAISBenchClient(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "oracle", "traces", "basic.timepoints.json"))
	if err != nil {
		t.Fatal(err)
	}
	var oracle struct {
		Requests []struct {
			RequestID    string    `json:"request_id"`
			TimePoints   []float64 `json:"time_points"`
			Success      bool      `json:"success"`
			OutputTokens int64     `json:"output_tokens"`
			InputTokens  int64     `json:"input_tokens"`
		} `json:"requests"`
	}
	if err := json.Unmarshal(raw, &oracle); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runCLI(t, "", "replay", filepath.Join("testdata", "traces", "basic.parquet"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(nil, 1<<20)
	i := 0
	for ; sc.Scan(); i++ {
		var got replayLine
		if err := json.Unmarshal(sc.Bytes(), &got); err != nil {
			t.Fatal(err)
		}
		want := oracle.Requests[i]
		if got.RequestID != want.RequestID || got.Success != want.Success {
			t.Errorf("line %d: %s success %v, AISBench %s %v", i, got.RequestID, got.Success, want.RequestID, want.Success)
		}
		if !want.Success {
			continue // AISBench keeps no time points of a failed request in its results
		}
		if len(got.TimePointsS) != len(want.TimePoints) {
			t.Errorf("%s: %d time points, AISBench %d", got.RequestID, len(got.TimePointsS), len(want.TimePoints))
			continue
		}
		for k := range got.TimePointsS {
			if math.Float64bits(got.TimePointsS[k]) != math.Float64bits(want.TimePoints[k]) {
				t.Errorf("%s: time point %d = %v, AISBench %v", got.RequestID, k, got.TimePointsS[k], want.TimePoints[k])
			}
		}
		if *got.OutputTokens != want.OutputTokens || *got.InputTokens != want.InputTokens {
			t.Errorf("%s: tokens %d/%d, AISBench %d/%d", got.RequestID, *got.InputTokens, *got.OutputTokens, want.InputTokens, want.OutputTokens)
		}
	}
	if i != len(oracle.Requests) {
		t.Errorf("%d lines, AISBench %d requests", i, len(oracle.Requests))
	}
}

// TestAISBenchOutStageError: a run with no stable stage writes stable.error
// with AISBench's message, warns, removes stale files and exits 0.
func TestAISBenchOutStageError(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "stable.csv"), []byte("stale"), 0o644)
	in := `{"run": {"max_concurrency": 4}}
{"request_id": "a", "t0_ns": 1000000000, "http_status": 200, "chunks": [{"t_ns": 1100000000, "data": "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2}}\n\n"}, {"t_ns": 1200000000, "data": "data: {\"choices\":[{\"delta\":{\"content\":\"y\"}}]}\n\ndata: [DONE]\n\n"}]}
`
	_, stderr, code := runCLI(t, in, "report", "--aisbench-out", dir, "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "warning: stable stage: ") || !strings.Contains(stderr, "stable.error") {
		t.Errorf("stderr = %q, want a warning naming stable.error", stderr)
	}
	msg, err := os.ReadFile(filepath.Join(dir, "stable.error"))
	if err != nil || !strings.Contains(string(msg), "Can not find a stable stage") {
		t.Errorf("stable.error = %q, %v", msg, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "stable.csv")); !os.IsNotExist(err) {
		t.Errorf("a stale stable.csv survived")
	}
	if _, err := os.Stat(filepath.Join(dir, "total.csv")); err != nil {
		t.Errorf("total.csv: %v", err)
	}
}

// -o writes the output to a file, stdout stays empty; every format lands
// there.
func TestReportOutputFile(t *testing.T) {
	dir := t.TempDir()
	for _, format := range []string{"text", "json", "csv", "markdown", "html"} {
		path := filepath.Join(dir, "report."+format)
		stdout, stderr, code := runCLI(t, "", "report", "--format", format, "-o", path, "testdata/traces/basic.jsonl")
		if code != 0 || stdout != "" || stderr != "" {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q", format, code, stdout, stderr)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want, _, _ := runCLI(t, "", "report", "--format", format, "testdata/traces/basic.jsonl")
		if string(got) != want {
			t.Errorf("%s: the file differs from stdout's output", format)
		}
	}
}

// Colour: never into a pipe or a file (auto), always with --color always,
// and NO_COLOR is honoured.
func TestReportColor(t *testing.T) {
	plain, _, _ := runCLI(t, "", "report", "testdata/traces/basic.jsonl")
	if strings.Contains(plain, "\x1b[") {
		t.Error("colour written to a buffer")
	}
	color, _, code := runCLI(t, "", "report", "--color", "always", "testdata/traces/basic.jsonl")
	if code != 0 || !strings.Contains(color, "\x1b[1;33mwarning") {
		t.Errorf("--color always: exit %d, no coloured warning", code)
	}
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	if isTerminal(devNull) {
		t.Errorf("%s taken for a terminal", os.DevNull)
	}
	t.Setenv("NO_COLOR", "1")
	if wantColor(os.Stdout) {
		t.Error("NO_COLOR set, colour still wanted")
	}
}

// The progress display: nothing for a short run, a line after a second,
// cleared at the end; nothing at all when stderr is not a terminal.
func TestProgress(t *testing.T) {
	if p := newReplayProgress(&bytes.Buffer{}); p != nil {
		t.Error("a progress display for a buffer")
	}
	var nilp *replayProgress
	nilp.tick()
	nilp.setPhase("x")
	nilp.done()

	now := time.Unix(0, 0)
	var buf bytes.Buffer
	p := newReplayProgressTo(&buf, "always", func() time.Time { return now })
	for range 10 {
		now = now.Add(50 * time.Millisecond)
		p.tick()
	}
	if buf.Len() != 0 {
		t.Fatalf("drawn within the first second: %q", buf.String())
	}
	now = now.Add(700 * time.Millisecond)
	p.tick()
	if !strings.Contains(buf.String(), "replaying: 11 requests") {
		t.Fatalf("after 1.2 s: %q", buf.String())
	}
	n := buf.Len()
	now = now.Add(10 * time.Millisecond)
	p.tick()
	if buf.Len() != n {
		t.Error("redrawn within 100 ms")
	}
	p.setPhase("finalizing")
	if !strings.Contains(buf.String(), "finalizing: 12 requests") {
		t.Errorf("phase not drawn: %q", buf.String())
	}
	p.done()
	if !strings.HasSuffix(buf.String(), "\r\x1b[K") {
		t.Errorf("not cleared: %q", buf.String())
	}
}

// TestAISBenchOutUnknownTokens: a trace whose bodies carry no usage and
// which has no token columns gets .error files saying why, never guessed
// counts; with neither stage computable the command fails.
func TestAISBenchOutUnknownTokens(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := runCLI(t, "", "report", "--aisbench-out", dir, filepath.Join("testdata", "traces", "findings", "unknown_tokens.jsonl"))
	if code != 1 || !strings.Contains(stderr, "AISBench would have computed neither stage") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	for _, st := range []string{"total", "stable"} {
		msg, err := os.ReadFile(filepath.Join(dir, st+".error"))
		if err != nil || !strings.Contains(string(msg), "output token counts unknown for") {
			t.Errorf("%s.error = %q, %v", st, msg, err)
		}
		if _, err := os.Stat(filepath.Join(dir, st+".csv")); !os.IsNotExist(err) {
			t.Errorf("%s.csv written with unknown token counts", st)
		}
	}
}
