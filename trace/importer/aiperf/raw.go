// The raw export (profile_export_raw.jsonl, --export-level raw): one JSON
// object a request with the SSE messages AIPerf parsed.

package aiperf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/sseaudit/sseaudit/internal/openaibody"
	"github.com/sseaudit/sseaudit/trace"
)

// ExtraPrompt holds each request's prompt (from its payload), empty when
// unknown.
const ExtraPrompt = "prompt"

// Extra is the extra columns an imported trace has.
var Extra = []trace.ExtraColumn{{Name: ExtraPrompt, Kind: trace.ExtraString}}

// Record is one request of the raw export, as far as the trace needs it.
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

// wantRaw describes the raw export for error messages.
const wantRaw = `AIPerf's raw export (profile_export_raw.jsonl, --export-level raw): one JSON object a request with "start_perf_ns", "responses"[{"perf_ns", "packets"[{"name", "value"}]}], "status", "error"`

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

// ParseRecord parses one request of the raw export.
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
		s, err := errorText(e)
		if err != nil {
			return rec, err
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

// payloadPrompt is the last user message's text, or the prompt, of a
// request body (an object, or a JSON string holding one).
func payloadPrompt(payload json.RawMessage) string { return openaibody.Prompt(payload) }
