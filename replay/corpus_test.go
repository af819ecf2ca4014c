package replay

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/internal/shared"
	"github.com/sseaudit/sseaudit/trace"
)

// corpusWant is the class sequence of each recorded stream, written by hand
// from the files as runs "class*count", and whether AISBench's chat client
// succeeds on it.
var corpusWant = map[string]struct {
	classes string
	aisOK   bool
}{
	// <think> and DSML markup ride in content; the last chunk has
	// content null and finish_reason tool_calls.
	"dynamo-vllm-deepseek-v4-tool.json": {"content*7 finish", true},
	// role repeated on every delta; a mid-stream content null leaves a role.
	"dynamo-vllm-gpt-oss-20b-49f581c1.json": {"content*102 role content*143 finish", true},
	"dynamo-vllm-qwen3-0.6B-2bd5b0c6.json":  {"content*115 finish", true},
	// finish_reason "length" on a chunk with text is content.
	"tgi-chat-stream-usage-llama3.1-8b.json": {"content*10 usage_only", true},
	// Legacy completions: text counts as content, but the chat client's
	// item["delta"] raises KeyError.
	"tgi-completions-many-prompts-stream-tinyllama.json": {"content*40", false},
	// role with content null and reasoning_content ""; usage on the finish chunk.
	"vercel-deepseek-reasoning.json": {"role reasoning*88 content*17 finish", true},
	"vercel-deepseek-tool-call.json": {"role reasoning*17 tool_call*11 finish", true},
	// choices [] with prompt_filter_results and no usage: metadata only.
	"vercel-openai-azure-model-router.1.json": {"metadata_only role content*4 finish usage_only", true},
	"vercel-openai-openai-text.json":          {"role content*300 finish usage_only", true},
}

func expandRuns(t *testing.T, runs string) []string {
	var out []string
	for _, r := range strings.Fields(runs) {
		name, count, ok := strings.Cut(r, "*")
		n := 1
		if ok {
			var err error
			if n, err = strconv.Atoi(count); err != nil {
				t.Fatalf("bad run %q", r)
			}
		}
		for range n {
			out = append(out, name)
		}
	}
	return out
}

// corpusEvents reads the events of a corpus file, as written and compacted
// as servers send them.
func corpusEvents(t testing.TB, path string) (written []json.RawMessage, compact [][]byte) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Events []json.RawMessage `json:"events"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, e := range file.Events {
		var buf bytes.Buffer
		if err := json.Compact(&buf, e); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		compact = append(compact, buf.Bytes())
	}
	return file.Events, compact
}

// corpusRequest wraps a file's events into an SSE body, one event a read
// 10 ms apart, ending with [DONE].
func corpusRequest(t *testing.T, path string) (*trace.Request, []json.RawMessage) {
	written, compact := corpusEvents(t, path)
	status := int32(200)
	req := &trace.Request{RequestID: filepath.Base(path), T0Ns: 1_000_000_000, HTTPStatus: &status, Chunks: []trace.Chunk{}}
	tns := req.T0Ns
	for _, e := range compact {
		tns += 10_000_000
		req.Chunks = append(req.Chunks, trace.Chunk{TNs: tns, Data: []byte("data: " + string(e) + "\n\n")})
	}
	tns += 10_000_000
	req.Chunks = append(req.Chunks, trace.Chunk{TNs: tns, Data: []byte("data: [DONE]\n\n")})
	return req, written
}

func TestRealStreams(t *testing.T) {
	dir := shared.Dir(t, "corpus/real-streams")
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) == 0 {
		t.Fatalf("no *.json in %s", dir)
	}
	for _, path := range files {
		name := filepath.Base(path)
		want, ok := corpusWant[name]
		if !ok {
			t.Errorf("%s: no expected classes written for this file", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			req, events := corpusRequest(t, path)
			wantClasses := append(expandRuns(t, want.classes), "done")
			if len(wantClasses) != len(events)+1 {
				t.Fatalf("expected classes cover %d events, file has %d", len(wantClasses)-1, len(events))
			}
			// The sse framer's outcome, from the aisbench replay and from its own.
			var fromAISBench *Outcome
			var fromSSE Outcome
			for _, framer := range []Framer{AISBench, SSE} {
				res, err := Replay(req, Options{Framer: framer})
				if err != nil {
					t.Fatal(err)
				}
				if framer == AISBench {
					fromAISBench = res.SSE
				} else {
					fromSSE = res.Outcome()
				}
				if len(res.Events) != len(wantClasses) {
					t.Fatalf("%s: %d events, want %d", framer, len(res.Events), len(wantClasses))
				}
				for i, e := range res.Events {
					if e.Class.String() != wantClasses[i] {
						t.Errorf("%s: event %d is %s, want %s", framer, i, e.Class, wantClasses[i])
					}
				}
				wantOK := framer == SSE || want.aisOK
				if res.Success != wantOK {
					t.Errorf("%s: success %v (%q), want %v", framer, res.Success, res.ErrorInfo, wantOK)
				}
				if wantOK && len(res.TimePointsNs) != len(events)+1 {
					t.Errorf("%s: %d time points, want %d", framer, len(res.TimePointsNs), len(events)+1)
				}
				checkContentBytes(t, framer, res, events)
			}
			// Plain "data: " lines: the sse replay is not needed.
			if fromAISBench == nil || *fromAISBench != fromSSE {
				t.Errorf("sse outcome from the aisbench replay %+v, from the sse replay %+v", fromAISBench, fromSSE)
			}
		})
	}
}

// checkContentBytes recomputes the text and reasoning bytes of every event
// with encoding/json.
func checkContentBytes(t *testing.T, framer Framer, res *Result, events []json.RawMessage) {
	t.Helper()
	for i, raw := range events {
		var e struct {
			Choices []struct {
				Text  any `json:"text"`
				Delta struct {
					Content          any `json:"content"`
					ReasoningContent any `json:"reasoning_content"`
					Reasoning        any `json:"reasoning"`
				} `json:"delta"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatal(err)
		}
		var text, reasoning int
		for _, c := range e.Choices {
			s1, _ := c.Text.(string)
			s2, _ := c.Delta.Content.(string)
			text += len(s1) + len(s2)
			if s, _ := c.Delta.ReasoningContent.(string); s != "" {
				reasoning += len(s)
			} else if s, _ := c.Delta.Reasoning.(string); s != "" {
				reasoning += len(s)
			}
		}
		if got := res.Events[i]; got.ContentBytes != text || got.ReasoningBytes != reasoning {
			t.Errorf("%s: event %d: content/reasoning bytes %d/%d, want %d/%d", framer, i, got.ContentBytes, got.ReasoningBytes, text, reasoning)
		}
	}
}
