// Package aiperf reads AIPerf's raw record export (profile_export_raw.jsonl,
// written with --export-level raw) into trace requests.
//
// One JSON object a line, one a request:
//
//	{"metadata": {"x_request_id": "...", ...},
//	 "start_perf_ns": NS, "end_perf_ns": NS,
//	 "payload": {...the request body...},
//	 "status": 200,
//	 "responses": [{"perf_ns": NS, "packets": [{"name": "data", "value": "{...}"}]},
//	               {"perf_ns": NS, "text": "..."}],
//	 "error": null | "text" | {"code": 500, "type": "...", "message": "..."}}
//
// Each request becomes a trace request with t0_ns = start_perf_ns and one
// chunk a response at its perf_ns. AIPerf keeps the SSE messages it parsed,
// not the bytes it read, so each message is re-serialised as SSE text: one
// line a packet ("name: value", ": value" for a comment, "name" for a
// packet without value), the message ended by a blank line. What it loses:
// the original read boundaries (several messages in one read become chunks
// with the same time; a message split over reads becomes one chunk at the
// time AIPerf parsed it), the original line endings (CRLF, CR) and
// spacing, and the bytes of anything AIPerf did not keep as a packet.
// Requests are put in start_perf_ns order (the order they were sent).
package aiperf

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"

	"github.com/sseaudit/sseaudit/internal/openaibody"
	"github.com/sseaudit/sseaudit/trace"
)

// ExtraPrompt holds each request's prompt (from its payload), empty when
// unknown.
const ExtraPrompt = "prompt"

// Extra is the extra columns an imported trace has.
var Extra = []trace.ExtraColumn{{Name: ExtraPrompt, Kind: trace.ExtraString}}

// Record is one line of the export, as far as the trace needs it.
type Record struct {
	Line        int
	ID          string // metadata.x_request_id (or request_id), may be empty
	StartPerfNs int64
	EndPerfNs   *int64
	Status      *int32
	Error       *string
	Responses   []Response
	Prompt      string
}

// Response is one SSE message (Packets) or one text response (Text).
type Response struct {
	PerfNs  int64
	Packets []Packet
	Text    *string
}

// Packet is one field of an SSE message; a nil Value is a field without
// value.
type Packet struct {
	Name  string
	Value *string
}

// SSE is the response re-serialised as SSE text (or its text as is).
func (r *Response) SSE() []byte {
	if r.Packets == nil && r.Text != nil {
		return []byte(*r.Text)
	}
	var b bytes.Buffer
	for _, p := range r.Packets {
		switch {
		case p.Name == "comment" || p.Name == "":
			b.WriteByte(':')
			if p.Value != nil {
				b.WriteByte(' ')
				b.WriteString(*p.Value)
			}
		case p.Value == nil:
			b.WriteString(p.Name)
		default:
			b.WriteString(p.Name)
			b.WriteString(": ")
			b.WriteString(*p.Value)
		}
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	return b.Bytes()
}

// want describes a line for error messages.
const want = `want AIPerf's profile_export_raw.jsonl (--export-level raw): one JSON object a line with "start_perf_ns", "responses"[{"perf_ns", "packets"[{"name", "value"}]}], "status", "error"`

// Scanner reads the export one record at a time.
type Scanner struct {
	name string
	sc   *bufio.Scanner
	line int
	rec  Record
	err  error
}

// NewScanner reads records from r; name is the file's name for errors.
func NewScanner(r io.Reader, name string) *Scanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 512<<20)
	return &Scanner{name: name, sc: sc}
}

// Scan moves to the next record; blank lines are skipped.
func (s *Scanner) Scan() bool {
	if s.err != nil {
		return false
	}
	for s.sc.Scan() {
		s.line++
		b := bytes.TrimSpace(s.sc.Bytes())
		if len(b) == 0 {
			continue
		}
		rec, err := ParseRecord(b)
		if err != nil {
			s.err = fmt.Errorf("%s: line %d: %v: %s", s.name, s.line, err, want)
			return false
		}
		rec.Line = s.line
		s.rec = rec
		return true
	}
	if err := s.sc.Err(); err != nil {
		s.err = fmt.Errorf("%s: line %d: %w", s.name, s.line+1, err)
	}
	return false
}

