package serve

import (
	"fmt"
	"math"
	"net/http/httptest"
	"strings"
	"testing"
)

// chunkedBody hides its length: the request is sent chunked
// (ContentLength -1), as a streaming client sends it.
type chunkedBody struct{ r *strings.Reader }

func (c chunkedBody) Read(p []byte) (int, error) { return c.r.Read(p) }

// TestMaxBodyBytesHuge: --max-body-bytes accepts any positive
// number; at math.MaxInt64 (a "no limit") MaxBodyBytes+1 wraps negative,
// and with --match a body of unknown length is cut at its first 4 KiB: a
// valid request is answered 400.
func TestMaxBodyBytesHuge(t *testing.T) {
	s, _ := rawServer(t, Options{Match: true, MaxBodyBytes: math.MaxInt64},
		`{"request_id": "r", "prompt": "hi", "t0_ns": 0, "end_ns": 0, "http_status": 200, "chunks": [{"t_ns": 0, "data": "a"}]}`)
	body := fmt.Sprintf(`{"messages":[{"role":"system","content":%q},{"role":"user","content":"hi"}]}`, strings.Repeat("x", 8000))
	req := httptest.NewRequest("POST", "/v1/chat/completions", chunkedBody{strings.NewReader(body)})
	req.ContentLength = -1
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	if w.Code != 200 {
		t.Errorf("status %d, %s; want 200", w.Code, w.Body)
	}
}

// TestMaxBodyBytesHugeContentLength: with the same setting, a client
// declaring Content-Length 2^63-1 makes the handler panic (size
// ContentLength+1 wraps negative; make panics).
func TestMaxBodyBytesHugeContentLength(t *testing.T) {
	s, _ := rawServer(t, Options{Match: true, MaxBodyBytes: math.MaxInt64},
		`{"request_id": "r", "prompt": "hi", "t0_ns": 0, "end_ns": 0, "http_status": 200, "chunks": [{"t_ns": 0, "data": "a"}]}`)
	req := httptest.NewRequest("POST", "/v1/completions", strings.NewReader(`{"prompt":"hi"}`))
	req.ContentLength = math.MaxInt64
	w := httptest.NewRecorder()
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("handler panicked: %v", p)
		}
	}()
	s.ServeHTTP(w, req)
}
