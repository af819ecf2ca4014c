package serve_test

import (
	"bytes"
	"fmt"
	"net"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sseaudit/sseaudit/internal/rawhttp"
	"github.com/sseaudit/sseaudit/internal/stallprobe"
	"github.com/sseaudit/sseaudit/serve"
	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/tracegen"
)

type collect struct{ reqs []*trace.Request }

func (c *collect) Write(r *trace.Request) error {
	cp := *r
	c.reqs = append(c.reqs, &cp)
	return nil
}

func genFile(t *testing.T, o tracegen.Options) ([]*trace.Request, string) {
	t.Helper()
	var c collect
	if _, err := tracegen.Generate(o, &c); err != nil {
		t.Fatal(err)
	}
	meta, _ := tracegen.Meta(o)
	path := filepath.Join(t.TempDir(), "gen.jsonl")
	w, err := trace.Create(path, "", nil, trace.WriteOptions{Meta: meta, Extra: tracegen.Extra()})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range c.reqs {
		w.Write(r)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return c.reqs, path
}

func newServer(t *testing.T, path string, opts serve.Options) (*serve.Server, *httptest.Server) {
	t.Helper()
	r, err := trace.Open(path, trace.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	s, err := serve.New(r, opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, ts
}

// rawPost sends a POST over a fresh TCP connection and decodes the chunked
// answer by hand: an independent client, not net/http's.
func rawPost(t *testing.T, addr, path, body string) rawhttp.Response {
	t.Helper()
	res, err := rawhttp.Post(addr, path, body, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestIndependentClient: a hand-written HTTP/1.1 client gets, for every
// request in turn, the trace's body byte for byte, written in the trace's
// reads (one HTTP chunk a read), the status, and the failures replayed.
func TestIndependentClient(t *testing.T) {
	for _, p := range []string{"failures", "mixed"} {
		t.Run(p, func(t *testing.T) { independentClient(t, p) })
	}
}

func independentClient(t *testing.T, profile string) {
	o := tracegen.Options{Profile: profile, Requests: 24, Concurrency: 2, Seed: 11, OutputTokens: 5, InputTokens: 3,
		TTFT: time.Millisecond, ITL: time.Millisecond, MinGap: 100 * time.Microsecond}
	want, path := genFile(t, o)
	_, ts := newServer(t, path, serve.Options{Speed: 4})
	addr := ts.Listener.Addr().String()
	seen := map[string]bool{}
	for i, w := range want {
		got := rawPost(t, addr, "/v1/chat/completions", `{"messages":[{"role":"user","content":"x"}],"stream":true}`)
		switch {
		case w.HTTPStatus == nil:
			seen["no response"] = true
			if got.Status != 0 {
				t.Errorf("request %d: got status %d, want the connection closed", i, got.Status)
			}
			continue
		case got.Status != int(*w.HTTPStatus):
			t.Errorf("request %d: status %d, want %d", i, got.Status, *w.HTTPStatus)
			continue
		}
		if got.Header["x-sseaudit-request-id"] != w.RequestID {
			t.Errorf("request %d: X-Sseaudit-Request-Id %q, want %q", i, got.Header["x-sseaudit-request-id"], w.RequestID)
		}
		var wb []byte
		for _, c := range w.Chunks {
			wb = append(wb, c.Data...)
		}
		if !bytes.Equal(got.Body, wb) {
			t.Errorf("request %d: body\n%q\nwant\n%q", i, got.Body, wb)
		}
		if len(got.Pieces) != len(w.Chunks) {
			t.Errorf("request %d: %d HTTP chunks, want one a read: %d", i, len(got.Pieces), len(w.Chunks))
		}
		if got.Cut() != (w.Error != nil) {
			t.Errorf("request %d: cut %v, want %v (error %v)", i, got.Cut(), w.Error != nil, w.Error)
		}
		switch {
		case w.Error != nil:
			seen["cut"] = true
		case *w.HTTPStatus != 200:
			seen["status"] = true
			if got.Header["content-type"] != "application/json" {
				t.Errorf("request %d: content type %q for an error", i, got.Header["content-type"])
			}
		default:
			seen["ok"] = true
			if got.Header["content-type"] != "text/event-stream" {
				t.Errorf("request %d: content type %q", i, got.Header["content-type"])
			}
		}
	}
	if profile == "failures" && len(seen) != 4 {
		t.Errorf("outcomes seen %v: want ok, status, cut and no response (pick another seed)", seen)
	}
	// The trace is spent: 503.
	if got := rawPost(t, addr, "/v1/completions", `{"prompt":"x"}`); got.Status != 503 {
		t.Errorf("after the last stream: status %d, want 503", got.Status)
	}
}

// TestTiming checks that reads are sent at their offsets after arrival,
// divided by the speed: a coarse check with generous bounds (writes are
// never early; lateness is bounded by 50ms, checked only when a probe
// goroutine was never held up 20ms or more meanwhile).
func TestTiming(t *testing.T) {
	o := tracegen.Options{Profile: "chat", Requests: 1, Seed: 1, OutputTokens: 4, InputTokens: 1,
		TTFT: 60 * time.Millisecond, ITL: 30 * time.Millisecond, MinGap: 10 * time.Millisecond}
	want, path := genFile(t, o)
	for _, speed := range []float64{1, 3} {
		_, ts := newServer(t, path, serve.Options{Speed: speed})
		c, err := net.Dial("tcp", ts.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		body := `{"prompt":"x"}`
		start := time.Now()
		fmt.Fprintf(c, "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
		probe := stallprobe.Start()
		buf := make([]byte, 1<<16)
		var arrivals []time.Duration // when the answer had reached ends[k] bytes
		var ends []int
		var all []byte
		for {
			n, err := c.Read(buf)
			if n > 0 {
				all = append(all, buf[:n]...)
				arrivals = append(arrivals, time.Since(start))
				ends = append(ends, len(all))
			}
			if err != nil {
				break
			}
		}
		c.Close()
		stall := probe.Stop()
		w := want[0]
		from := 0
		for k, ch := range w.Chunks {
			idx := bytes.Index(all[from:], ch.Data)
			if idx < 0 {
				t.Fatalf("speed %v: read %d %q not in the answer", speed, k, ch.Data)
			}
			end := from + idx + len(ch.Data)
			from = end
			var at time.Duration
			for j := range ends {
				if ends[j] >= end {
					at = arrivals[j]
					break
				}
			}
			due := time.Duration(float64(ch.TNs-w.T0Ns) / speed)
			if at < due {
				t.Errorf("speed %v: read %d complete %v after the request was sent, before it was due at %v", speed, k, at, due)
			}
			if at > due+50*time.Millisecond && stall < 20*time.Millisecond {
				t.Errorf("speed %v: read %d complete %v after the request was sent, due %v (+50ms at most)", speed, k, at, due)
			}
		}
	}
}

// TestMatch: with Match, each prompt gets its own stream, whatever the
// order requests come in, and an unknown prompt gets 404.
func TestMatch(t *testing.T) {
	o := tracegen.Options{Profile: "chat", Requests: 6, Seed: 4, OutputTokens: 3, InputTokens: 3,
		TTFT: time.Millisecond, ITL: time.Millisecond, MinGap: 100 * time.Microsecond}
	want, path := genFile(t, o)
	s, ts := newServer(t, path, serve.Options{Match: true, Speed: 10})
	addr := ts.Listener.Addr().String()
	var wg sync.WaitGroup
	errs := make(chan string, len(want))
	for i := len(want) - 1; i >= 0; i-- {
		wg.Add(1)
		go func(w *trace.Request) {
			defer wg.Done()
			api, body := "/v1/chat/completions", fmt.Sprintf(`{"messages":[{"role":"system","content":"be brief"},{"role":"user","content":%q}]}`, w.Extra[0].Str)
			if len(w.RequestID)%2 == 0 {
				api, body = "/v1/completions", fmt.Sprintf(`{"prompt":[%q]}`, w.Extra[0].Str)
			}
			got := rawPost(t, addr, api, body)
			if got.Header["x-sseaudit-request-id"] != w.RequestID {
				errs <- fmt.Sprintf("prompt of %s answered with %q", w.RequestID, got.Header["x-sseaudit-request-id"])
			}
		}(want[i])
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	select {
	case <-s.Exhausted():
	default:
		t.Errorf("every stream served, but Exhausted is not closed")
	}
	if got := rawPost(t, addr, "/v1/chat/completions", `{"messages":[{"role":"user","content":"unknown"}]}`); got.Status != 404 {
		t.Errorf("unknown prompt: status %d, want 404", got.Status)
	}
	if got := rawPost(t, addr, "/v1/chat/completions", `not json`); got.Status != 400 {
		t.Errorf("bad body: status %d, want 400", got.Status)
	}
}

func TestRequestPrompt(t *testing.T) {
	for _, c := range []struct {
		path, body, want string
		ok               bool
	}{
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"}]}`, "c", true},
		{"/v1/chat/completions", `{"messages":[{"role":"user","content":[{"type":"text","text":"x"},{"type":"image_url"},{"type":"text","text":"y"}]}]}`, "xy", true},
		{"/v1/chat/completions", `{"messages":[{"role":"system","content":"a"}]}`, "", false},
		{"/v1/completions", `{"prompt":"p"}`, "p", true},
		{"/v1/completions", `{"prompt":["p","q"]}`, "p", true},
		{"/v1/completions", `{"prompt":[1,2]}`, "", false},
		{"/v1/completions", `[]`, "", false},
	} {
		got, err := serve.RequestPrompt(c.path, []byte(c.body))
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("%s %s: %q, %v; want %q ok=%v", c.path, c.body, got, err, c.want, c.ok)
		}
	}
}

func FuzzRequestPrompt(f *testing.F) {
	f.Add(`{"messages":[{"role":"user","content":"a"}]}`, true)
	f.Add(`{"prompt":["p"]}`, false)
	f.Add(`{"messages":[{"role":"user","content":[{"type":"text","text":1}]}]}`, true)
	f.Fuzz(func(t *testing.T, body string, chat bool) {
		path := "/v1/completions"
		if chat {
			path = "/v1/chat/completions"
		}
		serve.RequestPrompt(path, []byte(body)) // must not panic
	})
}
