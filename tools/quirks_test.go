package tools

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/internal/tooltest"
	"github.com/sseaudit/sseaudit/trace"
	_ "github.com/sseaudit/sseaudit/trace/parquetfile"
)

const root = ".."

// runTrace is audit tools on a trace file, with why they differ.
func runTrace(t *testing.T, path string) *Report {
	t.Helper()
	rep, err := Run(func() (trace.Reader, error) { return trace.Open(path, trace.OpenOptions{}) }, Options{Why: true})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func quirk(name string) string {
	return filepath.Join(root, "testdata", "tools", "quirks", name+".jsonl")
}

// value is a tool's value of a quantity, failing the test when unknown.
func value(t *testing.T, rep *Report, tool string, q Quantity) float64 {
	t.Helper()
	for _, tr := range rep.Tools {
		if tr.Tool.Name == tool {
			v := tr.Summary[q]
			if !v.Known {
				t.Fatalf("%s %s: unknown (%s)", tool, q.Label(), v.Why)
			}
			return v.X
		}
	}
	t.Fatalf("no %s in the report", tool)
	return 0
}

// why finds the attribution of a tool's rule.
func why(rep *Report, tool, rule string) (Attribution, bool) {
	for _, a := range rep.Why {
		if a.Tool.Name == tool && a.Rule.Name == rule {
			return a, true
		}
	}
	return Attribution{}, false
}

// TestIssue16SGLangTimesFirstText: SGLang's client times the first token
// that has text, so its TTFT is 1 ms later than vLLM's and AISBench's,
// which time the role-only first chunk (quirks/first_token: the first text
// 1 ms after the role); the rule that makes it is SGLang's every_message.
func TestIssue16SGLangTimesFirstText(t *testing.T) {
	rep := runTrace(t, quirk("first_token"))
	ais, v, s := value(t, rep, "aisbench", TTFTMean), value(t, rep, "vllm", TTFTMean), value(t, rep, "sglang", TTFTMean)
	if ais != v {
		t.Errorf("TTFT mean: AISBench %v, vLLM %v: want equal", ais, v)
	}
	if d := s - v; math.Abs(d-0.001) > 1e-12 {
		t.Errorf("TTFT mean: SGLang %v, vLLM %v: want SGLang 1 ms later", s, v)
	}
	a, ok := why(rep, "sglang", "every_message")
	if !ok || !moves(a, TTFTMean) {
		t.Errorf("SGLang's TTFT not attributed to every_message: %+v", rep.Why)
	}
}

// TestIssue16ITLTails: for ITL, AISBench keeps the finish → usage gap, vLLM
// drops it, and SGLang also drops the role-only → first text and the empty
// finish: 6, 5 and 3 intervals a request; vLLM's -1 a request attributed
// to its every_message rule.
func TestIssue16ITLTails(t *testing.T) {
	rep := runTrace(t, quirk("first_token"))
	for tool, want := range map[string]float64{"aisbench": 18, "vllm": 15, "sglang": 9} {
		if got := value(t, rep, tool, ITLSamples); got != want {
			t.Errorf("%s: %v ITL samples, want %v", tool, got, want)
		}
	}
	a, ok := why(rep, "vllm", "every_message")
	if !ok || a.PerRequest[ITLSamples] != -1 {
		t.Errorf("vLLM's every_message: %+v, want ITL samples -1 a request", a)
	}
	if a, ok := why(rep, "sglang", "every_message"); !ok || a.PerRequest[ITLSamples] != -3 {
		t.Errorf("SGLang's every_message: %+v, want ITL samples -3 a request", a)
	}
}

// TestIssue16SpeculativeITL: on speculative decoding (tracegen's profile)
// the three tools' mean ITLs differ, each difference attributed to a rule,
// and each tool with every rule switched equals AISBench.
func TestIssue16SpeculativeITL(t *testing.T) {
	c := tooltest.Case{Name: "gen-speculative-chat", Gen: tooltest.GenOptions("speculative", "chat")}
	r := c.Open(t, t.TempDir())
	path := r.Info().Path
	r.Close()
	rep := runTrace(t, path)
	ais, v, s := value(t, rep, "aisbench", ITLMean), value(t, rep, "vllm", ITLMean), value(t, rep, "sglang", ITLMean)
	if ais == v || v == s || ais == s {
		t.Errorf("ITL mean AISBench %v, vLLM %v, SGLang %v: want three values", ais, v, s)
	}
	for _, tool := range []string{"vllm", "sglang"} {
		if a, ok := why(rep, tool, "every_message"); !ok || !moves(a, ITLMean) {
			t.Errorf("%s's ITL mean not attributed to every_message", tool)
		}
	}
	for _, res := range rep.Residual {
		if len(res.Deltas) != 0 {
			t.Errorf("%s with every rule switched: %+v, want AISBench's figures", res.Tool.Title, res.Deltas)
		}
	}
}

// TestIssue16SGLangFailsKeepAlive: SGLang fails every request that carries
// a ': keep-alive' comment line (json.loads of the line); AISBench and vLLM
// count it.
func TestIssue16SGLangFailsKeepAlive(t *testing.T) {
	rep := runTrace(t, quirk("keep_alive"))
	for tool, want := range map[string]float64{"aisbench": 2, "vllm": 2, "sglang": 1} {
		if got := value(t, rep, tool, Successes); got != want {
			t.Errorf("%s: %v successes, want %v", tool, got, want)
		}
	}
	if a, ok := why(rep, "sglang", "framing"); !ok || !moves(a, Successes) {
		t.Errorf("SGLang's failure not attributed to its framing: %+v", rep.Why)
	}
}

// TestIssue16VLLMLosesEventsSilently: vLLM loses the events after a
// comment block (its own read, or at the end of one) or a read cut just
// after "data:", and still counts those requests as successful; when a
// later read holds "\n\n" inside it, the joined text fails json.loads
// instead (data_cut's cut-1).
func TestIssue16VLLMLosesEventsSilently(t *testing.T) {
	for _, c := range []struct {
		trace     string
		successes float64
	}{{"keep_alive", 2}, {"comment_block", 1}, {"data_cut", 1}} {
		rep := runTrace(t, quirk(c.trace))
		if got := value(t, rep, "vllm", Successes); got != c.successes {
			t.Errorf("%s: vLLM %v successes, want %v", c.trace, got, c.successes)
		}
		if v, ais := value(t, rep, "vllm", E2EMean), value(t, rep, "aisbench", E2EMean); v >= ais {
			t.Errorf("%s: vLLM's E2E mean %v, AISBench's %v: want the lost events to shorten it", c.trace, v, ais)
		}
		a, ok := why(rep, "vllm", "framing")
		if !ok || !moves(a, ITLSamples) || !moves(a, E2EMean) {
			t.Errorf("%s: vLLM's lost events not attributed to its framing: %+v", c.trace, rep.Why)
		}
		// The usage-only chunk is lost too: the tokenizer would count.
		for _, tr := range rep.Tools {
			if tr.Tool.Name == "vllm" && tr.Summary[OutputTokens].Known {
				t.Errorf("%s: vLLM's output tokens known, want the tokenizer's (lost usage)", c.trace)
			}
		}
	}
}

func moves(a Attribution, q Quantity) bool {
	for _, d := range a.Deltas {
		if d.Quantity == q {
			return true
		}
	}
	return false
}

// runTools is audit tools with the tools named.
func runTools(t *testing.T, path string, names string) *Report {
	t.Helper()
	list, err := ParseList(names)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(func() (trace.Reader, error) { return trace.Open(path, trace.OpenOptions{}) }, Options{Tools: list, Why: true})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestIssue16AISBenchPR479: AISBench's pull request 479 gives usage-only
// events no time point: one interval fewer a request and an E2E ending at
// the finish event (quirks/first_token: the usage 3 ms after it), the
// usage's counts kept.
func TestIssue16AISBenchPR479(t *testing.T) {
	rep := runTools(t, quirk("first_token"), "aisbench,aisbench@pr479")
	if a, b := value(t, rep, "aisbench", ITLSamples), value(t, rep, "aisbench@pr479", ITLSamples); b != a-3 {
		t.Errorf("ITL samples: AISBench %v, #479 %v: want one fewer a request", a, b)
	}
	if a, b := value(t, rep, "aisbench", E2EMean), value(t, rep, "aisbench@pr479", E2EMean); math.Abs(a-b-0.003) > 1e-12 {
		t.Errorf("E2E mean: AISBench %v, #479 %v: want 3 ms shorter", a, b)
	}
	if a, b := value(t, rep, "aisbench", OutputTokens), value(t, rep, "aisbench@pr479", OutputTokens); a != b {
		t.Errorf("output tokens: AISBench %v, #479 %v: want the usage kept", a, b)
	}
	if a, ok := why(rep, "aisbench@pr479", "pr479"); !ok || a.PerRequest[ITLSamples] != -1 {
		t.Errorf("#479's ITL not attributed to its rule, -1 a request: %+v", rep.Why)
	}
}

// TestIssue16AISBenchPR481: AISBench's pull request 481 skips "id:" blocks:
// a request with an "id:" block of its own before each event succeeds (the
// released client fails it on json.loads); an "id:" line inside an event's
// block takes the event with it.
func TestIssue16AISBenchPR481(t *testing.T) {
	rep := runTools(t, quirk("id_lines"), "aisbench,aisbench@pr481")
	if a, b := value(t, rep, "aisbench", Successes), value(t, rep, "aisbench@pr481", Successes); a != 1 || b != 3 {
		t.Errorf("successes: AISBench %v, #481 %v: want 1 and 3", a, b)
	}
	// id-0 keeps its 6 intervals, id-1 loses one event (5 intervals), ok-2 6.
	if got := value(t, rep, "aisbench@pr481", ITLSamples); got != 17 {
		t.Errorf("#481: %v ITL samples, want 17", got)
	}
	if _, ok := why(rep, "aisbench@pr481", "pr481"); !ok {
		t.Errorf("#481's successes not attributed to its rule: %+v", rep.Why)
	}
}

// TestIssue16EvalScopeQuirks: EvalScope perf on the quirk and findings
// traces. It keeps a block's data lines whatever else the block holds:
// quirks/id_lines' three requests all succeed (AISBench's client fails
// the two whose blocks start with "id:"), attributed to its framing. Its
// P99 is the sorted TTFTs' [int(n * 0.99)], no interpolation (basic: 9
// successes, int(8.91) = 8, the largest TTFT), attributed to its
// percentile rule. On the external traces, whose chunks carry neither
// usage nor an "index", parse_responses raises KeyError: 'index' and it
// saves nothing.
func TestIssue16EvalScopeQuirks(t *testing.T) {
	rep := runTrace(t, quirk("id_lines"))
	if e, a := value(t, rep, "evalscope", Successes), value(t, rep, "aisbench", Successes); e != 3 || a != 1 {
		t.Errorf("id_lines successes: EvalScope %v, AISBench %v: want 3 and 1", e, a)
	}
	if a, ok := why(rep, "evalscope", "framing"); !ok || !moves(a, Successes) {
		t.Errorf("EvalScope's successes not attributed to its framing: %+v", rep.Why)
	}

	rep = runTrace(t, filepath.Join(root, "testdata", "traces", "basic.jsonl"))
	var maxTTFT float64
	for _, tr := range rep.Tools {
		if tr.Tool.Name == "evalscope" {
			for _, k := range tr.Keys {
				if k.Name == "TTFT (ms) max" {
					maxTTFT = k.Value.(float64)
				}
			}
		}
	}
	if p99 := value(t, rep, "evalscope", TTFTP99); p99*1000 != maxTTFT {
		t.Errorf("basic: EvalScope's TTFT P99 %v ms, its max %v ms: want equal (9 values: index int(8.91) = 8)", p99*1000, maxTTFT)
	}
	if a, ok := why(rep, "evalscope", "percentile"); !ok || !moves(a, TTFTP99) {
		t.Errorf("EvalScope's P99 not attributed to its percentile rule: %+v", rep.Why)
	}

	rep = runTools(t, filepath.Join(root, "testdata", "traces", "external", "duckdb-flat.parquet"), "aisbench,evalscope")
	for _, tr := range rep.Tools {
		if tr.Tool.Name == "evalscope" && !strings.HasPrefix(tr.Err, "KeyError: 'index'") {
			t.Errorf("external trace: EvalScope's error %q, want KeyError: 'index'", tr.Err)
		}
	}
}

// TestIssue16AIPerfQuirks: what AIPerf's client and response extractor do
// that the others do not, worked by hand on the quirk traces
// (testdata/tools/quirks/make.py) and equal to AIPerf's own code's
// (golden/quirks-read_splits.aiperf.json: request_latency.avg 166.667 ms,
// inter_chunk_latency one value of 60 ms).
//
// read_splits: rs-0 and rs-1 have two responses whose first bytes share a
// read (ev3 begins in ev2's read): an interval of 0 ns, so AIPerf drops
// both requests' inter-chunk latencies; rs-2's blank line split over two
// reads joins two events into one message that is not JSON (both lost:
// responses at 120 and 180 ms, one interval of 60 ms); rs-3's CRLF body is
// one message, not JSON: no response, the request is no success. So 3
// successes, TTFT 120 ms each, E2E (160 + 160 + 180) / 3 ms, one ITL
// sample of 60 ms; keeping zero intervals (zero_interval) adds rs-0's and
// rs-1's [20, 0, 20].
//
// basic: every request streams the usage-only tail, whose empty choices
// raise IndexError: no success, and the empty_choices rule moves it.
func TestIssue16AIPerfQuirks(t *testing.T) {
	rep := runTools(t, quirk("read_splits"), "aisbench,aiperf")
	for _, c := range []struct {
		q    Quantity
		want float64
	}{{Successes, 3}, {TTFTMean, 0.120}, {E2EMean, (0.160 + 0.160 + 0.180) / 3}, {ITLSamples, 1}, {ITLMean, 0.060}} {
		if got := value(t, rep, "aiperf", c.q); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("read_splits: AIPerf %s %v, want %v", c.q.Label(), got, c.want)
		}
	}
	if a, ok := why(rep, "aiperf", "zero_interval"); !ok || !moves(a, ITLSamples) {
		t.Errorf("read_splits: zero_interval does not move ITL samples: %+v", a)
	}
	for _, tr := range rep.Tools {
		if tr.Tool.Name == "aiperf" && tr.Summary[TPOTMean].Known {
			t.Error("AIPerf's TPOT (inter_token_latency) needs its tokenizer, yet known")
		}
	}

	rep = runTools(t, filepath.Join(root, "testdata", "traces", "basic.jsonl"), "aisbench,aiperf")
	if got := value(t, rep, "aiperf", Successes); got != 0 {
		t.Errorf("basic: AIPerf has %v successes, want 0 (IndexError on the usage-only tail)", got)
	}
	if a, ok := why(rep, "aiperf", "empty_choices"); !ok || !moves(a, Successes) {
		t.Errorf("basic: empty_choices does not move successes: %+v", a)
	}
}

// TestIssue16GenAIPerf: GenAI-Perf on quirks/read_splits: every read is a
// response, the role-only and [DONE] reads are dropped as empty, a read
// starting with "\n" is a splinter joined to the one before: every request
// keeps its four content reads (TTFT 120 ms each; E2E 160, 160, 180, 180
// ms); 4 requests over 1.38 s; AISBench times the role-only event, 20 ms
// earlier: every_message moves TTFT. On basic.jsonl a 500 stops
// perf_analyzer: GenAI-Perf has no numbers, and the failures rule is why.
func TestIssue16GenAIPerf(t *testing.T) {
	rep := runTools(t, quirk("read_splits"), "aisbench,genai-perf")
	for _, c := range []struct {
		q    Quantity
		want float64
	}{{Successes, 4}, {TTFTMean, 0.120}, {E2EMean, (0.160 + 0.160 + 0.180 + 0.180) / 4}, {Duration, 1.38}} {
		if got := value(t, rep, "genai-perf", c.q); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("read_splits: GenAI-Perf %s %v, want %v", c.q.Label(), got, c.want)
		}
	}
	if a, ok := why(rep, "genai-perf", "every_message"); !ok || !moves(a, TTFTMean) {
		t.Errorf("read_splits: every_message does not move TTFT: %+v", a)
	}
	rep = runTools(t, filepath.Join(root, "testdata", "traces", "basic.jsonl"), "aisbench,genai-perf")
	for _, tr := range rep.Tools {
		if tr.Tool.Name == "genai-perf" && !strings.HasPrefix(tr.Err, "perf_analyzer stops: HTTP 500") {
			t.Errorf("basic: GenAI-Perf's error %q", tr.Err)
		}
	}
	if a, ok := why(rep, "genai-perf", "failures"); !ok || !moves(a, Successes) {
		t.Errorf("basic: failures does not move successes: %+v", a)
	}
}

