package capture_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sseaudit/sseaudit/capture"
)

// TestRequestBody: what each request asks for, as AISBench's client does.
func TestRequestBody(t *testing.T) {
	o := capture.Options{API: "chat", Model: "qwen", MaxTokens: 32, ContinuousUsage: true}
	got := string(capture.Body(&o, "say <hi> \"now\""))
	want := `{"model":"qwen","messages":[{"role":"user","content":"say <hi> \"now\""}],"max_tokens":32,"stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true}}`
	if got != want {
		t.Errorf("chat body\n got %s\nwant %s", got, want)
	}
	o = capture.Options{API: "completions"}
	got = string(capture.Body(&o, "p"))
	want = `{"prompt":"p","stream":true,"stream_options":{"include_usage":true}}`
	if got != want {
		t.Errorf("completions body\n got %s\nwant %s", got, want)
	}
}

func TestEndpoint(t *testing.T) {
	for _, c := range []struct{ base, api, want string }{
		{"http://h:1", "chat", "http://h:1/v1/chat/completions"},
		{"http://h:1/", "completions", "http://h:1/v1/completions"},
		{"http://h:1/v1", "chat", "http://h:1/v1/chat/completions"},
		{"http://h:1/v1/", "completions", "http://h:1/v1/completions"},
		{"https://h/x/v1/chat/completions", "chat", "https://h/x/v1/chat/completions"},
		{"http://h:1/openai", "chat", "http://h:1/openai/v1/chat/completions"},
	} {
		got, err := capture.Endpoint(c.base, c.api)
		if err != nil || got != c.want {
			t.Errorf("Endpoint(%q, %q) = %q, %v; want %q", c.base, c.api, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "127.0.0.1:8000", "ftp://h/", "http://"} {
		if _, err := capture.Endpoint(bad, "chat"); err == nil {
			t.Errorf("Endpoint(%q): no error", bad)
		}
	}
}

// TestRefused: a server that refuses the connection ends the capture with
// ErrConnect, naming the endpoint.
func TestRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nobody listens there now
	var got collect
	sum, err := capture.Run(context.Background(), capture.Options{URL: "http://" + addr, Requests: 50, Concurrency: 2}, &got)
	if !errors.Is(err, capture.ErrConnect) || !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("error %v: want ErrConnect naming %s", err, addr)
	}
	if sum.Sent >= 50 {
		t.Errorf("sent %d requests to a refusing server: want it to stop early", sum.Sent)
	}
	for _, r := range got.reqs {
		if r.HTTPStatus != nil || r.Error == nil {
			t.Errorf("%s: status %v error %v, want no response and an error", r.RequestID, r.HTTPStatus, r.Error)
		}
	}
}

