package evalscope

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/internal/tooltest"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/trace"
)

const root = "../.."

// run is EvalScope's calculator on a trace, with the given rules and framer.
func run(t testing.TB, r trace.Reader, rules Rules, framer replay.Framer) *Calc {
	t.Helper()
	c := &Calc{Rules: rules}
	cl := &Client{Rules: rules}
	opts := replay.Options{Framer: framer, Messages: framer == replay.AISBench}
	err := record.EachReplay(r, opts, func(rr *record.Replayed) error {
		c.Add(cl.Request(rr.T0Ns, rr.Replay))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestGoldens: every key of benchmark_summary.json and
// benchmark_percentile.json, and every request's BenchmarkData, equal to
// what EvalScope's own code made of the same bytes
// (testdata/tools/golden/*.evalscope.json), on every bundled trace and a
// trace of every tracegen profile for both APIs.
func TestGoldens(t *testing.T) {
	dir := t.TempDir()
	tooltest.EachGolden(t, root, "evalscope", Source, func(t *testing.T, tc tooltest.Case, g *tooltest.Golden) {
		r := tc.Open(t, dir)
		defer r.Close()
		c := run(t, r, Rules{}, replay.EvalScope)
		comparePerRequest(t, c.Outputs(), g)
		res := c.Result()
		if g.Error != "" || res.Err != "" {
			if !strings.HasPrefix(res.Err, g.Error) || g.Error == "" {
				t.Fatalf("the tool raised %q, the calculator %q", g.Error, res.Err)
			}
			return
		}
		tooltest.CompareKeys(t, keys(res), g)
	})
}

func keys(r *Result) []tooltest.Key {
	var ks []tooltest.Key
	for _, k := range r.Keys() {
		ks = append(ks, tooltest.Key{Name: k.Name, Value: k.Value, NotComputed: k.NotComputed})
	}
	return ks
}

func comparePerRequest(t *testing.T, outs []Output, g *tooltest.Golden) {
	t.Helper()
	if len(outs) != len(g.PerRequest) {
		t.Fatalf("%d outputs, golden %d", len(outs), len(g.PerRequest))
	}
	for i, o := range outs {
		w := g.PerRequest[i]
		if o.Success != w.Success {
			t.Errorf("request %d: success %v (%s), the tool's %v (%s)", i, o.Success, o.Error, w.Success, w.Error)
			continue
		}
		if !tooltest.Close(o.StartTime, w.StartTime) {
			t.Errorf("request %d: start %v, the tool's %v", i, o.StartTime, w.StartTime)
		}
		if !o.Success {
			continue
		}
		if !tooltest.Close(o.TTFT, w.TTFT) || !tooltest.Close(o.Latency, w.Latency) {
			t.Errorf("request %d: ttft %v latency %v, the tool's %v %v", i, o.TTFT, o.Latency, w.TTFT, w.Latency)
		}
		if len(o.ITL) != len(w.ITL) {
			t.Errorf("request %d: %d ITL intervals, the tool's %d", i, len(o.ITL), len(w.ITL))
		} else {
			for k := range o.ITL {
				if !tooltest.Close(o.ITL[k], w.ITL[k]) {
					t.Errorf("request %d: ITL[%d] %v, the tool's %v", i, k, o.ITL[k], w.ITL[k])
				}
			}
		}
		for _, c := range []struct {
			name string
			got  Count
			raw  json.RawMessage
		}{{"output tokens", o.CompletionTokens, w.OutputTokens}, {"prompt tokens", o.PromptTokens, w.PromptLen}} {
			var want int64
			if c.got.Known && string(c.raw) != "null" && (json.Unmarshal(c.raw, &want) != nil || c.got.N != want) {
				t.Errorf("request %d: %s %d, the tool's %s", i, c.name, c.got.N, c.raw)
			}
		}
	}
}
