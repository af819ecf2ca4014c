package tap

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sseaudit/sseaudit/capture"
	"github.com/sseaudit/sseaudit/contentcoding"
	"github.com/sseaudit/sseaudit/internal/openaibody"
	"github.com/sseaudit/sseaudit/trace"
)

// Source is the sseaudit.source of a tap's trace.
const Source = "tap"

// The extra columns of a tap's trace, in order.
const (
	ColumnPrompt      = "prompt"       // the request's prompt (serve --match reads it); null when none
	ColumnRequestBody = "request_body" // the request body, whole
	ColumnMethod      = "method"
	ColumnPath        = "path" // the request's path, without its query
	ColumnContentType = "content_type"
	ColumnInFlight    = "in_flight" // exchanges forwarded when this one's request had arrived, itself included
)

// Extra is the extra columns of a tap's trace.
func Extra() []trace.ExtraColumn {
	return []trace.ExtraColumn{
		{Name: ColumnPrompt, Kind: trace.ExtraString},
		{Name: ColumnRequestBody, Kind: trace.ExtraBinary},
		{Name: ColumnMethod, Kind: trace.ExtraString},
		{Name: ColumnPath, Kind: trace.ExtraString},
		{Name: ColumnContentType, Kind: trace.ExtraString},
		{Name: contentcoding.Column, Kind: trace.ExtraString},
		{Name: ColumnInFlight, Kind: trace.ExtraInt64},
	}
}

// Meta keys a tap sets besides the clock's.
const (
	KeyUpstream     = trace.KeyRunPrefix + "upstream"
	KeyRecord       = trace.KeyRunPrefix + "record"
	KeyPeakInFlight = trace.KeyRunPrefix + "peak_in_flight"
	KeyExchanges    = trace.KeyRunPrefix + "exchanges"
)

// Meta is the run metadata a tap's trace starts with. maxConcurrency is
// the client's C when the user names it (0: not known; the peak in flight
// the tap observes is never taken for it).
func Meta(o Options, maxConcurrency int) (trace.Meta, error) {
	if _, err := ParseUpstream(o.Upstream); err != nil {
		return nil, err
	}
	var m trace.Meta
	m.Set(trace.KeySchemaVersion, trace.SchemaVersion)
	m.Set(trace.KeySource, Source)
	m.Set(KeyUpstream, capture.RedactURL(o.Upstream))
	m.Set(KeyRecord, map[bool]string{true: "all", false: "streamed"}[o.All])
	if maxConcurrency > 0 {
		m.Set(trace.KeyMaxConcurrency, strconv.Itoa(maxConcurrency))
	}
	o.Clock.meta(&m)
	return m, nil
}

// request is the exchange as a trace row.
func (ex *exchange) request() *trace.Request {
	ex.mu.Lock()
	defer ex.mu.Unlock()
	r := &trace.Request{RequestID: ex.id, T0Ns: ex.t0}
	end := max(ex.end, ex.t0)
	r.EndNs = &end
	if ex.got {
		s := int32(ex.status)
		r.HTTPStatus = &s
		r.Chunks = make([]trace.Chunk, len(ex.ends))
		start := 0
		for i, e := range ex.ends {
			r.Chunks[i] = trace.Chunk{TNs: ex.times[i], Data: ex.data[start:e:e]}
			start = e
		}
	}
	if len(ex.errs) > 0 {
		msg := validText(strings.Join(ex.errs, "; "))
		r.Error = &msg
	}
	prompt := openaibody.Prompt(ex.body)
	r.Extra = []trace.Value{
		{Str: validText(prompt), Null: prompt == ""},
		{Bytes: ex.body},
		{Str: validText(ex.method)},
		{Str: validText(ex.path)},
		{Str: validText(ex.contentType), Null: ex.contentType == ""},
		{Str: validText(ex.encoding), Null: ex.encoding == ""},
		{Int: ex.inFlight},
	}
	return r
}

// validText is s with each byte that is not UTF-8 written \xNN (a utf8
// column holds only UTF-8).
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

// write is the writer goroutine: exchanges written as they end, flushed
// every FlushInterval; after a failed write nothing more is written.
func (p *Proxy) write(w Writer) {
	defer close(p.wrote)
	flusher, _ := w.(interface{ Flush() error })
	tick := time.NewTicker(p.o.FlushInterval)
	defer tick.Stop()
	unflushed := 0
	fail := func(err error) {
		p.mu.Lock()
		first := p.stats.WriteErr == nil
		if first {
			p.stats.WriteErr = err
		}
		p.mu.Unlock()
		if first && p.o.Warnf != nil {
			p.o.Warnf("recording stopped: %v (requests are still forwarded)", err)
		}
	}
	for {
		select {
		case ex, ok := <-p.done:
			if !ok {
				if flusher != nil && unflushed > 0 && p.Stats().WriteErr == nil {
					if err := flusher.Flush(); err != nil {
						fail(err)
					}
				}
				return
			}
			if p.Stats().WriteErr != nil {
				continue
			}
			req := ex.request()
			masked := ex.secrets.Request(req)
			if err := w.Write(req); err != nil {
				fail(err)
				continue
			}
			unflushed++
			p.mu.Lock()
			p.stats.Recorded++
			p.stats.BodyBytes += req.BodyBytes()
			p.stats.Masked += int64(masked)
			if req.Failed() {
				p.stats.Failed++
			}
			if ex.encoding != "" {
				p.stats.Encoded[strings.ToLower(ex.encoding)]++
			}
			p.mu.Unlock()
		case <-tick.C:
			if flusher != nil && unflushed > 0 && p.Stats().WriteErr == nil {
				if err := flusher.Flush(); err != nil {
					fail(err)
				}
				unflushed = 0
			}
		}
	}
}

// Close writes the exchanges not yet written, once the server that served
// the proxy has shut down (no exchange may end after Close).
func (p *Proxy) Close() {
	p.sendMu.Lock()
	if !p.closed {
		p.closed = true
		close(p.done)
	}
	p.sendMu.Unlock()
	<-p.wrote
}

// Stats are what the proxy did so far.
func (p *Proxy) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.stats
	s.Encoded = make(map[string]int64, len(p.stats.Encoded))
	for k, v := range p.stats.Encoded {
		s.Encoded[k] = v
	}
	s.Forwarded, s.Refused = p.fwd.Load(), p.refused.Load()
	s.PeakInFlight = p.peak.Load()
	return s
}

// InFlight is the number of exchanges in the tap now.
func (p *Proxy) InFlight() int64 { return p.inFlight.Load() }

// Finish adds what is known only at the end — the peak of exchanges in
// flight, how many were recorded — to the metadata of the closed trace at
// path, rewriting it (atomically, keeping its mode). A tap killed before
// leaves the file without them: the in_flight column holds the peak.
func Finish(path string, s Stats) error {
	r, err := trace.Open(path, trace.OpenOptions{Format: "arrows"})
	if err != nil {
		return err
	}
	defer r.Close()
	info := r.Info()
	meta := append(trace.Meta(nil), info.Meta...)
	meta.Set(KeyPeakInFlight, strconv.FormatInt(s.PeakInFlight, 10))
	meta.Set(KeyExchanges, strconv.FormatInt(s.Recorded, 10))
	w, err := trace.Create(path, "arrows", nil, trace.WriteOptions{Meta: meta, Extra: info.Extra})
	if err != nil {
		return err
	}
	if _, err := trace.Copy(w, r); err != nil {
		w.Abort()
		return err
	}
	return w.Close()
}
