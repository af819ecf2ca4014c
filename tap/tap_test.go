package tap_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sseaudit/sseaudit/capture"
	"github.com/sseaudit/sseaudit/contentcoding"
	"github.com/sseaudit/sseaudit/tap"
	"github.com/sseaudit/sseaudit/trace"
	_ "github.com/sseaudit/sseaudit/trace/arrowfile"
)

const secret = "sk-tap-test-5ecret-KEY"

// rig is an upstream, a tap in front of it recording into a file, and a
// client of the tap.
type rig struct {
	t        *testing.T
	upstream *httptest.Server
	proxy    *tap.Proxy
	front    *httptest.Server
	file     *capture.File
	path     string
	client   *http.Client
}

// newRig starts the upstream and the tap in front of it; setup, if any,
// configures both servers before they start (setting them after would
// race with their connections).
func newRig(t *testing.T, upstream http.Handler, o tap.Options, setup ...func(upstream, front *http.Server)) *rig {
	t.Helper()
	r := &rig{t: t, upstream: httptest.NewUnstartedServer(upstream)}
	for _, f := range setup {
		f(r.upstream.Config, nil)
	}
	r.upstream.Start()
	o.Upstream = r.upstream.URL
	o.FlushInterval = 20 * time.Millisecond
	meta, err := tap.Meta(o, 0)
	if err != nil {
		t.Fatal(err)
	}
	r.path = filepath.Join(t.TempDir(), "run.arrows")
	if r.file, err = capture.CreateFile(r.path, trace.WriteOptions{Meta: meta, Extra: tap.Extra()}, 2); err != nil {
		t.Fatal(err)
	}
	if r.proxy, err = tap.New(o, r.file); err != nil {
		t.Fatal(err)
	}
	r.front = httptest.NewUnstartedServer(r.proxy)
	for _, f := range setup {
		f(nil, r.front.Config)
	}
	r.front.Start()
	r.client = &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 2048}}
	t.Cleanup(r.close)
	return r
}

// close stops everything and closes the file (once).
func (r *rig) close() {
	if r.front == nil {
		return
	}
	r.front.Close()
	r.proxy.Close()
	r.upstream.Close()
	r.file.Close()
	r.front = nil
}

// requests closes the rig and reads its trace back, decoded when decode.
func (r *rig) requests(decode bool) ([]*trace.Request, trace.Info) {
	r.t.Helper()
	r.close()
	tr, err := trace.Open(r.path, trace.OpenOptions{})
	if err != nil {
		r.t.Fatal(err)
	}
	defer tr.Close()
	var rd trace.Reader = tr
	if decode {
		rd = contentcoding.NewReader(tr)
	}
	var out []*trace.Request
	for rd.Scan() {
		out = append(out, rd.Request().Clone())
	}
	if err := rd.Err(); err != nil {
		r.t.Fatal(err)
	}
	return out, tr.Info()
}

func (r *rig) post(ctx context.Context, path, body string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.front.URL+path, strings.NewReader(body))
	if err != nil {
		r.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+secret)
	req.Header.Set("api-key", secret)
	req.Header.Set("X-Custom", "kept")
	return r.client.Do(req)
}

func extra(info trace.Info, req *trace.Request, name string) trace.Value {
	for i, x := range info.Extra {
		if x.Name == name {
			return req.Extra[i]
		}
	}
	return trace.Value{Null: true}
}

const chatBody = `{"model":"m","messages":[{"role":"user","content":"say hi"}],"stream":true}`

var events = []string{
	"data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n",
	"data: {\"choices\":[{\"delta\":{\"content\":\" there\"}}]}\n\n",
	"data: [DONE]\n\n",
}

// stepUpstream streams events, each only once step lets it: the test
// proves that an event reaches the client before the next is sent.
func stepUpstream(t *testing.T, step <-chan struct{}, seen *http.Request) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		*seen = *r.Clone(context.Background())
		seen.Body = io.NopCloser(bytes.NewReader(body))
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("X-Upstream", "yes")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		for _, e := range events {
			<-step
			io.WriteString(w, e)
			w.(http.Flusher).Flush()
		}
	}
}

