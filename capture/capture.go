// Package capture records a live OpenAI-compatible streaming endpoint the
// way AISBench's client drives one: a closed loop of Concurrency clients
// (each sends its next request when its previous one ends), optionally
// capped at a request rate, every request asking for a stream with usage
// (stream_options.include_usage, optionally continuous_usage_stats) and
// max_tokens. For each request it records t0 just before the request is
// sent and every read of the response body with its arrival time, on the
// monotonic clock (nanoseconds since the capture started), the status and
// any error.
//
// Requests are written in the order they were sent, as soon as they and
// every request sent before them have ended; with File the trace reaches
// the disk every few requests and every second, so a crash loses only the
// requests in flight and those that ended after the oldest one in flight
// was sent.
package capture

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"

	"github.com/sseaudit/sseaudit/redact"
	"github.com/sseaudit/sseaudit/trace"
)

// Options say what to send and how.
type Options struct {
	// URL is the server's base URL (http://host:port, with or without
	// /v1) or the full endpoint URL.
	URL string
	// API is "chat" (/v1/chat/completions) or "completions". When empty,
	// the API of the endpoint URL names, else chat.
	API         string
	Requests    int
	Concurrency int
	// Rate caps the request rate (requests/s): two requests are sent at
	// least 1/Rate apart. 0: no cap.
	Rate float64
	// Prompts are sent in turn (request i gets Prompts[i%len]); when empty,
	// request i gets a synthetic prompt of PromptWords words.
	Prompts     []string
	PromptWords int
	MaxTokens   int    // 0: not sent
	Model       string // "": not sent
	Headers     http.Header
	// ContinuousUsage asks for usage on every chunk
	// (stream_options.continuous_usage_stats, vLLM).
	ContinuousUsage bool
	// Timeout bounds one request, 0: none.
	Timeout time.Duration
	// MaxBodyBytes bounds the body bytes kept of one answer
	// (DefaultMaxBodyBytes when 0): a longer body is cut there, the
	// request marked failed. The memory of a capture is about
	// Concurrency × MaxBodyBytes at worst.
	MaxBodyBytes int64
	// Drain lets the requests in flight finish when ctx is canceled;
	// otherwise they are canceled and left out of the trace. Closing Abort
	// cancels them even when draining.
	Drain bool
	Abort <-chan struct{}
	// FlushEvery flushes the writer after this many requests
	// (DefaultFlushEvery when 0); FlushInterval after this long with
	// requests unflushed (1s when 0).
	FlushEvery    int
	FlushInterval time.Duration
	// Progress is called after each request ends (from one goroutine).
	Progress func(Progress)
	// Warnf reports oddities worth a line (the first non-streaming answer).
	Warnf func(format string, args ...any)
	// Client is the HTTP client (a fresh one sized for Concurrency when nil).
	Client *http.Client

	secrets redact.Secrets // set by Run: the credentials of Headers and URL, masked in what is recorded
}

// Progress is the state of a capture.
type Progress struct {
	Sent, Done, Failed, InFlight int
	Elapsed                      time.Duration
}

// DefaultMaxBodyBytes is Options.MaxBodyBytes when 0.
const DefaultMaxBodyBytes = 64 << 20

// Summary is what a capture did.
type Summary struct {
	// Written counts the requests handed to the writer; what reached the
	// disk is the File's to say (File.Requests).
	Sent, Written, Failed, Canceled int
	// ByOutcome counts requests by "200", "500", "error: <kind>", ...
	ByOutcome    map[string]int
	NonStreaming int // 200 answers that were not text/event-stream
	// Encoded counts answers by their Content-Encoding (decoded, or not
	// when unknown); Redirects the redirects recorded (not followed);
	// CutBodies the bodies cut at MaxBodyBytes.
	Encoded   map[string]int
	Redirects int
	CutBodies int
	BodyBytes int64
	// Masked counts the credentials (the values of --header's credential
	// headers) the server echoed, masked in the recording.
	Masked  int
	Elapsed time.Duration
	// GotResponse is set once any answer arrived from the server.
	GotResponse bool
	Interrupted bool
}

