package aiperf

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

// goldenRequest is a request as the oracle saw it through AIPerf's own
// code: ParsedResponseRecord.valid, start_perf_ns, the parsed responses'
// and every SSE message's perf_ns, end_perf_ns, the error.
type goldenRequest struct {
	Success      bool    `json:"success"`
	StartTime    int64   `json:"start_time"`
	Responses    []int64 `json:"responses"`
	RawResponses []int64 `json:"raw_responses"`
	EndPerfNs    int64   `json:"end_perf_ns"`
	Error        string  `json:"error"`
}

func loadRequests(t *testing.T, name string) []goldenRequest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "testdata", "tools", "golden", name+".aiperf.json"))
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

// TestGoldens: every key of profile_export_aiperf.json, and every
// request's validity, start, responses' times and every SSE message's
// time, equal to what AIPerf's own code made of the same bytes
// (testdata/tools/golden/*.aiperf.json), on every bundled trace, the quirk
// traces and a trace of every tracegen profile for both APIs.
func TestGoldens(t *testing.T) {
	dir := t.TempDir()
	tooltest.EachGolden(t, root, "aiperf", Source, func(t *testing.T, tc tooltest.Case, g *tooltest.Golden) {
		want := loadRequests(t, tc.Name)
		r := tc.Open(t, dir)
		defer r.Close()
		c := &Calc{}
		cl := &Client{}
		var raw [][]int64
		err := record.EachReplay(r, replay.Options{Framer: replay.AIPerf}, func(rr *record.Replayed) error {
			c.Add(cl.Request(rr.T0Ns, rr.Replay))
			var ts []int64
			if rr.Replay.Transport == "" {
				for _, m := range rr.Replay.Messages {
					ts = append(ts, m.TNs)
				}
			}
			raw = append(raw, ts)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		comparePerRequest(t, c.Outputs(), raw, want)
		tooltest.CompareKeys(t, keys(c.Result()), g)
	})
}

func keys(r *Result) []tooltest.Key {
	var ks []tooltest.Key
	for _, k := range r.Keys() {
		ks = append(ks, tooltest.Key{Name: k.Name, Value: k.Value, NotComputed: k.NotComputed})
	}
	return ks
}

func comparePerRequest(t *testing.T, outs []Output, raw [][]int64, want []goldenRequest) {
	t.Helper()
	if len(outs) != len(want) {
		t.Fatalf("%d outputs, golden %d", len(outs), len(want))
	}
	for i := range outs {
		o, w := &outs[i], want[i]
		if o.Valid() != w.Success {
			t.Errorf("request %d: valid %v (%s), the tool's %v (%s)", i, o.Valid(), o.Error, w.Success, w.Error)
			continue
		}
		if (o.Error == "") != (w.Error == "") {
			t.Errorf("request %d: error %q, the tool's %q", i, o.Error, w.Error)
		}
		if o.StartNs != w.StartTime {
			t.Errorf("request %d: start %d, the tool's %d", i, o.StartNs, w.StartTime)
		}
		if w.Error == "" && o.EndNs != w.EndPerfNs {
			t.Errorf("request %d: end %d, the tool's %d", i, o.EndNs, w.EndPerfNs)
		}
		if !equal(o.Responses, w.Responses) {
			t.Errorf("request %d: responses at %v, the tool's %v", i, o.Responses, w.Responses)
		}
		if w.Error == "" || !strings.HasPrefix(w.Error, "Invalid") && len(w.RawResponses) > 0 {
			if !equal(raw[i], w.RawResponses) {
				t.Errorf("request %d: SSE messages at %v, the tool's %v", i, raw[i], w.RawResponses)
			}
		}
	}
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