// Each read reaches the client before the upstream sends the next; the
// request arrives unchanged; the trace holds every read, the prompt, the
// body, and no key.
func TestForwardsEachReadAndRecords(t *testing.T) {
	step := make(chan struct{})
	var seen http.Request
	r := newRig(t, stepUpstream(t, step, &seen), tap.Options{})
	resp, err := r.post(context.Background(), "/v1/chat/completions?x=1", chatBody)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("X-Upstream") != "yes" || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, headers %v", resp.StatusCode, resp.Header)
	}
	br := bufio.NewReader(resp.Body)
	var got strings.Builder
	for i, e := range events {
		step <- struct{}{}
		buf := make([]byte, len(e))
		if _, err := io.ReadFull(br, buf); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		got.Write(buf)
	}
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("after the last event: %v, want EOF", err)
	}
	resp.Body.Close()
	if got.String() != strings.Join(events, "") {
		t.Fatalf("client got %q", got.String())
	}
	b, _ := io.ReadAll(seen.Body)
	if seen.Method != "POST" || seen.URL.Path != "/v1/chat/completions" || seen.URL.RawQuery != "x=1" ||
		string(b) != chatBody || seen.Header.Get("Authorization") != "Bearer "+secret || seen.Header.Get("X-Custom") != "kept" ||
		seen.Header.Get("X-Forwarded-For") != "" {
		t.Fatalf("upstream saw %s %s %q, body %q, headers %v", seen.Method, seen.URL.Path, seen.URL.RawQuery, b, seen.Header)
	}

	reqs, info := r.requests(false)
	if len(reqs) != 1 {
		t.Fatalf("%d requests recorded, want 1", len(reqs))
	}
	q := reqs[0]
	if q.Failed() || len(q.Chunks) != len(events) {
		t.Fatalf("recorded %+v", q)
	}
	for i, c := range q.Chunks {
		if string(c.Data) != events[i] || c.TNs < q.T0Ns || (i > 0 && c.TNs < q.Chunks[i-1].TNs) || c.TNs > *q.EndNs {
			t.Errorf("chunk %d: %q at %d (t0 %d, end %d)", i, c.Data, c.TNs, q.T0Ns, *q.EndNs)
		}
	}
	if p := extra(info, q, tap.ColumnPrompt); p.Str != "say hi" {
		t.Errorf("prompt %+v", p)
	}
	if b := extra(info, q, tap.ColumnRequestBody); string(b.Bytes) != chatBody {
		t.Errorf("request body %q", b.Bytes)
	}
	if p := extra(info, q, tap.ColumnPath); p.Str != "/v1/chat/completions" {
		t.Errorf("path %+v", p)
	}
	if v, _ := info.Meta.Get(trace.KeySource); v != "tap" {
		t.Errorf("source %q", v)
	}
	raw, err := os.ReadFile(r.path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(secret)) || bytes.Contains(raw, []byte("kept")) {
		t.Fatalf("%s holds the API key or a request header", r.path)
	}
}

// gzipUpstream sends the events gzip-encoded, a flush after each, apart in
// time so that each is its own read.
func gzipUpstream(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Content-Encoding", "gzip")
	zw := gzip.NewWriter(w)
	for _, e := range events {
		io.WriteString(zw, e)
		zw.Flush()
		w.(http.Flusher).Flush()
		time.Sleep(10 * time.Millisecond)
	}
	zw.Close()
}