// Writer takes the captured requests in the order they were sent; *File is
// one. Flush, when the writer has it, is called every FlushInterval.
type Writer interface {
	Write(*trace.Request) error
}

// ExtraPrompt is the extra column holding each request's prompt.
const ExtraPrompt = "prompt"

// Extra is the extra columns of a captured trace.
func Extra() []trace.ExtraColumn {
	return []trace.ExtraColumn{{Name: ExtraPrompt, Kind: trace.ExtraString}}
}

// Meta is the run metadata of a capture with these options.
func Meta(o Options) (trace.Meta, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	var m trace.Meta
	m.Set(trace.KeySource, "audit capture")
	m.Set(trace.KeyMaxConcurrency, strconv.Itoa(o.Concurrency))
	if o.Rate > 0 {
		m.Set(trace.KeyRequestRate, strconv.FormatFloat(o.Rate, 'g', -1, 64))
	}
	u, _ := Endpoint(o.URL, o.API)
	m.Set(trace.KeyRunPrefix+"url", RedactURL(u))
	m.Set(trace.KeyRunPrefix+"api", o.API)
	m.Set(trace.KeyRunPrefix+"requests", strconv.Itoa(o.Requests))
	if o.Model != "" {
		m.Set(trace.KeyRunPrefix+"model", o.Model)
	}
	if o.MaxTokens > 0 {
		m.Set(trace.KeyRunPrefix+"max_tokens", strconv.Itoa(o.MaxTokens))
	}
	m.Set(trace.KeyRunPrefix+"continuous_usage", strconv.FormatBool(o.ContinuousUsage))
	m.Set(trace.KeyRunPrefix+"clock", "monotonic, ns since the capture started")
	return m, nil
}

func (o *Options) check() error {
	if o.API == "" {
		o.API = "chat"
		if u, err := url.Parse(o.URL); err == nil {
			if api := endpointAPI(strings.TrimRight(u.Path, "/")); api == "completions" {
				o.API = api
			}
		}
	}
	if o.API != "chat" && o.API != "completions" {
		return fmt.Errorf("api %q: want chat or completions", o.API)
	}
	if _, err := Endpoint(o.URL, o.API); err != nil {
		return err
	}
	if o.Requests < 1 {
		return fmt.Errorf("requests %d: want 1 or more", o.Requests)
	}
	if o.Concurrency < 1 {
		return fmt.Errorf("concurrency %d: want 1 or more", o.Concurrency)
	}
	if o.Rate < 0 || o.Rate != o.Rate {
		return fmt.Errorf("rate %v: want a positive number of requests a second", o.Rate)
	}
	// The gap between two requests must be a Duration: converted, a longer
	// one comes out negative, which would lift the cap instead.
	if o.Rate > 0 && float64(time.Second)/o.Rate >= math.MaxInt64 {
		return fmt.Errorf("rate %v: a request every %.3g years, longer than a time.Duration holds: want at least %.2g requests a second", o.Rate, 1/o.Rate/(365.25*24*3600), float64(time.Second)/math.MaxInt64)
	}
	if o.PromptWords <= 0 {
		o.PromptWords = 128
	}
	if o.FlushEvery <= 0 {
		o.FlushEvery = DefaultFlushEvery
	}
	if o.FlushInterval <= 0 {
		o.FlushInterval = time.Second
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	return nil
}

// RedactURL is u without what may be a credential (user and password, the
// query, the fragment), for the trace: the trace never holds one.
func RedactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(a URL that does not parse)"
	}
	p.User, p.RawQuery, p.ForceQuery, p.Fragment, p.RawFragment = nil, "", false, "", ""
	return p.String()
}

