// Package serve replays a trace as a live OpenAI-compatible streaming
// endpoint: the i-th request that arrives gets the trace's i-th stream (or,
// with Options.Match, the stream whose prompt it sends), with the same
// status, the same body bytes cut into the same writes, each write sent at
// the same time after the request's arrival as the trace's read arrived
// after its t0 (divided by Options.Speed), and the same failures: a
// request that got no response is answered by closing the connection, one
// that failed mid-stream by cutting the body after its last recorded read.
//
// Any client can then be measured against a stream whose truth is known.
// For that the server must be on time: one pacer releases every stream's
// writes at their due times (pacer.go), and with ArrivalListener and
// ConnContext a request arrives when its first byte reached the machine
// (arrival.go), not when the server got round to reading it.
package serve

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sseaudit/sseaudit/capture"
	"github.com/sseaudit/sseaudit/internal/openaibody"
	"github.com/sseaudit/sseaudit/trace"
)

// PromptColumn is the extra column Match reads the prompts from (the one
// `audit gen` and `audit capture` write).
const PromptColumn = "prompt"

// Options tune a Server.
type Options struct {
	// Speed divides every delay: 2 replays twice as fast. 0 means 1.
	Speed float64
	// Match answers each request with the stream whose prompt (the
	// trace's "prompt" column) equals the request's: the last user message
	// of a chat request, the prompt of a completions request. Streams with
	// the same prompt are used in trace order. Match holds the whole trace
	// in memory.
	Match bool
	// Logf, when set, gets one line a served request.
	Logf func(format string, args ...any)
	// MaxBodyBytes bounds one request body (DefaultMaxBodyBytes when 0):
	// a longer one is answered 413.
	MaxBodyBytes int64
	// MaxBodyMemory bounds the request bodies held at once, all requests
	// together (DefaultMaxBodyMemory when 0): a body that would pass it
	// is answered 503. Only Match holds bodies (to read their prompts);
	// otherwise a body is read and dropped as it comes.
	MaxBodyMemory int64
	// BodyTimeout bounds the time a client takes to send its request
	// body (none when 0): a slower one is cut.
	BodyTimeout time.Duration
	// ReadAhead is the bytes of streams read ahead of the requests, in
	// order (DefaultReadAhead when 0): a trace that fits is decoded whole
	// before the first request, since decoding a stream while others are
	// written holds up, on one thread (serve --realtime), every write due
	// meanwhile. Past it, a stream is read as one is handed out.
	ReadAhead int64
}

// Defaults of Options.
const (
	DefaultMaxBodyBytes  = 64 << 20
	DefaultMaxBodyMemory = 256 << 20
	DefaultReadAhead     = 64 << 20
)

// Server answers requests with the streams of a trace. It is an
// http.Handler.
type Server struct {
	opts   Options
	path   string // the trace's, for messages
	bodies budget // of the request bodies held at once

	mu     sync.Mutex
	src    trace.Reader // in order: streams are read ahead (fill)
	srcErr error        // the error reading src, once the streams before it are handed out
	// ahead are the streams read and not yet handed out, in order, and
	// their bytes; readErr ended the reading, told (srcErr) when they are.
	ahead      []*trace.Request
	aheadBytes int64
	readErr    error
	total      int // streams in the trace (Match), or read so far
	byPrompt   map[string][]*trace.Request
	promptAt   int

	pacer *pacer // releases every stream's writes at their times

	inFlight sync.WaitGroup
	served   atomic.Int64
	ended    chan struct{} // closed when the last stream is handed out (in order)
	endOnce  sync.Once
}