// A gzip answer reaches the client untouched, is recorded as received with
// its Content-Encoding, and reads back decoded.
func TestGzipPassesThrough(t *testing.T) {
	raw := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	direct, err := raw.Post(httptest.NewServer(http.HandlerFunc(gzipUpstream)).URL, "application/json", strings.NewReader(chatBody))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := io.ReadAll(direct.Body)
	direct.Body.Close()
	r := newRig(t, http.HandlerFunc(gzipUpstream), tap.Options{})
	resp, err := r.post(context.Background(), "/v1/chat/completions", chatBody)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Equal(got, want) || resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("client got %d bytes (Content-Encoding %q), upstream sent %d", len(got), resp.Header.Get("Content-Encoding"), len(want))
	}
	recorded, info := r.requests(false)
	var body []byte
	for _, c := range recorded[0].Chunks {
		body = append(body, c.Data...)
	}
	if !bytes.Equal(body, want) || extra(info, recorded[0], contentcoding.Column).Str != "gzip" {
		t.Fatalf("recorded %d bytes, encoding %+v", len(body), extra(info, recorded[0], contentcoding.Column))
	}
	dec, _ := r.requests(true)
	var text strings.Builder
	for _, c := range dec[0].Chunks {
		text.Write(c.Data)
	}
	// Each flushed event decodes at its own read; the gzip trailer's read adds none.
	if text.String() != strings.Join(events, "") || dec[0].Failed() || len(dec[0].Chunks) != len(events) {
		t.Fatalf("decoded to %d chunks (from %d reads) %q (error %v)", len(dec[0].Chunks), len(recorded[0].Chunks), text.String(), dec[0].Error)
	}
}

// An upstream that cuts the body: the client sees the cut, the trace the
// error; a client that goes away: client_canceled; no upstream: 502.
func TestFailuresRecorded(t *testing.T) {
	cut := make(chan struct{})
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, events[0])
		w.(http.Flusher).Flush()
		switch req.URL.Path {
		case "/reset":
			panic(http.ErrAbortHandler)
		case "/wait":
			<-req.Context().Done()
			close(cut)
		}
	}), tap.Options{})
	resp, err := r.post(context.Background(), "/reset", chatBody)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(resp.Body); err == nil {
		t.Errorf("the client read a cut body to a clean end")
	}
	resp.Body.Close()

	ctx, cancel := context.WithCancel(context.Background())
	resp, err = r.post(ctx, "/wait", chatBody)
	if err != nil {
		t.Fatal(err)
	}
	io.ReadFull(resp.Body, make([]byte, len(events[0])))
	cancel()
	resp.Body.Close()
	<-cut // the upstream saw the client go

	reqs, _ := r.requests(false)
	if len(reqs) != 2 {
		t.Fatalf("%d recorded, want 2", len(reqs))
	}
	byID := map[string]*trace.Request{}
	for _, q := range reqs {
		byID[q.RequestID] = q
	}
	if q := byID["tap-000001"]; q.Error == nil || !strings.Contains(*q.Error, "upstream") || len(q.Chunks) != 1 {
		t.Errorf("reset: %+v", q)
	}
	if q := byID["tap-000002"]; q.Error == nil || !strings.HasPrefix(*q.Error, tap.ClientCanceled) {
		t.Errorf("canceled: error %v", q.Error)
	}

	// No upstream at all.
	down := httptest.NewServer(http.NotFoundHandler())
	url := down.URL
	down.Close()
	p, err := tap.New(tap.Options{Upstream: url}, &collect{})
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	p.ServeHTTP(w, httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(chatBody)))
	p.Close()
	if w.Code != http.StatusBadGateway {
		t.Errorf("no upstream: status %d, want 502", w.Code)
	}
}

// collect is a Writer keeping the requests.
type collect struct {
	mu   sync.Mutex
	reqs []*trace.Request
}

func (c *collect) Write(r *trace.Request) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reqs = append(c.reqs, r.Clone())
	return nil
}

// Keep-alive: many exchanges over one client connection and one upstream
// connection; a content-length answer is not streamed and not recorded
// unless All.
func TestKeepAliveAndRecordAll(t *testing.T) {
	for _, all := range []bool{false, true} {
		var conns atomic.Int64
		up := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			if r.URL.Path == "/v1/models" {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Content-Length", "2")
				io.WriteString(w, "{}")
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, strings.Join(events, ""))
		})
		var front atomic.Int64
		r := newRig(t, up, tap.Options{All: all}, func(upstream, tapFront *http.Server) {
			count := func(n *atomic.Int64) func(net.Conn, http.ConnState) {
				return func(_ net.Conn, s http.ConnState) {
					if s == http.StateNew {
						n.Add(1)
					}
				}
			}
			if upstream != nil {
				upstream.ConnState = count(&conns)
			}
			if tapFront != nil {
				tapFront.ConnState = count(&front)
			}
		})
		for range 5 {
			resp, err := r.post(context.Background(), "/v1/chat/completions", chatBody)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			resp, err = r.client.Get(r.front.URL + "/v1/models")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(b) != "{}" || resp.ContentLength != 2 {
				t.Fatalf("GET /v1/models: %q, length %d", b, resp.ContentLength)
			}
		}
		reqs, _ := r.requests(false)
		want := 5
		if all {
			want = 10
		}
		if len(reqs) != want || front.Load() > 1 || conns.Load() > 1 {
			t.Errorf("all=%v: %d recorded (want %d); %d client connections, %d upstream connections (want 1 each)", all, len(reqs), want, front.Load(), conns.Load())
		}
	}
}

