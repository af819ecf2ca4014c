package serve

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sseaudit/sseaudit/internal/rawhttp"
	"github.com/sseaudit/sseaudit/trace"
)

// rawServer serves the JSONL lines as a trace.
func rawServer(t *testing.T, opts Options, lines ...string) (*Server, *httptest.Server) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := trace.Open(path, trace.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	s, err := New(r, opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, ts
}

// rawPost sends a completions POST and reads the raw answer until the
// connection ends or within passes.
func rawPost(t *testing.T, addr string, within time.Duration) rawhttp.Response {
	t.Helper()
	res, err := rawhttp.Post(addr, "/v1/completions", `{"prompt":"x"}`, within)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestHugeOffsetNotEarly: a read due centuries after the request
// (a huge offset, or a tiny --speed: `audit serve` takes any speed > 0) is
// not sent before its due time. Its due time does not fit a Duration; it
// must not come out as one in the past.
func TestHugeOffsetNotEarly(t *testing.T) {
	for _, c := range []struct {
		name  string
		speed float64
		tNs   int64
	}{
		{"speed 1e-9, read at 10s (due in 317 years)", 1e-9, 10e9},
		{"speed 1, read at t0+2^63-1 ns (the span a trace may hold)", 1, 1<<63 - 1},
		{"speed 0.5, read at 150 years", 0.5, 150 * 365 * 24 * 3600 * 1e9},
	} {
		t.Run(c.name, func(t *testing.T) {
			line := fmt.Sprintf(`{"request_id": "r", "t0_ns": 0, "end_ns": %d, "http_status": 200, "chunks": [{"t_ns": 0, "data": "a"}, {"t_ns": %d, "data": "b"}]}`, c.tNs, c.tNs)
			_, ts := rawServer(t, Options{Speed: c.speed}, line)
			got := rawPost(t, ts.Listener.Addr().String(), 300*time.Millisecond)
			if got.Status != 200 || string(got.Body) != "a" || got.Complete || !got.TimedOut {
				t.Errorf("within 300 ms: status %d, body %q, complete %v; want 200 and %q only, the read due centuries later not sent yet", got.Status, got.Body, got.Complete, "a")
			}
		})
	}
}

// TestStatusBeforeCut: a request whose answer came with a status and
// then failed before any body byte (a 502 whose connection was reset) is
// served with its status, then cut; not as a request that got no answer
// at all (that is a null http_status).
func TestStatusBeforeCut(t *testing.T) {
	for _, status := range []int{200, 502} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			line := fmt.Sprintf(`{"request_id": "r", "t0_ns": 0, "end_ns": 1000000, "http_status": %d, "error": "read tcp: connection reset by peer", "chunks": []}`, status)
			_, ts := rawServer(t, Options{}, line)
			got := rawPost(t, ts.Listener.Addr().String(), 10*time.Second)
			if got.Status != status || got.Complete {
				t.Errorf("got status %d (0: no status line), complete %v; want %d, then the connection cut", got.Status, got.Complete, status)
			}
		})
	}
}