// New makes a Server that reads its streams from r. In order (without
// Match) it reads r ahead, up to Options.ReadAhead bytes of streams, then a
// stream as one is handed out: a trace of any size can be served, and one
// that fits is decoded before the first request. With Match it reads r
// whole first. The caller closes r after the server is done.
func New(r trace.Reader, opts Options) (*Server, error) {
	if opts.Speed == 0 {
		opts.Speed = 1
	}
	if opts.Speed < 0 || opts.Speed != opts.Speed {
		return nil, fmt.Errorf("speed %v: want a positive number", opts.Speed)
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	// No limit at all: MaxBodyBytes+1 and the parse's 3× must not wrap.
	opts.MaxBodyBytes = min(opts.MaxBodyBytes, math.MaxInt64/4)
	if opts.MaxBodyMemory <= 0 {
		opts.MaxBodyMemory = DefaultMaxBodyMemory
	}
	if opts.ReadAhead <= 0 {
		opts.ReadAhead = DefaultReadAhead
	}
	s := &Server{opts: opts, src: r, promptAt: -1, ended: make(chan struct{}), bodies: budget{left: opts.MaxBodyMemory},
		pacer: newPacer(newAlarm())}
	info := r.Info()
	s.path = info.Path
	for i, x := range info.Extra {
		if x.Name == PromptColumn && (x.Kind == trace.ExtraString || x.Kind == trace.ExtraJSON) {
			s.promptAt = i
		}
	}
	if !opts.Match {
		s.fill()
		if len(s.ahead) > 0 && s.ahead[0].TimePointsOnly() {
			return nil, timePointsOnly(info.Path, s.ahead[0])
		}
		return s, s.srcErr
	}
	if s.promptAt < 0 {
		return nil, fmt.Errorf("%s: --match needs a %q column of text (written by audit gen and audit capture): the trace has none", info.Path, PromptColumn)
	}
	kind := info.Extra[s.promptAt].Kind
	s.byPrompt = map[string][]*trace.Request{}
	for r.Scan() {
		req := r.Request().Clone()
		if req.TimePointsOnly() {
			return nil, timePointsOnly(info.Path, req)
		}
		p, err := promptValue(req.Extra[s.promptAt], kind)
		if err != nil {
			return nil, fmt.Errorf("%s: request %q: column %s: %v", info.Path, req.RequestID, PromptColumn, err)
		}
		s.byPrompt[p] = append(s.byPrompt[p], req)
		s.total++
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	s.src = nil
	if s.total == 0 {
		close(s.ended)
	}
	return s, nil
}

// timePointsOnly is the error of a trace that holds what a client recorded,
// not the bytes it read: there is nothing to send.
func timePointsOnly(path string, req *trace.Request) error {
	return fmt.Errorf("%s: request %s holds time points only, not the bytes of its stream (a trace imported from another tool's records): there is nothing to serve; audit report and audit check read it, audit capture or audit tap record a trace that can be served",
		path, trace.QuoteID(req.RequestID))
}

func promptValue(v trace.Value, kind trace.ExtraKind) (string, error) {
	if v.Null {
		return "", nil
	}
	if kind == trace.ExtraJSON {
		var s string
		if err := json.Unmarshal([]byte(v.Str), &s); err != nil {
			return "", fmt.Errorf("want a JSON string: %v", err)
		}
		return s, nil
	}
	return v.Str, nil
}

// Exhausted is closed when every stream of the trace has been handed out.
func (s *Server) Exhausted() <-chan struct{} { return s.ended }

// Wait waits for the requests being answered to end.
func (s *Server) Wait() { s.inFlight.Wait() }

// Served is the number of streams handed out so far.
func (s *Server) Served() int64 { return s.served.Load() }

// Err is the error that stopped reading the trace, if any.
func (s *Server) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.srcErr
}

// nextStream takes the next stream in trace order, or nil at the end. At
// least one stream is read ahead, so that the end is known when the last
// stream is handed out.
func (s *Server) nextStream() (*trace.Request, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.ahead) == 0 {
		return nil, s.srcErr
	}
	req := s.ahead[0]
	s.ahead[0] = nil
	s.ahead = s.ahead[1:]
	s.aheadBytes -= streamBytes(req)
	// Counted before the end is told (fill): Wait, called once it is,
	// never sees the count rise from zero.
	s.inFlight.Add(1)
	s.fill()
	return req, nil
}