// Endpoint is the URL requests go to. A base URL (http://host:port, .../v1)
// gets api's endpoint path; an endpoint URL is kept as it is when it is
// api's, and refused when it is another's. Only the path is looked at: a
// query (Azure's ?api-version=) is kept as it is.
func Endpoint(base, api string) (string, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("url %q: want http://host:port or an endpoint URL", base)
	}
	p := strings.TrimRight(u.Path, "/")
	paths := map[string]string{"chat": "/chat/completions", "completions": "/completions"}
	switch ep := endpointAPI(p); {
	case ep == "":
		if !strings.HasSuffix(p, "/v1") {
			p += "/v1"
		}
		p += paths[api]
	case ep == api:
	case paths[ep] != "":
		// Refused, not warned: no use sends one API's body (messages, prompt) to the other's endpoint, which answers 4xx or misreads it under a trace saying api=<api>.
		other := strings.TrimSuffix(p, paths[ep]) + paths[api]
		return "", fmt.Errorf("url %q is the %s endpoint but api is %s (a %s body): use api %s, or a url with the path %s (the %s endpoint) or the server's base URL",
			RedactURL(base), ep, api, map[string]string{"chat": "messages", "completions": "prompt"}[api], ep, other, api)
	default:
		prefix := strings.TrimSuffix(p, strings.TrimPrefix("/"+ep, "/v1"))
		if prefix == "" { // SGLang's or TGI's /generate
			prefix = "/v1"
		}
		other := prefix + paths[api]
		return "", fmt.Errorf("url %q is the %s endpoint, which capture does not drive (chat or completions): give a url with the path %s (api %s) or the server's base URL",
			RedactURL(base), ep, other, api)
	}
	u.Path = p
	return u.String(), nil
}

// otherEndpoints are the endpoint paths, other than chat and completions,
// of the servers capture drives (OpenAI's, vLLM's, SGLang's, TGI's,
// Anthropic's): a base URL never ends in one.
var otherEndpoints = []string{
	"/embeddings", "/responses", "/moderations", "/messages", "/rerank", "/tokenize", "/detokenize",
	"/generate", "/generate_stream", "/v1/models",
	"/audio/speech", "/audio/transcriptions", "/audio/translations", "/images/generations",
}

// endpointAPI is the API whose endpoint the path p (without a trailing
// slash) is: "chat", "completions", another's endpoint ("embeddings",
// "v1/models"...), or "" for a base URL.
func endpointAPI(p string) string {
	switch {
	case strings.HasSuffix(p, "/chat/completions"):
		return "chat"
	case strings.HasSuffix(p, "/completions"):
		return "completions"
	}
	for _, e := range otherEndpoints {
		if strings.HasSuffix(p, e) {
			return strings.TrimPrefix(e, "/")
		}
	}
	return ""
}

// Body is the JSON body of request i.
func Body(o *Options, prompt string) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	if o.Model != "" {
		b.WriteString(`"model":`)
		writeJSON(&b, o.Model)
		b.WriteByte(',')
	}
	if o.API == "completions" {
		b.WriteString(`"prompt":`)
		writeJSON(&b, prompt)
	} else {
		b.WriteString(`"messages":[{"role":"user","content":`)
		writeJSON(&b, prompt)
		b.WriteString(`}]`)
	}
	if o.MaxTokens > 0 {
		b.WriteString(`,"max_tokens":`)
		b.WriteString(strconv.Itoa(o.MaxTokens))
	}
	b.WriteString(`,"stream":true,"stream_options":{"include_usage":true`)
	if o.ContinuousUsage {
		b.WriteString(`,"continuous_usage_stats":true`)
	}
	b.WriteString(`}}`)
	return b.Bytes()
}

func writeJSON(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	b.Truncate(b.Len() - 1) // Encode's newline
}

// SyntheticPrompt is request i's prompt when no prompts are given: unique,
// words of ordinary English.
func SyntheticPrompt(i, words int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%d]", i)
	for k := range words {
		b.WriteByte(' ')
		b.WriteString(promptWords[(i*7+k*13)%len(promptWords)])
	}
	return b.String()
}

