package serve

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/sseaudit/sseaudit/capture"
	"github.com/sseaudit/sseaudit/trace"
)

type collected struct{ reqs []*trace.Request }

func (c *collected) Write(r *trace.Request) error {
	c.reqs = append(c.reqs, r.Clone())
	return nil
}

func captureOne(t *testing.T, url string) *trace.Request {
	t.Helper()
	var got collected
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := capture.Run(ctx, capture.Options{URL: url, Requests: 1, Concurrency: 1, Prompts: []string{"hi"}}, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.reqs) != 1 {
		t.Fatalf("captured %d requests, want 1", len(got.reqs))
	}
	return got.reqs[0]
}

func strp(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

// TestCapturedErrorAnswer: an error answer recorded by audit capture
// (a 429 with its whole JSON body; a 503 with an empty body) is served as
// recorded: capture records every non-200 answer with its status text in
// the error column, which serve takes for a body cut mid-stream. Served
// back, the 429's body is cut (the connection aborted before the chunked
// encoding's end) and the 503 gets no response at all; capturing the
// served stream does not give the recording back.
func TestCapturedErrorAnswer(t *testing.T) {
	for _, c := range []struct {
		name   string
		status int
		body   string
	}{
		{"429 with a body", http.StatusTooManyRequests, `{"error":{"message":"slow down","type":"rate_limit"}}`},
		{"503 with an empty body", http.StatusServiceUnavailable, ``},
	} {
		t.Run(c.name, func(t *testing.T) {
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(c.status)
				w.Write([]byte(c.body))
			}))
			defer up.Close()
			rec := captureOne(t, up.URL)
			if rec.HTTPStatus == nil || int(*rec.HTTPStatus) != c.status {
				t.Fatalf("recorded status %v, want %d", rec.HTTPStatus, c.status)
			}
			t.Logf("recorded: status %d, %d reads, error %q", *rec.HTTPStatus, len(rec.Chunks), strp(rec.Error))

			rec.Extra = nil
			path := filepath.Join(t.TempDir(), "rec.jsonl")
			w, err := trace.Create(path, "", nil, trace.WriteOptions{})
			if err != nil {
				t.Fatal(err)
			}
			w.Write(rec)
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			r, err := trace.Open(path, trace.OpenOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			s, err := New(r, Options{})
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewServer(s)
			defer ts.Close()

			got := captureOne(t, ts.URL)
			if got.HTTPStatus == nil || *got.HTTPStatus != *rec.HTTPStatus {
				t.Errorf("served: status %v, want %d (error %q)", got.HTTPStatus, *rec.HTTPStatus, strp(got.Error))
			}
			if strp(got.Error) != strp(rec.Error) {
				t.Errorf("served: error %q, want the recording's %q", strp(got.Error), strp(rec.Error))
			}
			if bodyOf(got) != c.body {
				t.Errorf("served body %q, want %q", bodyOf(got), c.body)
			}
		})
	}
}

func bodyOf(r *trace.Request) string {
	var b []byte
	for _, c := range r.Chunks {
		b = append(b, c.Data...)
	}
	return string(b)
}
