package guidellm

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/sseaudit/sseaudit/internal/tooltest"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/trace"
)

const root = "../.."

// run is guidellm's calculator on a trace.
func run(t testing.TB, r trace.Reader, api API) *Calc {
	t.Helper()
	c := &Calc{}
	cl := &Client{API: api}
	err := record.EachReplay(r, replay.Options{Framer: replay.GuideLLM}, func(rr *record.Replayed) error {
		c.Add(cl.Request(rr.T0Ns, rr.Replay))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestGoldens: every key kept of benchmarks.json's metrics, and every
// request's timings, iterations and counts, equal to what guidellm's own
// code made of the same bytes (testdata/tools/golden/*.guidellm.json), on
// every bundled trace, quirk trace and a trace of every tracegen profile
// for both APIs.
func TestGoldens(t *testing.T) {
	dir := t.TempDir()
	keys, reqs, worst := 0, 0, 0.0
	tooltest.EachGolden(t, root, "guidellm", Source, func(t *testing.T, tc tooltest.Case, g *tooltest.Golden) {
		r := tc.Open(t, dir)
		defer r.Close()
		c := run(t, r, API(tc.API))
		reqs += comparePerRequest(t, c.Outputs(), loadPerRequest(t, tc.Name))
		got := keysOf(c.Result())
		tooltest.CompareKeys(t, got, g)
		keys += len(g.Keys)
		worst = max(worst, maxRelative(got, g))
	})
	t.Logf("%d keys and %d requests compared, the largest relative difference %.3g", keys, reqs, worst)
}

func keysOf(r *Result) []tooltest.Key {
	var ks []tooltest.Key
	for _, k := range r.Keys() {
		ks = append(ks, tooltest.Key{Name: k.Name, Value: k.Value, NotComputed: k.NotComputed})
	}
	return ks
}

// perRequest is a request of the golden: its RequestInfo timings and stats.
type perRequest struct {
	Success           bool     `json:"success"`
	StartTime         float64  `json:"start_time"`
	FirstToken        *float64 `json:"first_token"`
	FirstOutputToken  *float64 `json:"first_output_token"`
	LastToken         *float64 `json:"last_token"`
	RequestEnd        *float64 `json:"request_end"`
	RequestIterations int64    `json:"request_iterations"`
	TokenIterations   int64    `json:"token_iterations"`
	OutputTokens      *int64   `json:"output_tokens"`
	PromptLen         *int64   `json:"prompt_len"`
	Error             string   `json:"error"`
}

func loadPerRequest(t *testing.T, name string) []perRequest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "testdata", "tools", "golden", name+".guidellm.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		PerRequest []perRequest `json:"per_request"`
	}
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	return g.PerRequest
}

func comparePerRequest(t *testing.T, outs []Output, want []perRequest) int {
	t.Helper()
	if len(outs) != len(want) {
		t.Fatalf("%d outputs, golden %d", len(outs), len(want))
	}
	opt := func(has bool, x float64, w *float64) bool {
		return has == (w != nil) && (!has || tooltest.Close(x, *w))
	}
	for i, o := range outs {
		w := want[i]
		if o.Success != w.Success {
			t.Errorf("request %d: success %v (%s), the tool's %v (%s)", i, o.Success, o.Error, w.Success, w.Error)
			continue
		}
		if !tooltest.Close(o.Start, w.StartTime) {
			t.Errorf("request %d: start %v, the tool's %v", i, o.Start, w.StartTime)
		}
		if !o.Success {
			continue
		}
		if !opt(o.HasFirst, o.FirstToken, w.FirstToken) || !opt(o.HasFirstOutput, o.FirstOutput, w.FirstOutputToken) ||
			!opt(o.HasLast, o.LastToken, w.LastToken) || !opt(true, o.End, w.RequestEnd) {
			t.Errorf("request %d: first %v %v, first output %v %v, last %v %v, end %v; the tool's %v %v %v %v", i,
				o.HasFirst, o.FirstToken, o.HasFirstOutput, o.FirstOutput, o.HasLast, o.LastToken, o.End,
				w.FirstToken, w.FirstOutputToken, w.LastToken, w.RequestEnd)
		}
		if o.RequestIterations != w.RequestIterations || o.TokenIterations != w.TokenIterations {
			t.Errorf("request %d: %d request and %d token iterations, the tool's %d and %d", i,
				o.RequestIterations, o.TokenIterations, w.RequestIterations, w.TokenIterations)
		}
		for _, c := range []struct {
			name string
			got  Count
			want *int64
		}{{"output tokens", o.OutputTokens, w.OutputTokens}, {"prompt tokens", o.PromptTokens, w.PromptLen}} {
			if c.got.Known && (c.want == nil || *c.want != c.got.N) {
				t.Errorf("request %d: %s %d, the tool's %v", i, c.name, c.got.N, c.want)
			}
		}
	}
	return len(outs)
}

// maxRelative is the largest relative difference between a computed key and
// the golden's value.
func maxRelative(got []tooltest.Key, g *tooltest.Golden) float64 {
	worst := 0.0
	for _, gk := range g.Keys {
		want, ok := tooltest.Number(gk.Value)
		if !ok {
			continue
		}
		for _, k := range got {
			if k.Name != gk.Name {
				continue
			}
			if x, ok := k.Value.(float64); ok && x != want {
				worst = max(worst, math.Abs(x-want)/math.Max(math.Abs(x), math.Abs(want)))
			}
		}
	}
	return worst
}

// TestClientGolden: on bodies exercising each rule of guidellm's streaming
// client (testdata/tools/guidellm/client.jsonl: end markers, error
// payloads, null deltas, non-str texts and ids, tool calls, counts pydantic
// accepts or refuses, split UTF-8, a trailing CR), every request's success,
// timings, iterations and counts and every key equal to what guidellm's own
// code made of them.
func TestClientGolden(t *testing.T) {
	r, err := trace.Open(filepath.Join(root, "testdata", "tools", "guidellm", "client.jsonl"), trace.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c := run(t, r, Chat)
	want := loadPerRequest(t, "guidellm-client")
	comparePerRequest(t, c.Outputs(), want)
	ok := 0
	for i, o := range c.Outputs() {
		if o.Success {
			ok++
		} else if want[i].Error == "" {
			t.Errorf("request %d: failed (%s) without the tool's error", i, o.Error)
		}
	}
	if ok != 28 || len(want) != 72 {
		t.Errorf("%d successes of %d requests, want 28 of 72", ok, len(want))
	}
	tooltest.CompareKeys(t, keysOf(c.Result()), tooltest.LoadGolden(t, root, "guidellm-client", "guidellm"))
}