var promptWords = strings.Fields(`tell me about the history of tea and how it travelled from one
country to another over many years with its trade routes ports ships and the people who carried it`)

// ErrConnect is wrapped by the error Run returns when the server cannot be
// reached before any response arrived.
var ErrConnect = errors.New("cannot connect")

type result struct {
	i        int
	req      *trace.Request
	canceled bool
	nonSSE   bool
	// contentType of the answer, for the warning
	contentType string
	// encoding is the answer's Content-Encoding ("" for none); redirect
	// where a redirect pointed (redacted); cut is set when the body was
	// cut at MaxBodyBytes.
	encoding, redirect string
	cut                bool
	masked             int // secrets masked in the error column before it was cut
}

// Run sends o.Requests requests and writes what came back to w, in the
// order they were sent. Canceling ctx stops sending (see Options.Drain).
// The error is for what stopped the capture (the writer, or a server that
// cannot be reached at all); failed requests are data in the trace.
func Run(ctx context.Context, o Options, w Writer) (Summary, error) {
	c := &capturing{o: &o, w: w, sum: Summary{ByOutcome: map[string]int{}, Encoded: map[string]int{}}}
	if err := o.check(); err != nil {
		return c.sum, err
	}
	c.endpoint, _ = Endpoint(o.URL, o.API)
	o.secrets = secretsOf(c.endpoint, o.Headers)
	c.client = o.Client
	if c.client == nil {
		c.client = newClient(o.Concurrency)
		defer c.client.CloseIdleConnections()
	}
	c.base = time.Now()

	// reqCtx cancels requests in flight: at once when ctx ends (unless
	// draining), on Abort, or on a fatal error.
	var cancelReqs context.CancelFunc
	c.reqCtx, cancelReqs = context.WithCancel(context.Background())
	defer cancelReqs()
	c.cancelReqs = cancelReqs
	var stop context.CancelFunc
	c.stopSending, stop = context.WithCancel(ctx)
	defer stop()
	c.stop = stop
	go c.watch(ctx)

	jobs := make(chan int)
	results := make(chan result, o.Concurrency)
	go c.dispatch(jobs)
	var wg sync.WaitGroup
	for range o.Concurrency {
		wg.Go(func() { c.send(jobs, results) })
	}
	go func() { wg.Wait(); close(results) }()
	c.collect(results)

	c.sum.Sent = int(c.sent.Load())
	c.sum.GotResponse = c.gotResponse.Load()
	c.sum.Elapsed = time.Since(c.base)
	c.sum.Interrupted = ctx.Err() != nil
	if c.werr != nil {
		return c.sum, c.werr
	}
	if f := c.fatal.Load(); f != nil {
		return c.sum, *f
	}
	return c.sum, nil
}

// newClient is a client of concurrency connections that hands the body
// bytes on as the server sent them and follows no redirect: a redirect
// would carry the request's headers (an api-key among them) to wherever it
// points, and the trace would show the answer under the URL asked; it is
// recorded as the answer instead.
func newClient(concurrency int) *http.Client {
	return &http.Client{CheckRedirect: noRedirects, Transport: &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        concurrency,
		MaxIdleConnsPerHost: concurrency,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true, // the body bytes as the server sent them
	}}
}

// secretsOf are the credentials among headers and those of the endpoint
// URL: its password and its query parameters named as credentials (?key=).
func secretsOf(endpoint string, headers http.Header) redact.Secrets {
	hr, err := http.NewRequest(http.MethodPost, endpoint, nil)
	if err != nil {
		return redact.FromHeader(headers)
	}
	hr.Header = headers
	return redact.FromRequest(hr)
}

