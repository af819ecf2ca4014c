package serve_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sseaudit/sseaudit/serve"
	"github.com/sseaudit/sseaudit/tracegen"
)

// limitedServer serves path through a LimitListener of n connections, the
// way audit serve does: the listener told which connections are idle.
func limitedServer(t *testing.T, n int, path string, opts serve.Options, srv *http.Server) string {
	t.Helper()
	s, _ := newServer(t, path, opts)
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := serve.LimitListener(raw, n)
	srv.Handler, srv.ConnState = s, l.ConnState
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return raw.Addr().String()
}

func servedTrace(t *testing.T, requests int) string {
	t.Helper()
	o := tracegen.Options{Profile: "chat", Requests: requests, Seed: 21, OutputTokens: 2, InputTokens: 2,
		TTFT: time.Millisecond, ITL: time.Millisecond, MinGap: 100 * time.Microsecond}
	_, path := genFile(t, o)
	return path
}

// postWithin sends a request on a fresh connection and fails the test when
// its answer takes longer than d.
func postWithin(t *testing.T, addr string, d time.Duration) int {
	t.Helper()
	done := make(chan int, 1)
	go func() {
		c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 30 * time.Second}
		resp, err := c.Post("http://"+addr+"/v1/chat/completions", "application/json", strings.NewReader(`{"messages":[{"role":"user","content":"x"}]}`))
		if err != nil {
			done <- -1
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	select {
	case code := <-done:
		return code
	case <-time.After(d):
		t.Fatalf("a new client waited more than %v: the connection slots are held", d)
		return 0
	}
}

// TestIssue21IdleKeepAliveConnections: clients that keep their connections
// open and idle (HTTP keep-alive) held every slot, for ever: a new client
// now takes the slot of the connection idle longest, timeouts or not.
func TestIssue21IdleKeepAliveConnections(t *testing.T) {
	addr := limitedServer(t, 4, servedTrace(t, 8), serve.Options{Speed: 100}, &http.Server{})
	for range 4 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
		if _, err := http.ReadResponse(bufio.NewReader(c), nil); err != nil {
			t.Fatal(err)
		}
	}
	if code := postWithin(t, addr, 5*time.Second); code != 200 {
		t.Fatalf("status %d", code)
	}
}

// TestIssue21SlowBodySenders: clients that send their headers and then
// their body a byte at a time (or never) are cut after the body timeout,
// and their slots go to others.
func TestIssue21SlowBodySenders(t *testing.T) {
	for _, match := range []bool{false, true} {
		t.Run("match="+strconv.FormatBool(match), func(t *testing.T) {
			addr := limitedServer(t, 2, servedTrace(t, 4), serve.Options{Speed: 100, Match: match, BodyTimeout: 300 * time.Millisecond}, &http.Server{})
			for range 2 {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"mess")
			}
			time.Sleep(50 * time.Millisecond)
			postWithin(t, addr, 5*time.Second)
		})
	}
}

// TestIssue21BodyMemory: with Match, the bodies held at once, all requests
// together, stay within MaxBodyMemory: a body that does not fit is answered
// 503 at once; a body over MaxBodyBytes 413. Without Match a body is not
// held at all: bodies larger than the budget are served.
func TestIssue21BodyMemory(t *testing.T) {
	opts := serve.Options{Speed: 100, Match: true, MaxBodyBytes: 1 << 20, MaxBodyMemory: 1 << 20, BodyTimeout: 5 * time.Second}
	addr := limitedServer(t, 16, servedTrace(t, 4), opts, &http.Server{})
	// A body of 600 KB, sent in part: the server holds room for it.
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 600000\r\n\r\n{\"messages\": ")
	time.Sleep(100 * time.Millisecond)
	big := `{"messages":[{"role":"user","content":"` + strings.Repeat("x", 500_000) + `"}]}`
	if got := rawPost(t, addr, "/v1/chat/completions", big); got.Status != http.StatusServiceUnavailable || !strings.Contains(string(got.Body), "limit --max-body-memory") {
		t.Errorf("a second body past the budget: status %d %s, want 503", got.Status, got.Body)
	}
	huge := strings.Repeat("x", 2<<20)
	if got := rawPost(t, addr, "/v1/chat/completions", huge); got.Status != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over MaxBodyBytes: status %d, want 413", got.Status)
	}
	c.Close()
	time.Sleep(100 * time.Millisecond)
	// The budget is back once the first request is gone: a small request
	// is read (its prompt is not in the trace: 404).
	if got := rawPost(t, addr, "/v1/chat/completions", `{"messages":[{"role":"user","content":"nobody"}]}`); got.Status != http.StatusNotFound {
		t.Errorf("after the first request ended: status %d, want 404", got.Status)
	}

	// Without Match: bodies are dropped as they come.
	addr = limitedServer(t, 16, servedTrace(t, 4), serve.Options{Speed: 100, MaxBodyBytes: 4 << 20, MaxBodyMemory: 1 << 20}, &http.Server{})
	body := strings.Repeat("y", 3<<20)
	for range 2 {
		if got := rawPost(t, addr, "/v1/chat/completions", body); got.Status != 200 {
			t.Errorf("a 3 MB body, budget 1 MB, no match: status %d, want 200", got.Status)
		}
	}
}

// TestIssue21StreamOutlivesBodyTimeout: the body timeout bounds the body
// only: a stream that lasts longer is not cut.
func TestIssue21StreamOutlivesBodyTimeout(t *testing.T) {
	o := tracegen.Options{Profile: "chat", Requests: 1, Seed: 21, OutputTokens: 6, InputTokens: 2,
		TTFT: 100 * time.Millisecond, ITL: 100 * time.Millisecond, MinGap: time.Millisecond}
	want, path := genFile(t, o)
	for _, match := range []bool{false, true} {
		addr := limitedServer(t, 2, path, serve.Options{Speed: 1, Match: match, BodyTimeout: 150 * time.Millisecond}, &http.Server{})
		body := fmt.Sprintf(`{"messages":[{"role":"user","content":%q}]}`, want[0].Extra[0].Str)
		resp, err := http.Post("http://"+addr+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		var all []byte
		for _, c := range want[0].Chunks {
			all = append(all, c.Data...)
		}
		if resp.StatusCode != 200 || err != nil || string(got) != string(all) {
			t.Errorf("match=%v: status %d, %v, %d of %d bytes", match, resp.StatusCode, err, len(got), len(all))
		}
	}
}