// Record is the current record.
func (s *Scanner) Record() *Record { return &s.rec }

// Err is what ended the scan, if not the end of the file.
func (s *Scanner) Err() error { return s.err }

type rawRecord struct {
	Metadata    map[string]json.RawMessage `json:"metadata"`
	RequestID   *string                    `json:"request_id"`
	StartPerfNs *int64                     `json:"start_perf_ns"`
	EndPerfNs   *int64                     `json:"end_perf_ns"`
	Status      json.RawMessage            `json:"status"`
	Error       json.RawMessage            `json:"error"`
	Payload     json.RawMessage            `json:"payload"`
	Responses   *[]struct {
		PerfNs  *int64 `json:"perf_ns"`
		Packets *[]struct {
			Name  *string          `json:"name"`
			Value *json.RawMessage `json:"value"`
		} `json:"packets"`
		Text *string `json:"text"`
	} `json:"responses"`
}

// ParseRecord parses one line of the export.
func ParseRecord(line []byte) (Record, error) {
	var rec Record
	if len(line) == 0 || line[0] != '{' {
		return rec, errors.New("not a JSON object")
	}
	var raw rawRecord
	if err := json.Unmarshal(line, &raw); err != nil {
		return rec, err
	}
	if raw.StartPerfNs == nil {
		return rec, errors.New(`no "start_perf_ns"`)
	}
	if raw.Responses == nil {
		return rec, errors.New(`no "responses" list`)
	}
	rec.StartPerfNs = *raw.StartPerfNs
	rec.EndPerfNs = raw.EndPerfNs
	for _, k := range []string{"x_request_id", "request_id", "x_correlation_id"} {
		var s string
		if json.Unmarshal(raw.Metadata[k], &s) == nil && s != "" {
			rec.ID = s
			break
		}
	}
	if rec.ID == "" && raw.RequestID != nil {
		rec.ID = *raw.RequestID
	}
	if st := bytes.TrimSpace(raw.Status); len(st) > 0 && string(st) != "null" {
		n, err := strconv.ParseInt(string(st), 10, 32)
		if err != nil || n < 0 {
			return rec, fmt.Errorf("status %s: want an HTTP status code or null", st)
		}
		v := int32(n)
		rec.Status = &v
	}
	if e := bytes.TrimSpace(raw.Error); len(e) > 0 && string(e) != "null" {
		var s string
		if json.Unmarshal(e, &s) != nil {
			var d struct {
				Code    json.RawMessage `json:"code"`
				Type    string          `json:"type"`
				Message string          `json:"message"`
			}
			if err := json.Unmarshal(e, &d); err != nil {
				return rec, fmt.Errorf("error: want null, a string or {code, type, message}: %v", err)
			}
			s = d.Message
			if d.Type != "" {
				s = d.Type + ": " + s
			}
			if c := bytes.TrimSpace(d.Code); len(c) > 0 && string(c) != "null" {
				s = "code " + string(c) + ": " + s
			}
		}
		rec.Error = &s
	}
	for k, r := range *raw.Responses {
		if r.PerfNs == nil {
			return rec, fmt.Errorf(`responses[%d]: no "perf_ns"`, k)
		}
		resp := Response{PerfNs: *r.PerfNs, Text: r.Text}
		if r.Packets == nil && r.Text == nil {
			return rec, fmt.Errorf(`responses[%d]: neither "packets" nor "text"`, k)
		}
		if r.Packets != nil {
			resp.Packets = []Packet{}
			for i, p := range *r.Packets {
				if p.Name == nil {
					return rec, fmt.Errorf(`responses[%d].packets[%d]: no "name"`, k, i)
				}
				pk := Packet{Name: *p.Name}
				if p.Value != nil && string(bytes.TrimSpace(*p.Value)) != "null" {
					var v string
					if err := json.Unmarshal(*p.Value, &v); err != nil {
						return rec, fmt.Errorf(`responses[%d].packets[%d].value: want a string or null`, k, i)
					}
					pk.Value = &v
				}
				resp.Packets = append(resp.Packets, pk)
			}
		}
		rec.Responses = append(rec.Responses, resp)
	}
	rec.Prompt = payloadPrompt(raw.Payload)
	return rec, nil
}