func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// capturing is one Run: its clients send, its collector writes in order.
type capturing struct {
	o        *Options
	w        Writer
	endpoint string
	client   *http.Client
	base     time.Time // the trace's clock starts here

	reqCtx      context.Context // requests in flight
	cancelReqs  context.CancelFunc
	stopSending context.Context // no more requests are sent once done
	stop        context.CancelFunc

	fatal          atomic.Pointer[error]
	gotResponse    atomic.Bool
	sent, inFlight atomic.Int64

	sum  Summary
	werr error // the writer's, which stops the capture
}

// clock is the trace's clock: ns since the capture started.
func (c *capturing) clock() int64 { return int64(time.Since(c.base)) }

// watch cancels the requests in flight when ctx ends (unless draining: then
// on Abort), or at once on Abort, until they are canceled anyway.
func (c *capturing) watch(ctx context.Context) {
	select {
	case <-ctx.Done():
		if !c.o.Drain {
			c.cancelReqs()
			return
		}
		select {
		case <-c.o.Abort:
			c.cancelReqs()
		case <-c.reqCtx.Done():
		}
	case <-c.o.Abort:
		c.cancelReqs()
	case <-c.reqCtx.Done():
	}
}

// dispatch hands out request numbers in order, no faster than Rate.
func (c *capturing) dispatch(jobs chan<- int) {
	defer close(jobs)
	var last time.Time
	var gap time.Duration
	if c.o.Rate > 0 {
		gap = time.Duration(float64(time.Second) / c.o.Rate)
	}
	for i := 0; i < c.o.Requests; i++ {
		if gap > 0 && !last.IsZero() {
			if d := time.Until(last.Add(gap)); d > 0 {
				t := time.NewTimer(d)
				select {
				case <-t.C:
				case <-c.stopSending.Done():
					t.Stop()
					return
				}
			}
		}
		select {
		case jobs <- i:
			last = time.Now()
		case <-c.stopSending.Done():
			return
		}
	}
}

// send is one client of the closed loop: it sends each request it is
// handed and passes on what came back. A server refusing the connection
// before any response stops the capture.
func (c *capturing) send(jobs <-chan int, results chan<- result) {
	for i := range jobs {
		// Once the requests in flight are canceled, a request sent would
		// be canceled at once; and reqCtx may be canceled (the watch saw
		// ctx end) before stopSending is (ctx's cancel closes its Done
		// before it cancels its children).
		if c.stopSending.Err() != nil || c.reqCtx.Err() != nil {
			continue
		}
		c.sent.Add(1)
		c.inFlight.Add(1)
		res := c.o.do(c.reqCtx, c.client, c.endpoint, i, c.clock)
		c.inFlight.Add(-1)
		if res.req.HTTPStatus != nil {
			c.gotResponse.Store(true)
		} else if !c.gotResponse.Load() && isConnRefused(res.err) {
			e := fmt.Errorf("%w to %s: %v (is the server running?)", ErrConnect, c.endpoint, res.err)
			c.fatal.CompareAndSwap(nil, &e)
			c.stop()
		}
		results <- res.result
	}
}

