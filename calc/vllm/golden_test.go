package vllm

import (
	"encoding/json"
	"testing"

	"github.com/sseaudit/sseaudit/internal/tooltest"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/trace"
)

const root = "../.."

// run is vLLM's calculator on a trace, with the given rules and framer.
func run(t testing.TB, r trace.Reader, api API, rules Rules, framer replay.Framer) *Calc {
	t.Helper()
	c := &Calc{Rules: rules}
	cl := &Client{API: api, Rules: rules}
	opts := record.Options{Framer: framer, KeepReplay: true}
	err := record.Each(r, opts, func(rr *record.Replayed) error {
		c.Add(cl.Request(rr.T0Ns, rr.Replay), rr.T0Ns, rr.Replay.EndNs)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestGoldens: every key vllm bench serve saves, and every request's
// RequestFuncOutput, equal to what vLLM's own code made of the same bytes
// (testdata/tools/golden/*.vllm.json), on every bundled trace and a trace
// of every tracegen profile for both APIs.
func TestGoldens(t *testing.T) {
	dir := t.TempDir()
	tooltest.EachGolden(t, root, "vllm", "2f41c894e320a07a46a360ee72149dd84d6f4bec", func(t *testing.T, tc tooltest.Case, g *tooltest.Golden) {
		r := tc.Open(t, dir)
		defer r.Close()
		c := run(t, r, API(tc.API), Rules{}, replay.VLLM)
		comparePerRequest(t, c.Outputs(), g)
		// A lean calculator keeps the ITL mean and count exactly.
		lean := &Calc{Lean: true}
		for i, o := range c.Outputs() {
			lean.Add(o, int64(i), int64(i))
		}
		full := &Calc{}
		for i, o := range c.Outputs() {
			full.Add(o, int64(i), int64(i))
		}
		if a, b := lean.Result().ITL, full.Result().ITL; a.Mean != b.Mean || a.Samples != b.Samples {
			t.Errorf("lean ITL mean %v (%d), full %v (%d)", a.Mean, a.Samples, b.Mean, b.Samples)
		}
		if g.Error != "" {
			t.Fatalf("the tool raised %s", g.Error)
		}
		res := c.Result()
		if !tooltest.Close(res.Duration, g.DurationS) {
			t.Errorf("duration %v, golden %v", res.Duration, g.DurationS)
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
		if !o.Success {
			continue
		}
		if !tooltest.Close(o.StartTime, w.StartTime) || !tooltest.Close(o.TTFT, w.TTFT) || !tooltest.Close(o.Latency, w.Latency) {
			t.Errorf("request %d: start %v ttft %v latency %v, the tool's %v %v %v", i, o.StartTime, o.TTFT, o.Latency, w.StartTime, w.TTFT, w.Latency)
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
		var out int64
		if json.Unmarshal(w.OutputTokens, &out) == nil && o.OutputTokens.Known && o.OutputTokens.N != out {
			t.Errorf("request %d: output tokens %d, the tool's %d", i, o.OutputTokens.N, out)
		}
	}
}
