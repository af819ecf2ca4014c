package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lagJSON runs audit lag --format json against the fast run's wire.
func lagJSON(t *testing.T, client string) (p50 float64, findings int, stdout, stderr string, code int) {
	t.Helper()
	stdout, stderr, code = runCLI(t, "", "lag", "--format", "json", "--wire", "testdata/tap/aisbench/fast/wire.arrows", "--client", client)
	if code != 0 {
		return 0, 0, stdout, stderr, code
	}
	var out struct {
		Lag struct {
			P50 float64 `json:"p50_ns"`
		} `json:"lag"`
		Findings []any `json:"findings"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatal(err)
	}
	return out.Lag.P50, len(out.Findings), stdout, stderr, code
}

// importedFast is the fast run's work_dir as audit import --from aisbench
// writes it: its metadata line, then one line a request.
func importedFast(t *testing.T) []string {
	path := filepath.Join(t.TempDir(), "client.jsonl")
	if _, stderr, code := runCLI(t, "", "import", "--from", "aisbench", "testdata/tap/aisbench/fast/work_dir", "-o", path); code != 0 {
		t.Fatal(stderr)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// The fast run's client without its first request (one the client did not
// record, as vllm bench serve's initial test request is not in its
// result): the other 47 lag as they do in the whole run (P50 0.150 ms).
func TestLagClientOneRequestShort(t *testing.T) {
	lines := importedFast(t)
	path := filepath.Join(t.TempDir(), "short.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(append(lines[:1:1], lines[2:]...), "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p50, findings, stdout, stderr, code := lagJSON(t, path)
	if code != 0 || p50 > 0.2e6 || findings != 0 {
		t.Errorf("exit %d, lag P50 %.3f ms (whole run: 0.150), %d findings\n%s%s", code, p50/1e6, findings, stderr, stdout[:min(len(stdout), 600)])
	}
}

// A vllm bench serve result saved without start_times (vLLM before PR
// #32667; every request starts at 0): its time points are on no common
// clock, so no lag can be measured against the wire; audit lag must say
// so rather than report one.
func TestLagClientWithoutStartTimes(t *testing.T) {
	type vllmResult struct {
		Backend     string      `json:"backend"`
		InputLens   []int64     `json:"input_lens"`
		OutputLens  []int64     `json:"output_lens"`
		TTFTs       []float64   `json:"ttfts"`
		ITLs        [][]float64 `json:"itls"`
		Texts       []string    `json:"generated_texts"`
		Errors      []string    `json:"errors"`
		Completed   int         `json:"completed"`
		NumPrompts  int         `json:"num_prompts"`
		RequestRate string      `json:"request_rate"`
	}
	res := vllmResult{Backend: "vllm", RequestRate: "inf"}
	for _, line := range importedFast(t)[1:] {
		var r struct {
			TP  []float64 `json:"time_points_s"`
			In  int64     `json:"input_tokens"`
			Out int64     `json:"output_tokens"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		itl := []float64{}
		for k := 2; k < len(r.TP); k++ {
			itl = append(itl, r.TP[k]-r.TP[k-1])
		}
		res.InputLens, res.OutputLens = append(res.InputLens, r.In), append(res.OutputLens, r.Out)
		res.TTFTs, res.ITLs = append(res.TTFTs, r.TP[1]-r.TP[0]), append(res.ITLs, itl)
		res.Texts, res.Errors = append(res.Texts, "x"), append(res.Errors, "")
		res.Completed++
		res.NumPrompts++
	}
	dir := t.TempDir()
	b, _ := json.Marshal(res)
	if err := os.WriteFile(filepath.Join(dir, "result.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	client := filepath.Join(dir, "client.jsonl")
	if _, stderr, code := runCLI(t, "", "import", "--from", "vllm", filepath.Join(dir, "result.json"), "-o", client); code != 0 {
		t.Fatal(stderr)
	}
	p50, findings, _, stderr, code := lagJSON(t, client)
	if code == 0 || !strings.Contains(stderr, "start") {
		t.Errorf("exit %d: a lag of P50 %.3f ms and %d findings from a client whose requests all start at 0 (stderr %q)", code, p50/1e6, findings, stderr)
	}
}