// At least 1,024 streams at once: the upstream holds every stream until
// all have arrived.
func TestManyStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("4,096 sockets")
	}
	const n = 1024
	var arrived atomic.Int64
	all := make(chan struct{})
	up := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, events[0])
		w.(http.Flusher).Flush()
		if arrived.Add(1) == n {
			close(all)
		}
		select {
		case <-all:
		case <-time.After(60 * time.Second):
			return
		}
		io.WriteString(w, events[1]+events[2])
	})
	r := newRig(t, up, tap.Options{})
	var wg sync.WaitGroup
	var failed atomic.Int64
	for range n {
		wg.Go(func() {
			resp, err := r.post(context.Background(), "/v1/chat/completions", chatBody)
			if err != nil {
				failed.Add(1)
				return
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || string(b) != strings.Join(events, "") {
				failed.Add(1)
			}
		})
	}
	wg.Wait()
	s := r.proxy.Stats()
	reqs, _ := r.requests(false)
	if failed.Load() > 0 || len(reqs) != n || s.PeakInFlight < n {
		t.Fatalf("%d failed, %d recorded, peak in flight %d; want 0, %d, %d", failed.Load(), len(reqs), s.PeakInFlight, n, n)
	}
	for _, q := range reqs {
		if q.Failed() {
			t.Fatalf("%s failed: %v", q.RequestID, *q.Error)
		}
	}
}

// Options that cannot work are refused.
func TestBadUpstream(t *testing.T) {
	for _, u := range []string{"", "127.0.0.1:8000", "ftp://x", "http://", "http://h/?key=1"} {
		if _, err := tap.New(tap.Options{Upstream: u}, &collect{}); err == nil {
			t.Errorf("upstream %q accepted", u)
		}
	}
}

// A request body over the limit is answered 413 and not forwarded.
func TestRequestTooLarge(t *testing.T) {
	var hits atomic.Int64
	r := newRig(t, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }), tap.Options{MaxRequestBytes: 10})
	resp, err := r.post(context.Background(), "/v1/chat/completions", chatBody)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || hits.Load() != 0 {
		t.Fatalf("status %d, %d forwarded", resp.StatusCode, hits.Load())
	}
}

// A client that closes once it has data: [DONE] (AISBench's does) ended
// the stream: no error; one that closes before: client_canceled.
func TestClientClosesAfterDone(t *testing.T) {
	hold := make(chan struct{})
	r := newRig(t, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, strings.Join(events, ""))
		w.(http.Flusher).Flush()
		select { // the chunked body's end is not sent yet
		case <-req.Context().Done():
		case <-hold:
		}
	}), tap.Options{})
	defer close(hold)
	resp, err := r.post(context.Background(), "/v1/chat/completions", chatBody)
	if err != nil {
		t.Fatal(err)
	}
	io.ReadFull(resp.Body, make([]byte, len(strings.Join(events, ""))))
	resp.Body.Close() // before the body's end: the connection is dropped
	for r.proxy.Stats().Recorded == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	reqs, _ := r.requests(false)
	if q := reqs[0]; q.Failed() || *q.EndNs != q.Chunks[len(q.Chunks)-1].TNs {
		t.Fatalf("closed after [DONE]: error %v", q.Error)
	}
}