// TestIssue16GuideLLMQuirks: guidellm's rules on the quirk traces.
// quirks/first_token (each request: role at 100 ms, texts at 101, 121, 141
// and 161, the finish at 181, usage and [DONE] at 184; 4 output tokens by
// its usage; the next requests 10 and 20 ms later): the role-only chunk is
// no token, so TTFT is the first text's (101, 111, 121 ms: mean 111); ITL
// is (last - first token) / (4 - 1) = 20 ms; TPOT counts the first token,
// (last token - start) / 4: 40.25, 42.75 and 45.25 ms, mean 42.75; E2E
// ends at the [DONE] line's read: 184, 194 and 204 ms. Lines not starting
// with "data:" are ignored: quirks/id_lines' three requests, keep_alive's
// two and comment_block's one all succeed.
func TestIssue16GuideLLMQuirks(t *testing.T) {
	rep := runTools(t, quirk("first_token"), "guidellm")
	for _, c := range []struct {
		q    Quantity
		want float64
	}{{TTFTMean, 0.111}, {ITLMean, 0.020}, {TPOTMean, 0.04275}, {E2EMean, 0.194}, {OutputTokens, 12}, {Successes, 3}} {
		if got := value(t, rep, "guidellm", c.q); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("first_token %s: %v, want %v", c.q.Label(), got, c.want)
		}
	}
	for name, want := range map[string]float64{"id_lines": 3, "keep_alive": 2, "comment_block": 1} {
		if got := value(t, runTools(t, quirk(name), "guidellm"), "guidellm", Successes); got != want {
			t.Errorf("%s: %v successes, want %v", name, got, want)
		}
	}
}

