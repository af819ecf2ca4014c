package capture_test

import (
	"bytes"
	"context"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sseaudit/sseaudit/capture"
	"github.com/sseaudit/sseaudit/trace"
)

// A key the server echoes in a 401 body, placed so that it straddles the
// 2048 bytes of the body the error column keeps: the chunks are masked, but
// the error column keeps all of the key but its last byte, unmasked.
func TestEchoedKeyAtErrorCut(t *testing.T) {
	const key = "sk-review-key-0123456789abcdefghij"
	pad := strings.Repeat("x", 2048-len(key)+1) // the key's last byte falls just past the cut
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(401)
		io.WriteString(w, pad+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+"\n")
	}))
	defer ts.Close()
	var got collect
	if _, err := capture.Run(context.Background(), capture.Options{URL: ts.URL, Requests: 1, Concurrency: 1,
		Headers: http.Header{"Authorization": {"Bearer " + key}}}, &got); err != nil {
		t.Fatal(err)
	}
	r := got.reqs[0]
	if bytes.Contains(joined(r), []byte(key)) {
		t.Fatalf("key in the body")
	}
	if e := errText(r.Error); strings.Contains(e, key[:len(key)-1]) {
		t.Errorf("error column holds %d of the key's %d bytes unmasked: %q", len(key)-1, len(key), e[len(e)-60:])
	}
}

// A key in --url's query (?key=, as Gemini's OpenAI endpoint takes it;
// ?api-key=): the trace's URL drops the query, but the error column of a
// request that timed out before its answer (or was reset, or refused)
// holds Go's error "Post \"http://...?key=...\": ...", the key in clear.
func TestQueryKeyInTransportError(t *testing.T) {
	const key = "AIzaSy-review-query-key-0123456789"
	release := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		<-release // never answers in time
	}))
	defer ts.Close()
	defer close(release)
	var got collect
	if _, err := capture.Run(context.Background(), capture.Options{URL: ts.URL + "/v1?key=" + key, Requests: 1, Concurrency: 1,
		Timeout: 200 * time.Millisecond}, &got); err != nil {
		t.Fatal(err)
	}
	if r := got.reqs[0]; r.Error == nil || strings.Contains(*r.Error, key) {
		t.Errorf("error column: %s: want the request failed, the key not in it", errText(r.Error))
	}
}

// The same key echoed by the server in its error body ("API key not valid:
// ..."): a --header key is masked, a query key is not.
func TestQueryKeyEchoed(t *testing.T) {
	const key = "AIzaSy-review-query-key-0123456789"
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(400)
		io.WriteString(w, `{"error":{"message":"API key not valid: `+r.URL.Query().Get("key")+`"}}`)
	}))
	defer ts.Close()
	var got collect
	if _, err := capture.Run(context.Background(), capture.Options{URL: ts.URL + "/v1?key=" + key, Requests: 1, Concurrency: 1}, &got); err != nil {
		t.Fatal(err)
	}
	r := got.reqs[0]
	if bytes.Contains(joined(r), []byte(key)) || (r.Error != nil && strings.Contains(*r.Error, key)) {
		t.Errorf("the query's key is in the trace: body %q, error %s", joined(r), errText(r.Error))
	}
}

// A body longer than MaxBodyBytes whose last read comes with io.EOF (any
// Content-Length body: net/http returns the last bytes and EOF together)
// is kept whole, not cut, the request not failed; the same body chunked is
// cut and failed.
func TestBodyLimitContentLength(t *testing.T) {
	body := strings.Repeat("x", 1000)
	for _, chunked := range []bool{false, true} {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "text/event-stream")
			if !chunked {
				w.Header().Set("Content-Length", "1000")
			}
			if chunked {
				w.(http.Flusher).Flush()
			}
			io.WriteString(w, body)
			if chunked {
				w.(http.Flusher).Flush()
				time.Sleep(50 * time.Millisecond)
			}
		}))
		var got collect
		sum, err := capture.Run(context.Background(), capture.Options{URL: ts.URL, Requests: 1, Concurrency: 1, MaxBodyBytes: 100}, &got)
		ts.Close()
		if err != nil {
			t.Fatal(err)
		}
		r := got.reqs[0]
		if !r.Failed() || sum.CutBodies != 1 {
			t.Errorf("chunked %v: a 1000-byte body, limit 100: failed %v, cut bodies %d, %d bytes kept: want it cut and failed",
				chunked, r.Failed(), sum.CutBodies, len(joined(r)))
		}
	}
}

// An error answer that says gzip but is not (a proxy's plain-text 502 with
// the upstream's header): its body is lost, the error column says nothing
// of what the server said.
func TestBadGzipBodyKept(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Encoding", "gzip")
		w.WriteHeader(502)
		io.WriteString(w, "upstream connect error")
	}))
	defer ts.Close()
	var got collect
	if _, err := capture.Run(context.Background(), capture.Options{URL: ts.URL, Requests: 1, Concurrency: 1}, &got); err != nil {
		t.Fatal(err)
	}
	r := got.reqs[0]
	if string(joined(r)) != "upstream connect error" {
		t.Errorf("body %q, error %s: want the bytes as sent", joined(r), errText(r.Error))
	}
}

func errText(e *string) string {
	if e == nil {
		return "<nil>"
	}
	return *e
}

// TestRateGapFits: a rate so low that the gap between two requests does
// not fit a Duration is refused; converted, the gap came out negative and
// lifted the cap. A negative or NaN rate is refused as before.
func TestRateGapFits(t *testing.T) {
	for _, rate := range []float64{1e-10, 1e-300, -1, math.NaN()} {
		_, err := capture.Run(context.Background(), capture.Options{URL: "http://127.0.0.1:1", Requests: 2, Concurrency: 1, Rate: rate}, &collect{})
		if err == nil || !strings.Contains(err.Error(), "rate") {
			t.Errorf("rate %v: error %v, want it refused", rate, err)
		}
	}
}

// TestWholeAnswer: the error capture records for a whole answer other than
// 200 is told from one that says more (a read error after it) or another's.
func TestWholeAnswer(t *testing.T) {
	status := func(s int32) *int32 { return &s }
	body := strings.Repeat("b", 3000)
	for _, c := range []struct {
		status int32
		err    string
		chunks []string
		want   bool
	}{
		{429, `HTTP 429 Too Many Requests: {"error":"slow down"}`, []string{`{"error":`, `"slow down"}` + "\n"}, true},
		{503, "HTTP 503 Service Unavailable: ", nil, true},
		{500, "HTTP 500 Internal Server Error: " + body[:2048], []string{body}, true},
		{429, `HTTP 429 Too Many Requests: {"error":"slow down"}; unexpected EOF`, []string{`{"error":"slow down"}`}, false},
		{502, "read tcp: connection reset by peer", nil, false},
		{200, "HTTP 200 OK: ", nil, false},
	} {
		req := &trace.Request{HTTPStatus: status(c.status), Error: &c.err}
		for _, d := range c.chunks {
			req.Chunks = append(req.Chunks, trace.Chunk{Data: []byte(d)})
		}
		if got := capture.WholeAnswer(req); got != c.want {
			t.Errorf("status %d, error %.60q: %v, want %v", c.status, c.err, got, c.want)
		}
	}
}
