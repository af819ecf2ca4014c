package genaiperf

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/internal/tooltest"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/replay"
)

const root = "../.."

// goldenRequest is a request as GenAI-Perf's own code left it: its
// timestamp and the times of the responses _preprocess_response kept.
type goldenRequest struct {
	StartTime int64   `json:"start_time"`
	Responses []int64 `json:"responses"`
}

func loadRequests(t *testing.T, name string) []goldenRequest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "testdata", "tools", "golden", name+".genai-perf.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		PerRequest []goldenRequest `json:"per_request"`
	}
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	return g.PerRequest
}

// run is GenAI-Perf's calculator on a case's trace.
func run(t *testing.T, tc tooltest.Case, dir string) *Calc {
	t.Helper()
	r := tc.Open(t, dir)
	defer r.Close()
	c := &Calc{}
	cl := &Client{API: API(tc.API)}
	err := record.EachReplay(r, replay.Options{Framer: replay.GenAIPerf}, func(rr *record.Replayed) error {
		c.Add(cl.Request(rr.T0Ns, rr.Replay))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestGoldens: every key of profile_export_genai_perf.json, and every
// request's kept responses, equal to what GenAI-Perf's own code made of the
// profile export perf_analyzer would have written from the same bytes
// (testdata/tools/golden/*.genai-perf.json), or the same exception, on
// every bundled trace, the quirk traces and a trace of every tracegen
// profile for both APIs.
func TestGoldens(t *testing.T) {
	dir := t.TempDir()
	tooltest.EachGolden(t, root, "genai-perf", Source, func(t *testing.T, tc tooltest.Case, g *tooltest.Golden) {
		c := run(t, tc, dir)
		res := c.Result()
		if g.Error != "" || res.Err != "" {
			kind := func(s string) string { return strings.SplitN(s, ":", 2)[0] }
			if kind(res.Err) != kind(g.Error) {
				t.Fatalf("the tool raised %q, the calculator %q", g.Error, res.Err)
			}
			return
		}
		want := loadRequests(t, tc.Name)
		if len(want) != len(c.Outputs()) {
			t.Fatalf("%d requests, golden %d", len(c.Outputs()), len(want))
		}
		for i, o := range c.Outputs() {
			if o.StartNs != want[i].StartTime || !equal(o.Responses, want[i].Responses) {
				t.Errorf("request %d: start %d, responses %v; the tool's %d, %v", i, o.StartNs, o.Responses,
					want[i].StartTime, want[i].Responses)
			}
		}
		var ks []tooltest.Key
		for _, k := range res.Keys() {
			ks = append(ks, tooltest.Key{Name: k.Name, Value: k.Value, NotComputed: k.NotComputed})
		}
		tooltest.CompareKeys(t, ks, g)
	})
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