// collect writes the results in send order as they come, flushing every
// FlushInterval, and reports progress.
func (c *capturing) collect(results <-chan result) {
	o := c.o
	pending := map[int]result{}
	next, unflushed := 0, 0
	flusher, _ := c.w.(interface{ Flush() error })
	ticker := time.NewTicker(o.FlushInterval)
	defer ticker.Stop()
	done, failed := 0, 0
	warned := map[string]bool{}
	warnOnce := func(kind, format string, args ...any) {
		if !warned[kind] && o.Warnf != nil {
			warned[kind] = true
			o.Warnf(format, args...)
		}
	}
	for {
		select {
		case r, ok := <-results:
			if !ok {
				// Requests that ended after one that never did (canceled
				// before it was sent) are written in order too.
				for len(pending) > 0 {
					if p, ok := pending[next]; ok {
						c.write(p, &unflushed)
						delete(pending, next)
					}
					next++
				}
				return
			}
			done++
			if r.req.Failed() && !r.canceled {
				failed++
			}
			if r.nonSSE {
				warnOnce("nonSSE", "request %s: a non-streaming answer (status %d, Content-Type %q): want text/event-stream; does the server ignore \"stream\": true?", r.req.RequestID, *r.req.HTTPStatus, r.contentType)
			}
			if r.encoding != "" {
				warnOnce("encoding "+r.encoding, "request %s: the answer is %s-encoded (Content-Encoding: %s) though none was asked for: %s", r.req.RequestID, r.encoding, r.encoding, encodingNote(r.encoding))
			}
			if r.redirect != "" {
				warnOnce("redirect", "request %s: the server redirects (status %d to %s): not followed (it would carry the request's headers there); the trace records the redirect: point --url at the endpoint itself", r.req.RequestID, *r.req.HTTPStatus, r.redirect)
			}
			if r.cut {
				warnOnce("cut", "request %s: the body passed %d bytes (limit --max-body-bytes): cut there, the request marked failed", r.req.RequestID, o.MaxBodyBytes)
			}
			pending[r.i] = r
			for {
				p, ok := pending[next]
				if !ok {
					break
				}
				delete(pending, next)
				next++
				c.write(p, &unflushed)
			}
			if o.Progress != nil {
				o.Progress(Progress{Sent: int(c.sent.Load()), Done: done, Failed: failed, InFlight: int(c.inFlight.Load()), Elapsed: time.Since(c.base)})
			}
		case <-ticker.C:
			if flusher != nil && unflushed > 0 && c.werr == nil {
				if err := flusher.Flush(); err != nil {
					c.fail(err)
				}
				unflushed = 0
			}
		}
	}
}

// write writes one result (a canceled request is counted, not written).
func (c *capturing) write(r result, unflushed *int) {
	switch {
	case r.canceled:
		c.sum.Canceled++
		return
	case c.werr != nil:
		return
	}
	c.sum.Masked += r.masked + c.o.secrets.Request(r.req)
	if err := c.w.Write(r.req); err != nil {
		c.fail(err)
		return
	}
	c.sum.Written++
	*unflushed++
	c.sum.BodyBytes += r.req.BodyBytes()
	c.sum.ByOutcome[outcome(r.req)]++
	if r.req.Failed() {
		c.sum.Failed++
	}
	if r.nonSSE {
		c.sum.NonStreaming++
	}
	if r.encoding != "" {
		c.sum.Encoded[r.encoding]++
	}
	if r.redirect != "" {
		c.sum.Redirects++
	}
	if r.cut {
		c.sum.CutBodies++
	}
}

// fail stops the capture on the writer's error.
func (c *capturing) fail(err error) {
	c.werr = err
	c.stop()
	c.cancelReqs()
}

type doResult struct {
	result
	err error
}

func (o *Options) prompt(i int) string {
	if len(o.Prompts) > 0 {
		return o.Prompts[i%len(o.Prompts)]
	}
	return SyntheticPrompt(i, o.PromptWords)
}