// TestIssue16GuideLLMRules: guidellm's rules on basic.jsonl: its first
// token is the first text (AISBench's the role-only event), its E2E ends
// at the [DONE] read, its TPOT counts the first token, its P99 does not
// interpolate, its throughput is a rate distribution's mean; with every
// rule switched it equals AISBench. On findings/event_lines an "event:"
// line is a line guidellm ignores, a block AISBench fails: framing moves
// the successes.
func TestIssue16GuideLLMRules(t *testing.T) {
	rep := runTools(t, filepath.Join(root, "testdata", "traces", "basic.jsonl"), "aisbench,guidellm")
	for rule, q := range map[string]Quantity{"every_message": TTFTMean, "latency": E2EMean, "tpot": TPOTMean,
		"percentile": TTFTP99, "throughput": OutputThroughput} {
		if a, ok := why(rep, "guidellm", rule); !ok || !moves(a, q) {
			t.Errorf("basic: %s does not move %s: %+v", rule, q.Label(), a)
		}
	}
	residuals := 0
	for _, res := range rep.Residual {
		if res.Tool.Name == "guidellm" {
			residuals++
			if len(res.Deltas) != 0 {
				t.Errorf("basic: guidellm with every rule switched differs: %+v", res.Deltas)
			}
		}
	}
	if residuals != 1 {
		t.Errorf("basic: %d residuals for guidellm, want 1", residuals)
	}
	rep = runTools(t, filepath.Join(root, "testdata", "traces", "findings", "event_lines.jsonl"), "aisbench,guidellm")
	if a, ok := why(rep, "guidellm", "framing"); !ok || !moves(a, Successes) {
		t.Errorf("event_lines: framing does not move successes: %+v", a)
	}
}
