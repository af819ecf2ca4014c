package tap

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sseaudit/sseaudit/internal/rawconn"
	"github.com/sseaudit/sseaudit/redact"
	"github.com/sseaudit/sseaudit/trace"
)

// Options say where to forward and what to record.
type Options struct {
	// Upstream is the server's base URL (scheme, host, optional base path):
	// a request for /v1/chat/completions goes to Upstream + that path.
	Upstream string
	// All records every exchange; otherwise only streamed ones (a request
	// body with "stream": true, or an answer of text/event-stream).
	All bool
	// MaxRequestBytes bounds a request body (DefaultMaxRequestBytes when
	// 0): a longer one is answered 413 and not forwarded.
	MaxRequestBytes int64
	// MaxRecordBytes bounds the answer bytes recorded of one exchange
	// (DefaultMaxRecordBytes when 0): the rest is forwarded, not recorded,
	// and the exchange marked failed in the trace.
	MaxRecordBytes int64
	// FlushInterval writes the exchanges not yet on disk this often (1s
	// when 0).
	FlushInterval time.Duration
	// Transport reaches the upstream (one sized for many streams when nil).
	Transport http.RoundTripper
	// Warnf reports what is worth a line (a failed write, once).
	Warnf func(format string, args ...any)
	// Clock times the exchanges (NewClock() when zero); Meta writes its
	// zero's readings.
	Clock Clock
}

// Defaults of Options.
const (
	DefaultMaxRequestBytes = 64 << 20
	DefaultMaxRecordBytes  = 64 << 20
)

// Writer takes the recorded exchanges in the order they end; *capture.File
// is one. Flush, when it has one, is called every FlushInterval.
type Writer interface {
	Write(*trace.Request) error
}

// Stats are what a Proxy did so far.
type Stats struct {
	Forwarded, Recorded int64
	Refused             int64 // requests the tap answered itself (413, 400), not forwarded
	Failed              int64 // recorded exchanges that failed
	PeakInFlight        int64 // the highest in_flight of the exchanges recorded
	BodyBytes           int64 // answer bytes recorded
	// Masked counts the credentials (a request's own header values) masked
	// in the recording: echoed by the server in a body or an error.
	Masked  int64
	Encoded map[string]int64
	// WriteErr is the writer's error that stopped the recording (the
	// proxy forwards on).
	WriteErr error
}

// Proxy forwards to the upstream and records. It is an http.Handler.
type Proxy struct {
	o      Options
	target *url.URL
	rp     *httputil.ReverseProxy
	clock  Clock

	ids      atomic.Int64
	inFlight atomic.Int64
	peak     atomic.Int64
	fwd      atomic.Int64
	refused  atomic.Int64
	cutting  atomic.Bool // Cut was called: the tap, not a client, ends the exchanges in flight

	done   chan *exchange
	wrote  chan struct{} // closed when the writer goroutine ends
	sendMu sync.RWMutex  // held to send on done; Close takes it to close done
	closed bool

	mu    sync.Mutex // the fields below, read by Stats
	stats Stats
}

// New makes a Proxy recording into w. Close it after the server serving it
// has shut down: it writes what is left.
func New(o Options, w Writer) (*Proxy, error) {
	target, err := ParseUpstream(o.Upstream)
	if err != nil {
		return nil, err
	}
	if o.MaxRequestBytes <= 0 {
		o.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if o.MaxRecordBytes <= 0 {
		o.MaxRecordBytes = DefaultMaxRecordBytes
	}
	if o.FlushInterval <= 0 {
		o.FlushInterval = time.Second
	}
	if o.Transport == nil {
		o.Transport = NewTransport()
	}
	if o.Clock == (Clock{}) {
		o.Clock = NewClock()
	}
	p := &Proxy{o: o, target: target, clock: o.Clock, done: make(chan *exchange, 1024), wrote: make(chan struct{})}
	p.stats.Encoded = map[string]int64{}
	p.rp = &httputil.ReverseProxy{
		Rewrite:        func(pr *httputil.ProxyRequest) { rewrite(pr, target) },
		Transport:      o.Transport,
		FlushInterval:  -1, // every read written and flushed as it comes
		BufferPool:     bufferPool{},
		ModifyResponse: p.modifyResponse,
		ErrorHandler:   p.errorHandler,
		ErrorLog:       log.New(io.Discard, "", 0),
	}
	go p.write(w)
	return p, nil
}

// rewrite points the outgoing request at target and undoes what
// ReverseProxy's Rewrite mode changes beyond the hop-by-hop headers: it
// drops the client's Forwarded and X-Forwarded-* headers and the query
// parameters url.ParseQuery rejects ("a;b", "50%"). Expect goes: the tap
// has read the body and answered the client's 100-continue itself.
func rewrite(pr *httputil.ProxyRequest, target *url.URL) {
	pr.SetURL(target)
	pr.Out.URL.RawQuery = pr.In.URL.RawQuery // target has none
	hop := map[string]bool{}
	for _, v := range pr.In.Header["Connection"] {
		for _, f := range strings.Split(v, ",") {
			hop[http.CanonicalHeaderKey(strings.TrimSpace(f))] = true
		}
	}
	for _, h := range []string{"Forwarded", "X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto"} {
		if v, ok := pr.In.Header[h]; ok && !hop[h] {
			pr.Out.Header[h] = v
		}
	}
	pr.Out.Header.Del("Expect")
}

// ParseUpstream checks an upstream URL: http or https, a host, no query.
func ParseUpstream(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("upstream %q: %v", s, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("upstream %q: want http://host:port or https://host:port, with an optional base path", s)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("upstream %q: want no query or fragment", s)
	}
	return u, nil
}

// NewTransport is the transport to the upstream: many connections kept
// alive, no compression asked for or undone (the body as the server sent
// it), no proxy from the environment, reads and writes as raw system calls
// (package rawconn: a stream's events come one by one, with idle moments
// between).
func NewTransport() *http.Transport {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return rawconn.Wrap(c), nil
		},
		MaxIdleConns:          4096,
		MaxIdleConnsPerHost:   4096,
		IdleConnTimeout:       90 * time.Second,
		DisableCompression:    true,
		ExpectContinueTimeout: time.Second,
	}
}