// do sends request i and reads its body.
func (o *Options) do(ctx context.Context, client *http.Client, endpoint string, i int, clock func() int64) doResult {
	prompt := o.prompt(i)
	req := &trace.Request{
		RequestID: fmt.Sprintf("cap-%06d", i),
		Extra:     []trace.Value{{Str: prompt}},
	}
	res := doResult{result: result{i: i, req: req}}
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Timeout)
		defer cancel()
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(Body(o, prompt)))
	if err != nil {
		panic(err) // the endpoint was checked
	}
	for k, vs := range o.Headers {
		for _, v := range vs {
			hr.Header.Add(k, v)
		}
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "text/event-stream")
	ended := func(err error) doResult {
		end := clock()
		req.EndNs = &end
		if err != nil {
			res.err = err
			if ctx.Err() != nil && (o.Timeout == 0 || !errors.Is(ctx.Err(), context.DeadlineExceeded)) {
				res.canceled = true
			}
			msg := err.Error()
			if req.Error != nil {
				msg = *req.Error + "; " + msg
			}
			req.Error = &msg
		}
		if req.Error != nil {
			// The error column is utf8: a server's Latin-1 status line or
			// error body, or one cut inside a character, would make the
			// whole trace unreadable. The bytes themselves are in the
			// chunks.
			msg := validText(*req.Error)
			req.Error = &msg
		}
		return res
	}
	req.T0Ns = clock()
	resp, err := client.Do(hr)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			ue.URL = RedactURL(ue.URL) // the trace never holds the query
		}
		return ended(err)
	}
	defer resp.Body.Close()
	status := int32(resp.StatusCode)
	req.HTTPStatus = &status
	ct := resp.Header.Get("Content-Type")
	res.contentType = ct
	if status == 200 && !strings.HasPrefix(strings.ToLower(ct), "text/event-stream") {
		res.nonSSE = true
	}
	if status >= 300 && status < 400 {
		if loc, err := resp.Location(); err == nil {
			res.redirect = RedactURL(loc.String())
		}
	}
	return ended(o.readBody(resp, &res, clock))
}

