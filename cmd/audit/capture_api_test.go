package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestCaptureAPIFromURL: without --api, a --url naming the completions
// endpoint is captured as completions (a prompt body, posted there), not
// refused as a mismatch with the default chat, nor sent a messages body.
func TestCaptureAPIFromURL(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, r.URL.Path+" "+string(b))
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"text\":\"Hi\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer ts.Close()
	out := filepath.Join(t.TempDir(), "run.arrows")
	_, stderr, code := runCLI(t, "", "capture", "--url", ts.URL+"/v1/completions", "--requests", "1", "--progress", "never", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || !strings.HasPrefix(seen[0], `/v1/completions {"prompt":`) {
		t.Errorf("the server saw %q: want one prompt body at /v1/completions", seen)
	}
}