// bufferPool lends ReverseProxy its copy buffers: memory a stream, not a
// body.
type bufferPool struct{}

var buffers = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

func (bufferPool) Get() []byte  { return *buffers.Get().(*[]byte) }
func (bufferPool) Put(b []byte) { buffers.Put(&b) }

// exchange is one request and its answer as recorded.
type exchange struct {
	id       string
	t0       int64
	inFlight int64
	method   string
	path     string
	body     []byte
	stream   bool // the request asked for a stream
	// secrets are the request's credential header values, masked
	// wherever the recording holds them (a server may echo a key).
	secrets redact.Secrets

	mu          sync.Mutex // the answer, written by the body reader
	status      int
	got         bool // an answer arrived
	contentType string
	encoding    string
	data        []byte  // the answer's body as received
	ends        []int   // the end offset in data of each read
	times       []int64 // the arrival of each read
	end         int64
	ended       bool
	errs        []string
	cut         bool // MaxRecordBytes reached
}

type ctxKey struct{}

// ServeHTTP forwards r and records the exchange.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r, p.o.MaxRequestBytes)
	if err != nil {
		p.refused.Add(1)
		if errors.Is(err, errTooLarge) {
			http.Error(w, fmt.Sprintf("audit tap: request body over %d bytes (limit --max-request-bytes): not forwarded", p.o.MaxRequestBytes), http.StatusRequestEntityTooLarge)
		} else {
			http.Error(w, fmt.Sprintf("audit tap: %s %s: reading the request body: %v: not forwarded", r.Method, r.URL.Path, err), http.StatusBadRequest)
		}
		return
	}
	// Forwarded and in flight from here: a request the tap answers itself
	// (413, 400) never reaches the upstream.
	p.fwd.Add(1)
	n := p.inFlight.Add(1)
	defer p.inFlight.Add(-1)
	ex := &exchange{
		id: fmt.Sprintf("tap-%06d", p.ids.Add(1)), t0: p.clock.Now(), inFlight: n,
		method: r.Method, path: r.URL.Path, body: body, stream: asksStream(body),
		secrets: redact.FromRequest(r),
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if r.ContentLength == 0 {
		r.Body = http.NoBody
	}
	r = r.WithContext(context.WithValue(r.Context(), ctxKey{}, ex))
	defer func() {
		v := recover()
		p.finish(ex, r.Context())
		if v != nil {
			panic(v) // ReverseProxy's ErrAbortHandler: the client sees the cut
		}
	}()
	p.rp.ServeHTTP(w, r)
}

var errTooLarge = errors.New("request body too large")