// A server that echoes the key — in a 401's body, or in an event whose key
// is split over two reads — reaches the client as sent, and the recording
// holds it masked byte for byte, the reads' lengths kept.
func TestEchoedKeyMasked(t *testing.T) {
	echo := func(w http.ResponseWriter, req *http.Request) {
		io.Copy(io.Discard, req.Body)
		key := strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer ")
		if strings.Contains(req.URL.RawQuery, "deny") {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":{"message":"Incorrect API key provided: `+key+`"}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		ev := `data: {"choices":[{"delta":{"content":"` + key + `"}}]}` + "\n\n"
		cut := strings.Index(ev, key) + 6
		for _, part := range []string{ev[:cut], ev[cut:], "data: [DONE]\n\n"} {
			io.WriteString(w, part)
			w.(http.Flusher).Flush()
			time.Sleep(10 * time.Millisecond)
		}
	}
	r := newRig(t, http.HandlerFunc(echo), tap.Options{All: true})
	var sent []string
	for _, q := range []string{"?deny=1", ""} {
		resp, err := r.post(context.Background(), "/v1/chat/completions"+q, chatBody)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(b), secret) {
			t.Fatalf("the client did not get the server's bytes as sent: %q", b)
		}
		sent = append(sent, string(b))
	}
	reqs, _ := r.requests(false) // closes the proxy: every exchange written
	stats := r.proxy.Stats()
	raw, err := os.ReadFile(r.path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(secret)) {
		t.Fatalf("%s holds the echoed key", r.path)
	}
	if len(reqs) != 2 || stats.Masked != 2 {
		t.Fatalf("%d recorded, %d masked; want 2 and 2", len(reqs), stats.Masked)
	}
	mask := strings.Repeat("*", len(secret))
	for i, q := range reqs {
		var body strings.Builder
		for _, c := range q.Chunks {
			body.Write(c.Data)
		}
		if want := strings.ReplaceAll(sent[i], secret, mask); body.String() != want {
			t.Errorf("request %d recorded %q, want %q", i, body.String(), want)
		}
	}
	if n := len(reqs[1].Chunks); n < 2 {
		t.Errorf("the split event came in %d reads", n)
	}
}

// The peak in flight is the in_flight column's: a request the tap answers
// itself (413) is never forwarded and never counted, and an exchange in
// flight but not recorded (a plain JSON answer) counts in the in_flight of
// the streams beside it, not in a peak that no recorded row shows.
func TestPeakInFlightIsTheColumns(t *testing.T) {
	step := make(chan struct{})
	up := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.URL.Path == "/v1/models" {
			<-step // held while the stream starts
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"data":[]}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, events[0])
		w.(http.Flusher).Flush()
		<-step
		io.WriteString(w, events[1]+events[2])
	})
	r := newRig(t, up, tap.Options{MaxRequestBytes: int64(len(chatBody))})
	ctx := context.Background()
	models := make(chan error, 1)
	go func() {
		resp, err := r.post(ctx, "/v1/models", "{}")
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		models <- err
	}()
	for r.proxy.InFlight() != 1 {
		time.Sleep(time.Millisecond)
	}
	stream, err := r.post(ctx, "/v1/chat/completions", chatBody)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 { // refused by the tap while both are in flight
		resp, err := r.post(ctx, "/v1/chat/completions", chatBody+"   ")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("status %d, want 413", resp.StatusCode)
		}
	}
	if n := r.proxy.InFlight(); n != 2 {
		t.Errorf("in flight with a stream and a models request forwarded, 3 refused: %d, want 2", n)
	}
	close(step)
	if _, err := io.ReadAll(stream.Body); err != nil {
		t.Fatal(err)
	}
	stream.Body.Close()
	if err := <-models; err != nil {
		t.Fatal(err)
	}
	s := r.proxy.Stats()
	reqs, info := r.requests(false)
	if len(reqs) != 1 {
		t.Fatalf("%d recorded, want the stream alone", len(reqs))
	}
	col := extra(info, reqs[0], tap.ColumnInFlight)
	if s.Forwarded != 2 || s.Refused != 3 {
		t.Errorf("forwarded %d, refused %d; want 2 and 3", s.Forwarded, s.Refused)
	}
	if col.Int != 2 || s.PeakInFlight != col.Int {
		t.Errorf("the stream's in_flight %d, the peak %d; want 2 (the models request beside it) and the column's", col.Int, s.PeakInFlight)
	}
}