// fill reads streams ahead until Options.ReadAhead bytes are held (at
// least one stream), or the trace ends. The end, and an error reading it (kept in readErr),
// are told (srcErr, Exhausted) once every stream before them is handed out.
func (s *Server) fill() {
	for s.src != nil && (len(s.ahead) == 0 || s.aheadBytes < s.opts.ReadAhead) {
		if !s.src.Scan() {
			s.readErr = s.src.Err()
			s.src = nil
			break
		}
		req := s.src.Request().Clone()
		s.ahead = append(s.ahead, req)
		s.aheadBytes += streamBytes(req)
		s.total++
	}
	if s.src == nil && len(s.ahead) == 0 {
		s.srcErr = s.readErr
		s.endOnce.Do(func() { close(s.ended) })
	}
}

// streamBytes is about the memory a stream read ahead holds: its reads'
// bytes, and a little for each read and request-level value.
func streamBytes(req *trace.Request) int64 {
	n := int64(256)
	for _, c := range req.Chunks {
		n += int64(len(c.Data)) + 32
	}
	for _, v := range req.Extra {
		n += int64(len(v.Str)+len(v.Bytes)) + 64
	}
	return n
}

// matchStream takes the next stream with the prompt p, or nil.
func (s *Server) matchStream(p string) *trace.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.byPrompt[p]
	if len(q) == 0 {
		return nil
	}
	req := q[0]
	if len(q) == 1 {
		delete(s.byPrompt, p)
	} else {
		s.byPrompt[p] = q[1:]
	}
	s.inFlight.Add(1) // before the end is told, as in nextStream
	if len(s.byPrompt) == 0 {
		s.endOnce.Do(func() { close(s.ended) })
	}
	return req
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	arrival := arrivalOf(r.Context(), time.Now())
	defer forgetArrival(r.Context()) // what is read from now on is the next request's
	switch {
	case r.Method == http.MethodGet && (r.URL.Path == "/health" || r.URL.Path == "/v1/health"):
		w.WriteHeader(http.StatusOK)
		return
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"list","data":[{"id":"sseaudit-serve","object":"model","owned_by":"sseaudit"}]}`)
		return
	case r.URL.Path == "/v1/chat/completions" || r.URL.Path == "/v1/completions":
		if r.Method != http.MethodPost {
			jsonError(w, http.StatusMethodNotAllowed, "use POST")
			return
		}
	default:
		jsonError(w, http.StatusNotFound, "no such endpoint: want POST /v1/chat/completions or /v1/completions")
		return
	}
	var req *trace.Request
	if s.opts.Match {
		p, status, err := s.readPrompt(w, r)
		if err != nil {
			if status != 0 {
				jsonError(w, status, err.Error())
			}
			return
		}
		if req = s.matchStream(p); req == nil {
			jsonError(w, http.StatusNotFound, "no stream left in the trace for this prompt")
			s.logf("%s %s: no stream left for prompt %.40q", r.RemoteAddr, r.URL.Path, p)
			return
		}
	} else {
		if status, err := s.dropBody(w, r); err != nil {
			if status != 0 {
				jsonError(w, status, err.Error())
			}
			return
		}
		var err error
		req, err = s.nextStream()
		if err != nil {
			jsonError(w, http.StatusInternalServerError, "reading the trace: "+err.Error())
			return
		}
		if req == nil {
			jsonError(w, http.StatusServiceUnavailable, "trace exhausted: every stream has been served")
			return
		}
	}
	defer s.inFlight.Done() // Added as the stream was handed out
	s.served.Add(1)
	s.replay(w, r, req, arrival)
}

// bodyDeadline gives the client Options.BodyTimeout to send its body: the
// connection's read deadline, cleared by the returned function once the
// body is read (net/http clears it too as it starts watching for the
// client going away, but the stream that follows must not depend on it).
// When the body is not read to its end the deadline stays, so that the
// server's own reading of what is left cannot hold the connection.
func (s *Server) bodyDeadline(w http.ResponseWriter) func() {
	if s.opts.BodyTimeout <= 0 {
		return func() {}
	}
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(s.opts.BodyTimeout)) != nil {
		return func() {}
	}
	return func() { rc.SetReadDeadline(time.Time{}) }
}

// tooLarge is the error of a body over Options.MaxBodyBytes.
func (s *Server) tooLarge() (int, error) {
	return http.StatusRequestEntityTooLarge, fmt.Errorf("request body over %d bytes (limit --max-body-bytes)", s.opts.MaxBodyBytes)
}

// dropBody reads the request body to its end without keeping it. A status
// of 0 with an error: the client is gone or too slow, nothing to answer.
func (s *Server) dropBody(w http.ResponseWriter, r *http.Request) (int, error) {
	read := s.bodyDeadline(w)
	n, err := io.Copy(io.Discard, io.LimitReader(r.Body, s.opts.MaxBodyBytes+1))
	if err != nil {
		return 0, err
	}
	if n > s.opts.MaxBodyBytes {
		return s.tooLarge()
	}
	read()
	return 0, nil
}

// readPrompt reads the request body within the server's body budget and
// returns its prompt. Reading a body to its prompt holds the body and its
// parse (encoding/json: the message copied raw, unquoted, made a string,
// about three times the body again): all of it is taken from the budget,
// and given back once the prompt is read.
func (s *Server) readPrompt(w http.ResponseWriter, r *http.Request) (string, int, error) {
	read := s.bodyDeadline(w)
	held := int64(0)
	defer func() { s.bodies.give(held) }()
	busy := func() (string, int, error) {
		return "", http.StatusServiceUnavailable, fmt.Errorf("the server holds %d bytes of request bodies at most (limit --max-body-memory): busy, try again", s.opts.MaxBodyMemory)
	}
	take := func(n int64) bool {
		if !s.bodies.take(n) {
			return false
		}
		held += n
		return true
	}
	size := int64(4 << 10)
	if r.ContentLength > s.opts.MaxBodyBytes {
		status, err := s.tooLarge()
		return "", status, err
	}
	if r.ContentLength >= 0 {
		size = r.ContentLength + 1 // the +1 reads the end
	}
	if !take(size) {
		return busy()
	}
	body := make([]byte, 0, size)
	for {
		if len(body) == cap(body) {
			grow := int64(cap(body))
			if int64(len(body)) >= s.opts.MaxBodyBytes+1 {
				break
			}
			grow = min(grow, s.opts.MaxBodyBytes+1-int64(len(body)))
			if !take(grow) {
				return busy()
			}
			nb := make([]byte, len(body), int64(cap(body))+grow)
			copy(nb, body)
			body = nb
		}
		n, err := r.Body.Read(body[len(body):cap(body)])
		body = body[:len(body)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", 0, err
		}
	}
	if int64(len(body)) > s.opts.MaxBodyBytes {
		status, err := s.tooLarge()
		return "", status, err
	}
	read()
	if !take(3 * int64(len(body))) {
		return busy()
	}
	p, err := RequestPrompt(r.URL.Path, body)
	if err != nil {
		return "", http.StatusBadRequest, err
	}
	return p, 0, nil
}

// budget is a count of bytes shared by the requests being answered.
type budget struct {
	mu   sync.Mutex
	left int64
}

// take takes n bytes if there are so many left.
func (b *budget) take(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > b.left {
		return false
	}
	b.left -= n
	return true
}

func (b *budget) give(n int64) {
	b.mu.Lock()
	b.left += n
	b.mu.Unlock()
}

func (s *Server) logf(format string, args ...any) {
	if s.opts.Logf != nil {
		s.opts.Logf(format, args...)
	}
}

// at is when the read at tNs of req is due. A delay no Duration holds
// (centuries: a huge offset, a tiny speed) is the longest one: converted,
// it would come out negative, a time past.
func (s *Server) at(arrival time.Time, req *trace.Request, tNs int64) time.Time {
	d := float64(tNs-req.T0Ns) / s.opts.Speed
	if d >= math.MaxInt64 { // 2^63 as a float64
		return arrival.Add(math.MaxInt64)
	}
	return arrival.Add(time.Duration(d))
}

// schedule puts the due times of req's reads (when withReads), then its
// end's, on the pacer: the k-th due time is the k-th read's, the last the
// end's.
func (s *Server) schedule(arrival time.Time, req *trace.Request, withReads bool) *pace {
	n := 0
	if withReads {
		n = len(req.Chunks)
	}
	dues := make([]time.Duration, 0, n+1)
	for _, c := range req.Chunks[:n] {
		dues = append(dues, s.pacer.since(s.at(arrival, req, c.TNs)))
	}
	end := arrival
	if req.EndNs != nil {
		end = s.at(arrival, req, *req.EndNs)
	}
	return s.pacer.start(append(dues, s.pacer.since(end)))
}

func (s *Server) replay(w http.ResponseWriter, r *http.Request, req *trace.Request, arrival time.Time) {
	if req.TimePointsOnly() { // a trace mixing both kinds: refused, never an empty 200
		s.logf("%s %s: %s: time points only, no bytes to serve", r.RemoteAddr, r.URL.Path, req.RequestID)
		http.Error(w, timePointsOnly(s.path, req).Error(), http.StatusInternalServerError)
		return
	}
	ctx := r.Context()
	if req.HTTPStatus == nil {
		// No response arrived: close the connection without one.
		p := s.schedule(arrival, req, false)
		p.wait(ctx, 0)
		s.pacer.stop(p)
		s.logf("%s %s: %s: no response (connection closed)", r.RemoteAddr, r.URL.Path, req.RequestID)
		panic(http.ErrAbortHandler)
	}
	status := int(*req.HTTPStatus)
	if status < 100 || status > 999 {
		status = http.StatusInternalServerError
	}
	h := w.Header()
	h.Set("X-Sseaudit-Request-Id", headerID(req.RequestID))
	h.Set("Cache-Control", "no-cache")
	if status == http.StatusOK {
		h.Set("Content-Type", "text/event-stream")
	} else {
		h.Set("Content-Type", "application/json")
	}
	rc := http.NewResponseController(w)
	headerSent := false
	sendHeader := func() {
		if !headerSent {
			w.WriteHeader(status)
			headerSent = true
		}
	}
	if status == http.StatusOK {
		// A streaming server answers at once; an error comes with its body.
		sendHeader()
		if err := rc.Flush(); err != nil {
			return
		}
	}
	p := s.schedule(arrival, req, true)
	defer s.pacer.stop(p)
	for k, c := range req.Chunks {
		if !p.wait(ctx, k) {
			return
		}
		sendHeader()
		if _, err := w.Write(c.Data); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
	}
	if !p.wait(ctx, len(req.Chunks)) {
		return
	}
	if req.Error != nil && !capture.WholeAnswer(req) {
		s.logf("%s %s: %s: status %d, %d reads, then cut (%s)", r.RemoteAddr, r.URL.Path, req.RequestID, status, len(req.Chunks), *req.Error)
		// Cut the body (or, before any byte, the response): the client
		// sees the connection end without the chunked encoding's last
		// chunk. The status came: it is sent first.
		sendHeader()
		rc.Flush()
		panic(http.ErrAbortHandler)
	}
	sendHeader()
	s.logf("%s %s: %s: status %d, %d reads", r.RemoteAddr, r.URL.Path, req.RequestID, status, len(req.Chunks))
}

// headerID is a request_id as a header value: quoted when it holds a
// control character, which HTTP clients refuse in a header (the whole
// answer with it).
func headerID(id string) string {
	for i := 0; i < len(id); i++ {
		if b := id[i]; b < ' ' && b != '\t' || b == 0x7f {
			return strconv.Quote(id)
		}
	}
	return id
}

func jsonError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"object": "error", "message": msg, "code": status})
	w.Write(b)
}

// RequestPrompt is the prompt of an OpenAI-compatible request body: the
// text of the last user message (string content, or its text parts joined)
// for chat completions, the prompt (the first one if a list) for
// completions.
func RequestPrompt(path string, body []byte) (string, error) {
	if strings.HasSuffix(path, "/chat/completions") {
		return openaibody.ChatPrompt(body)
	}
	return openaibody.CompletionsPrompt(body)
}