// readBody reads r's body whole, at most max bytes.
func readBody(r *http.Request, max int64) ([]byte, error) {
	if r.ContentLength > max {
		return nil, errTooLarge
	}
	size := 512
	if r.ContentLength > 0 {
		size = int(r.ContentLength) + 1
	}
	buf := make([]byte, 0, size)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > max {
			return nil, errTooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// asksStream reports whether a request body is a JSON object with
// "stream": true.
func asksStream(body []byte) bool {
	var b struct {
		Stream bool `json:"stream"`
	}
	return json.Unmarshal(body, &b) == nil && b.Stream
}

func exchangeOf(r *http.Request) *exchange {
	ex, _ := r.Context().Value(ctxKey{}).(*exchange)
	return ex
}

// modifyResponse records the answer's status and headers and has its body
// recorded as it is read.
func (p *Proxy) modifyResponse(resp *http.Response) error {
	ex := exchangeOf(resp.Request)
	if ex == nil {
		return nil
	}
	ex.mu.Lock()
	ex.got, ex.status = true, resp.StatusCode
	ex.contentType = resp.Header.Get("Content-Type")
	ex.encoding = strings.TrimSpace(resp.Header.Get("Content-Encoding"))
	if resp.StatusCode == http.StatusSwitchingProtocols {
		// An upgraded connection (a WebSocket): ReverseProxy needs the
		// body as the connection's writer; what goes over it is not
		// recorded.
		ex.end, ex.ended = p.clock.Now(), true
		ex.mu.Unlock()
		return nil
	}
	ex.mu.Unlock()
	resp.Body = &recordingBody{rc: resp.Body, ex: ex, clock: p.clock, max: p.o.MaxRecordBytes}
	return nil
}

// errorHandler answers 502 when the upstream could not be reached (or gave
// no answer), and records why.
func (p *Proxy) errorHandler(w http.ResponseWriter, r *http.Request, err error) {
	if ex := exchangeOf(r); ex != nil {
		ex.fail(p.clock.Now(), err.Error())
	}
	if r.Context().Err() != nil {
		return // the client is gone
	}
	http.Error(w, "audit tap: the upstream did not answer: "+err.Error(), http.StatusBadGateway)
}

// recordingBody is the answer's body: each read recorded with its arrival
// time before ReverseProxy writes it on.
type recordingBody struct {
	rc    io.ReadCloser
	ex    *exchange
	clock Clock
	max   int64
}

func (b *recordingBody) Read(buf []byte) (int, error) {
	n, err := b.rc.Read(buf)
	t := b.clock.Now()
	ex := b.ex
	ex.mu.Lock()
	if n > 0 && !ex.cut {
		if int64(len(ex.data)+n) > b.max {
			ex.cut = true
			ex.errs = append(ex.errs, fmt.Sprintf("the answer passed %d bytes (limit --max-record-bytes): forwarded, the rest not recorded", b.max))
		} else {
			ex.data = append(ex.data, buf[:n]...)
			ex.ends = append(ex.ends, len(ex.data))
			ex.times = append(ex.times, t)
		}
	}
	switch {
	case err == io.EOF && !ex.ended:
		ex.end, ex.ended = t, true
	case err != nil && err != io.EOF && !ex.ended:
		ex.end, ex.ended = t, true
		ex.errs = append(ex.errs, "upstream: "+err.Error())
	}
	ex.mu.Unlock()
	return n, err
}

func (b *recordingBody) Close() error { return b.rc.Close() }

// fail ends the exchange with an error at t (the first end stands).
func (ex *exchange) fail(t int64, msg string) {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	if !ex.ended {
		ex.end, ex.ended = t, true
	}
	ex.errs = append(ex.errs, msg)
}

// ClientCanceled starts the error of an exchange whose client went away
// before its answer ended.
const ClientCanceled = "client_canceled"

// TapStopped starts the error of an exchange the tap itself cut (stopped
// by a second signal) before its answer ended.
const TapStopped = "tap_stopped"

// Cut says that the exchanges still in flight are about to be cut by the
// tap (its server closed), not by their clients: call it before closing
// the server.
func (p *Proxy) Cut() { p.cutting.Store(true) }

// finish hands the ended exchange to the writer when it is to be recorded.
func (p *Proxy) finish(ex *exchange, ctx context.Context) {
	now := p.clock.Now()
	ex.mu.Lock()
	switch {
	case ctx.Err() != nil && (!ex.ended || len(ex.errs) > 0) && ex.encoding == "" && endsWithDone(ex.data):
		// The client closed once it had the stream's last event, as
		// AISBench's client does (it stops at [DONE] and drops the
		// connection): the stream ended there.
		ex.errs = nil
		ex.end, ex.ended = ex.times[len(ex.times)-1], true
	case ctx.Err() != nil && (!ex.ended || len(ex.errs) > 0):
		// The client went away, or the tap cut it: whatever error the
		// upstream side saw followed from it.
		if p.cutting.Load() {
			ex.errs = []string{TapStopped + ": the tap was stopped (a second signal) before the answer ended"}
		} else {
			ex.errs = []string{ClientCanceled + ": the client closed the connection before the answer ended"}
		}
	}
	if !ex.ended {
		ex.end, ex.ended = now, true
		if len(ex.errs) == 0 && ex.got {
			ex.errs = append(ex.errs, "the answer was not read to its end")
		}
	}
	record := p.o.All || ex.stream || isEventStream(ex.contentType)
	ex.mu.Unlock()
	if !record {
		return
	}
	p.sendMu.RLock()
	defer p.sendMu.RUnlock()
	if !p.closed { // an exchange that outlives the server (a hijacked connection) is dropped
		// The peak is the in_flight column's, so that a file cut before
		// Finish holds it too.
		for old := p.peak.Load(); ex.inFlight > old && !p.peak.CompareAndSwap(old, ex.inFlight); old = p.peak.Load() {
		}
		p.done <- ex
	}
}

func isEventStream(ct string) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(ct)), "text/event-stream")
}

// endsWithDone reports whether a body ends with the event data: [DONE]
// (and its blank line, or part of it).
func endsWithDone(b []byte) bool {
	b = bytes.TrimRight(b, "\r\n")
	return bytes.HasSuffix(b, []byte("[DONE]")) && bytes.HasSuffix(bytes.TrimSpace(bytes.TrimSuffix(b, []byte("[DONE]"))), []byte("data:"))
}