// TestAnswers: a 4xx body is kept in error (and in the chunks), a
// non-streaming 200 gets a warning and is counted, the request body
// carries the headers and what was asked.
func TestAnswers(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	var auth []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		switch {
		case strings.Contains(string(b), "[0]"):
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(400)
			io.WriteString(w, `{"error":{"message":"max_tokens is too large"}}`)
		case strings.Contains(string(b), "[1]"):
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"choices":[{"message":{"content":"hi"}}]}`)
		default:
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\ndata: [DONE]\n\n")
		}
	}))
	defer ts.Close()
	var warnings []string
	var got collect
	sum, err := capture.Run(context.Background(), capture.Options{
		URL: ts.URL, Requests: 3, Concurrency: 1, PromptWords: 2, MaxTokens: 9, Model: "m",
		Headers: http.Header{"Authorization": {"Bearer k"}},
		Warnf:   func(f string, a ...any) { warnings = append(warnings, f) },
	}, &got)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.reqs) != 3 {
		t.Fatalf("%d requests", len(got.reqs))
	}
	r0 := got.reqs[0]
	if r0.HTTPStatus == nil || *r0.HTTPStatus != 400 || r0.Error == nil || !strings.Contains(*r0.Error, "HTTP 400") || !strings.Contains(*r0.Error, "max_tokens is too large") {
		t.Errorf("400: status %v error %v: want the body in error", r0.HTTPStatus, r0.Error)
	}
	if len(r0.Chunks) == 0 {
		t.Errorf("400: the body is not in the chunks")
	}
	if r1 := got.reqs[1]; r1.Error != nil || sum.NonStreaming != 1 || len(warnings) != 1 || !strings.Contains(warnings[0], "non-streaming") {
		t.Errorf("non-streaming 200: error %v, counted %d, warnings %q", r1.Error, sum.NonStreaming, warnings)
	}
	if r2 := got.reqs[2]; r2.Failed() || len(r2.Chunks) == 0 {
		t.Errorf("streaming 200: %+v", r2)
	}
	for i, b := range bodies {
		if !strings.Contains(b, `"max_tokens":9`) || !strings.Contains(b, `"model":"m"`) || !strings.Contains(b, `"include_usage":true`) || auth[i] != "Bearer k" {
			t.Errorf("request %d: body %s, Authorization %q", i, b, auth[i])
		}
	}
	if sum.Failed != 1 || sum.ByOutcome["400"] != 1 || sum.ByOutcome["200"] != 2 {
		t.Errorf("summary %+v", sum)
	}
}

// slowServer streams one event, then waits for release (or the client to
// go away) before ending.
func slowServer(release <-chan struct{}, started *atomic.Int64) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body)
		started.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}))
}

// TestInterrupt: canceling the context stops sending; without Drain the
// requests in flight are canceled and left out, with Drain they finish
// and are kept.
func TestInterrupt(t *testing.T) {
	for _, drain := range []bool{false, true} {
		release := make(chan struct{})
		var started atomic.Int64
		ts := slowServer(release, &started)
		ctx, cancel := context.WithCancel(context.Background())
		var got collect
		done := make(chan struct{})
		var sum capture.Summary
		var err error
		go func() {
			sum, err = capture.Run(ctx, capture.Options{URL: ts.URL, Requests: 100, Concurrency: 3, PromptWords: 1, Drain: drain}, &got)
			close(done)
		}()
		for deadline := time.Now().Add(5 * time.Second); started.Load() < 3; {
			if time.Now().After(deadline) {
				t.Fatal("the requests never arrived")
			}
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
		if drain {
			time.Sleep(20 * time.Millisecond)
			close(release)
		}
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("Run did not return after the interrupt")
		}
		ts.Close()
		if err != nil {
			t.Fatal(err)
		}
		if sum.Sent != 3 || !sum.Interrupted {
			t.Errorf("drain %v: sent %d interrupted %v, want 3 and true", drain, sum.Sent, sum.Interrupted)
		}
		if drain {
			if len(got.reqs) != 3 || sum.Canceled != 0 {
				t.Errorf("drain: %d written, %d canceled: want 3 and 0", len(got.reqs), sum.Canceled)
			}
			for _, r := range got.reqs {
				if r.Failed() || !strings.HasSuffix(string(r.Chunks[len(r.Chunks)-1].Data), "[DONE]\n\n") {
					t.Errorf("drain: %s not finished: %+v", r.RequestID, r)
				}
			}
		} else if len(got.reqs) != 0 || sum.Canceled != 3 {
			t.Errorf("no drain: %d written, %d canceled: want 0 and 3", len(got.reqs), sum.Canceled)
		}
	}
}

// TestRate: with a rate cap, requests leave at least 1/rate apart.
func TestRate(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	defer ts.Close()
	var got collect
	if _, err := capture.Run(context.Background(), capture.Options{URL: ts.URL, Requests: 5, Concurrency: 5, Rate: 50, PromptWords: 1}, &got); err != nil {
		t.Fatal(err)
	}
	// 1/50 s = 20ms: the dispatcher never sends early, so request i leaves
	// no sooner than i x 20ms after the capture's clock starts (t0 0). A
	// loaded machine may send any of them late, and the next closer to it.
	for i, r := range got.reqs {
		if at, due := time.Duration(r.T0Ns), time.Duration(i)*20*time.Millisecond; at < due-time.Millisecond {
			t.Errorf("request %d sent at %v, before its turn at %v", i, at, due)
		}
	}
}

func TestReadPrompts(t *testing.T) {
	got, err := capture.ReadPrompts(strings.NewReader("\"a\"\n\n{\"prompt\": \"b\", \"id\": 3}\n  \"c\\n\"  \n"), "p.jsonl")
	if err != nil || strings.Join(got, "|") != "a|b|c\n" {
		t.Errorf("got %q, %v", got, err)
	}
	for _, bad := range []string{"", "\n\n", "a\n", "{\"prompt\": 3}\n", "\"a\"\n[1]\n", "{\"text\":\"x\"}"} {
		if _, err := capture.ReadPrompts(strings.NewReader(bad), "p.jsonl"); err == nil || !strings.HasPrefix(err.Error(), "p.jsonl") {
			t.Errorf("%q: error %v: want one naming the file", bad, err)
		}
	}
}

func FuzzReadPrompts(f *testing.F) {
	f.Add("\"a\"\n{\"prompt\":\"b\"}\n")
	f.Add("{\"prompt\":null}\n")
	f.Add("\n\n\"\\ud800\"\n")
	f.Fuzz(func(t *testing.T, s string) {
		ps, err := capture.ReadPrompts(strings.NewReader(s), "f")
		if err == nil && len(ps) == 0 {
			t.Errorf("no error and no prompts")
		}
	})
}

// A server that echoes the key of --header: the recording holds it masked,
// byte for byte, in the body and in the error.
func TestEchoedKeyMasked(t *testing.T) {
	const key = "sk-capture-echo-0123456789"
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(401)
		io.WriteString(w, `{"error":{"message":"Incorrect API key provided: `+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+`"}}`)
	}))
	defer ts.Close()
	var got collect
	sum, err := capture.Run(context.Background(), capture.Options{
		URL: ts.URL, Requests: 2, Concurrency: 1, PromptWords: 2, MaxTokens: 9, Model: "m",
		Headers: http.Header{"Authorization": {"Bearer " + key}},
	}, &got)
	if err != nil {
		t.Fatal(err)
	}
	mask := strings.Repeat("*", len(key))
	for _, r := range got.reqs {
		var body []byte
		for _, c := range r.Chunks {
			body = append(body, c.Data...)
		}
		if want := `{"error":{"message":"Incorrect API key provided: ` + mask + `"}}`; string(body) != want || r.Error == nil ||
			strings.Contains(*r.Error, key) || !strings.Contains(*r.Error, mask) {
			t.Errorf("recorded body %q, error %v", body, r.Error)
		}
	}
	if sum.Masked != 4 { // each request: its body and its error
		t.Errorf("masked %d, want 4", sum.Masked)
	}
}