// Request is the record as a trace request with the given id.
func (rec *Record) Request(id string) trace.Request {
	req := trace.Request{RequestID: id, T0Ns: rec.StartPerfNs, Error: rec.Error, Extra: []trace.Value{{Str: rec.Prompt}}}
	req.HTTPStatus = rec.Status
	if req.HTTPStatus == nil && rec.Error == nil && len(rec.Responses) > 0 {
		// No status recorded, responses and no error: it was answered.
		s := int32(200)
		req.HTTPStatus = &s
	}
	if len(rec.Responses) > 0 || req.HTTPStatus != nil {
		req.Chunks = make([]trace.Chunk, 0, len(rec.Responses))
	}
	var end int64
	for _, r := range rec.Responses {
		req.Chunks = append(req.Chunks, trace.Chunk{TNs: r.PerfNs, Data: r.SSE()})
		end = r.PerfNs
	}
	switch {
	case rec.EndPerfNs != nil:
		e := max(*rec.EndPerfNs, end, rec.StartPerfNs)
		req.EndNs = &e
	case len(rec.Responses) > 0:
		req.EndNs = &end
	}
	return req
}

// Reader yields the requests of an export in send order. It reads the
// whole file first to sort it.
type Reader struct {
	name string
	recs []Record
	i    int
	cur  trace.Request
	err  error
	chk  *trace.Checker
}

// Read reads an export; maxRequests bounds it (trace.DefaultLimits when
// 0).
func Read(r io.Reader, name string, maxRequests int64) (*Reader, error) {
	limits := trace.DefaultLimits
	if maxRequests > 0 {
		limits.MaxRequests = maxRequests
	}
	s := NewScanner(r, name)
	rd := &Reader{name: name, chk: trace.NewChecker(name, limits)}
	for s.Scan() {
		if int64(len(rd.recs)) >= limits.MaxRequests {
			return nil, fmt.Errorf("%s: more than %d records: %w", name, limits.MaxRequests, trace.ErrLimit)
		}
		rec := *s.Record()
		rd.recs = append(rd.recs, rec)
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	if len(rd.recs) == 0 {
		return nil, fmt.Errorf("%s: no records: %s", name, want)
	}
	sort.SliceStable(rd.recs, func(a, b int) bool { return rd.recs[a].StartPerfNs < rd.recs[b].StartPerfNs })
	return rd, nil
}

// Meta is the run metadata.
func (rd *Reader) Meta() trace.Meta {
	var m trace.Meta
	m.Set(trace.KeySource, "import aiperf")
	return m
}

// Scan moves to the next request.
func (rd *Reader) Scan() bool {
	if rd.err != nil || rd.i >= len(rd.recs) {
		return false
	}
	rec := &rd.recs[rd.i]
	id := rec.ID
	if id == "" {
		id = fmt.Sprintf("line-%06d", rec.Line)
	}
	req := rec.Request(id)
	rd.chk.File = fmt.Sprintf("%s: line %d", rd.name, rec.Line)
	if err := rd.chk.Check(&req, trace.Error{RowGroup: -1, Row: -1}); err != nil {
		rd.err = err
		return false
	}
	rd.cur = req
	rd.i++
	return true
}

// Request is the current request, valid until the next Scan.
func (rd *Reader) Request() *trace.Request { return &rd.cur }

// Err is the error that ended the scan, if any.
func (rd *Reader) Err() error { return rd.err }

// Len is the number of requests.
func (rd *Reader) Len() int { return len(rd.recs) }

// payloadPrompt is the last user message's text, or the prompt, of a
// request body (an object, or a JSON string holding one).
func payloadPrompt(payload json.RawMessage) string { return openaibody.Prompt(payload) }
