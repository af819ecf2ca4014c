package serve_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/serve"
	"github.com/sseaudit/sseaudit/trace"
)

// A trace imported from another tool's records holds time points, not
// bytes: serve refuses it rather than answer empty 200 streams (issue 20,
// item 10), and a request of that kind inside a trace of bytes gets a 500
// naming it.
func TestTimePointsOnlyRefused(t *testing.T) {
	const bytesReq = `{"request_id": "b", "prompt": "hi", "t0_ns": 0, "end_ns": 2000000, "http_status": 200, "chunks": [{"t_ns": 1000000, "data": "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\n"}]}`
	const pointsReq = `{"request_id": "p", "prompt": "hi", "t0_ns": 0, "end_ns": 3000000, "http_status": 200, "time_points_s": [0.0, 0.001, 0.002], "output_tokens": 2}`
	write := func(lines ...string) string {
		path := filepath.Join(t.TempDir(), "t.jsonl")
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, match := range []bool{false, true} {
		path := write(pointsReq, bytesReq)
		r, err := trace.Open(path, trace.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = serve.New(r, serve.Options{Match: match})
		r.Close()
		if err == nil || !strings.Contains(err.Error(), `request "p" holds time points only`) {
			t.Errorf("match %v: New = %v, want the refusal naming request p", match, err)
		}
	}
	_, ts := newServer(t, write(bytesReq, pointsReq), serve.Options{})
	if got := rawPost(t, ts.Listener.Addr().String(), "/v1/chat/completions", `{}`); got.Status != 200 || !strings.Contains(string(got.Body), "content") {
		t.Fatalf("first request: %d %q", got.Status, got.Body)
	}
	got := rawPost(t, ts.Listener.Addr().String(), "/v1/chat/completions", `{}`)
	if got.Status != 500 || !strings.Contains(string(got.Body), "time points only") {
		t.Errorf("time-points request: status %d, body %q; want 500 naming it", got.Status, got.Body)
	}
}