// readBody reads the answer's body into the request's chunks, each read
// with its arrival time, decoded when the server encoded it, cut at
// MaxBodyBytes; an error answer's body goes in the error column too.
func (o *Options) readBody(resp *http.Response, res *doResult, clock func() int64) error {
	req := res.req
	status := *req.HTTPStatus
	req.Chunks = []trace.Chunk{}
	var body []byte // of an error answer, for the error column
	defer func() {
		if status == 200 {
			return
		}
		res.masked = o.secrets.Bytes(body)
		e := errorText(resp, body[:min(len(body), maxErrorBody)])
		if res.redirect != "" {
			e += fmt.Sprintf("; a redirect to %s, not followed (capture follows no redirect)", res.redirect)
		}
		if req.Error != nil {
			e = *req.Error + "; " + e
		}
		req.Error = &e
	}()
	r, enc, err := decoded(resp)
	res.encoding = enc
	if err != nil {
		msg := err.Error()
		req.Error = &msg
	}
	if r == nil {
		return nil
	}
	if c, ok := r.(io.Closer); ok {
		defer c.Close()
	}
	buf := make([]byte, 64<<10)
	var total int64
	for {
		n, err := r.Read(buf)
		t := clock()
		if n > 0 {
			data := append([]byte(nil), buf[:n]...)
			req.Chunks = append(req.Chunks, trace.Chunk{TNs: t, Data: data})
			total += int64(n)
			// A secret the cut would split is kept whole, to be masked.
			if keep := maxErrorBody + o.secrets.MaxLen(); status != 200 && len(body) < keep {
				body = append(body, data[:min(len(data), keep-len(body))]...)
			}
		}
		if total > o.MaxBodyBytes {
			res.cut = true
			return fmt.Errorf("the body passed %d bytes (limit --max-body-bytes): the rest was not read", o.MaxBodyBytes)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// decoded is the answer's body as a client that decodes it reads it (as
// AISBench's does): gzip, deflate, br and zstd are decoded, and enc names
// the encoding; an encoding not known leaves the body as sent, with an
// error for the request.
func decoded(resp *http.Response) (r io.Reader, enc string, err error) {
	enc = strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding")))
	// What a decoder reads of its header is kept until it is known good:
	// a body that is not what it says is stored as sent.
	head := &headTee{r: resp.Body}
	var dr io.Reader
	switch enc {
	case "", "identity":
		return resp.Body, "", nil
	case "gzip", "x-gzip":
		dr, err = gzip.NewReader(head)
	case "deflate":
		dr, err = zlib.NewReader(head)
	case "br":
		dr = brotli.NewReader(head)
	case "zstd":
		var z *zstd.Decoder
		// RFC 8878: an HTTP zstd frame's window is 8 MB at most.
		if z, err = zstd.NewReader(head, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(8<<20)); err == nil {
			dr = z.IOReadCloser()
		}
	default:
		return resp.Body, enc, fmt.Errorf("Content-Encoding %q: not one capture decodes (gzip, deflate, br, zstd): the body is stored as sent", enc)
	}
	head.done = true
	if err != nil {
		return io.MultiReader(bytes.NewReader(head.b), resp.Body), enc, fmt.Errorf("Content-Encoding %s: %w: the body is stored as sent", enc, err)
	}
	return dr, enc, nil
}

// headTee keeps what is read through it until done.
type headTee struct {
	r    io.Reader
	b    []byte
	done bool
}

func (t *headTee) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if !t.done {
		t.b = append(t.b, p[:n]...)
	}
	return n, err
}

// encodingNote says what became of an encoded answer.
func encodingNote(enc string) string {
	switch enc {
	case "gzip", "x-gzip", "deflate", "br", "zstd":
		return "the trace holds the body decoded, as a client that decodes it reads it, each read at the time its bytes came out of the decoder"
	}
	return "capture cannot decode it: the body is stored as sent and the request marked failed"
}

const maxErrorBody = 2048

func errorText(resp *http.Response, body []byte) string {
	return fmt.Sprintf("HTTP %s: %s", resp.Status, strings.TrimSpace(string(body)))
}

// WholeAnswer reports whether a recorded request's error is only the one
// capture records for an answer other than 200 (its status line, then the
// body's first maxErrorBody bytes, trimmed), with nothing after it: the
// answer came whole and failed by its status alone. A replay sends it
// whole.
func WholeAnswer(req *trace.Request) bool {
	if req.Error == nil || req.HTTPStatus == nil || *req.HTTPStatus == http.StatusOK {
		return false
	}
	e := *req.Error
	if !strings.HasPrefix(e, "HTTP "+strconv.Itoa(int(*req.HTTPStatus))) {
		return false
	}
	var body []byte
	for _, c := range req.Chunks {
		body = append(body, c.Data...)
		if len(body) >= maxErrorBody {
			break
		}
	}
	return strings.HasSuffix(e, ": "+strings.TrimSpace(string(body[:min(len(body), maxErrorBody)])))
}

// validText is s with every byte that is not UTF-8 (a byte of another
// encoding, a character cut short) written \xNN.
func validText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			fmt.Fprintf(&b, "\\x%02x", s[i])
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func isConnRefused(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED)
}

// outcome is a request's row in the summary.
func outcome(r *trace.Request) string {
	switch {
	case r.HTTPStatus == nil:
		return "no response"
	case *r.HTTPStatus == 200 && r.Error != nil:
		return "200, cut mid-stream"
	default:
		return strconv.Itoa(int(*r.HTTPStatus))
	}
}

// ReadPrompts reads a prompts file: one prompt a line, each a JSON string or
// a JSON object with a "prompt" string; blank lines are skipped. name is
// the file's name for errors.
func ReadPrompts(r io.Reader, name string) ([]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	var prompts []string
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var s string
		if b[0] == '"' {
			if err := json.Unmarshal(b, &s); err != nil {
				return nil, fmt.Errorf("%s: line %d: want a JSON string or an object with a \"prompt\" string: %v", name, line, err)
			}
		} else {
			var o struct {
				Prompt *string `json:"prompt"`
			}
			if err := json.Unmarshal(b, &o); err != nil || o.Prompt == nil {
				msg := "no \"prompt\" string"
				if err != nil {
					msg = err.Error()
				}
				return nil, fmt.Errorf("%s: line %d: want a JSON string or an object with a \"prompt\" string: %s", name, line, msg)
			}
			s = *o.Prompt
		}
		prompts = append(prompts, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: line %d: %w", name, line+1, err)
	}
	if len(prompts) == 0 {
		return nil, fmt.Errorf("%s: no prompts: want one JSON string or {\"prompt\": ...} object a line", name)
	}
	return prompts, nil
}
