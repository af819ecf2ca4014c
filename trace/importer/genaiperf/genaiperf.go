// Package genaiperf reads GenAI-Perf's profile export (profile_export.json,
// written by perf_analyzer for GenAI-Perf) into trace requests.
//
// The file is one JSON object:
//
//	{"service_kind": "openai", "endpoint": "v1/chat/completions",
//	 "experiments": [{"experiment": {"mode": "concurrency", "value": 4},
//	   "requests": [{"timestamp": NS,
//	                 "request_inputs": {"payload": "{...request JSON...}"},
//	                 "response_timestamps": [NS, ...],
//	                 "response_outputs": [{"response": "data: {...}\n\n"}, ...]}]}]}
//
// Each request becomes a trace request: t0_ns = timestamp, one chunk a
// response (t_ns = response_timestamps[k], data = the raw response text),
// end_ns = the last response timestamp. This is the closest of the tools'
// exports to a trace: raw body text a read, on a nanosecond clock. What it
// loses: the HTTP status (not recorded: a request with responses is taken
// as 200, one without as a failure with no response), transport errors
// (not recorded), and the exact read boundaries where perf_analyzer's
// responses are not one a read. Requests are put in timestamp order (the
// order they were sent).
package genaiperf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"

	"github.com/sseaudit/sseaudit/internal/openaibody"
	"github.com/sseaudit/sseaudit/trace"
)

// ExtraPrompt holds each request's prompt (from request_inputs.payload),
// empty when the payload has none.
const ExtraPrompt = "prompt"

// Extra is the extra columns an imported trace has.
var Extra = []trace.ExtraColumn{{Name: ExtraPrompt, Kind: trace.ExtraString}}

// Options select what to read.
type Options struct {
	// Experiment is the 0-based experiment to import; -1 means the only
	// one (an error when the file has several).
	Experiment int
	// MaxRequests bounds the requests read (trace.DefaultLimits when 0).
	MaxRequests int64
}

type export struct {
	ServiceKind string       `json:"service_kind"`
	Endpoint    string       `json:"endpoint"`
	Experiments []experiment `json:"experiments"`
}

type experiment struct {
	Experiment struct {
		Mode  string          `json:"mode"`
		Value json.RawMessage `json:"value"`
	} `json:"experiment"`
	Requests []request `json:"requests"`
}

type request struct {
	Timestamp          *int64          `json:"timestamp"`
	RequestInputs      json.RawMessage `json:"request_inputs"`
	ResponseTimestamps []int64         `json:"response_timestamps"`
	ResponseOutputs    []struct {
		Response *string `json:"response"`
	} `json:"response_outputs"`
}

// Reader yields the requests of one experiment, in the order they were
// sent.
type Reader struct {
	name string
	meta trace.Meta
	reqs []request
	idx  []int
	exp  int
	i    int
	cur  trace.Request
	err  error
	chk  *trace.Checker
	// offset is subtracted from every time.
	offset int64
}

// epochLike is a time in ns past which a clock is taken to count from
// 1970 rather than from boot (about 11.6 days).
const epochLike = 1e15

func errorf(name, format string, args ...any) error {
	return fmt.Errorf("%s: "+format, append([]any{name}, args...)...)
}

// want describes the expected file for error messages.
const want = `want GenAI-Perf's profile_export.json: {"experiments": [{"requests": [{"timestamp", "response_timestamps", "response_outputs"}]}]}`

// Read reads a profile export from r; name is the file's name for errors.
func Read(r io.Reader, name string, opts Options) (*Reader, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, errorf(name, "%v", err)
	}
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return nil, errorf(name, "not a JSON object: %s", want)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, errorf(name, "not valid JSON (%v): %s", err, want)
	}
	if _, ok := top["experiments"]; !ok {
		return nil, errorf(name, "no \"experiments\" key: %s", want)
	}
	var ex export
	if err := json.Unmarshal(data, &ex); err != nil {
		return nil, errorf(name, "%v: %s", err, want)
	}
	if len(ex.Experiments) == 0 {
		return nil, errorf(name, "\"experiments\" is empty: %s", want)
	}
	e := opts.Experiment
	switch {
	case e < 0 && len(ex.Experiments) > 1:
		return nil, errorf(name, "%d experiments: choose one with --genai-perf-experiment (0 to %d)", len(ex.Experiments), len(ex.Experiments)-1)
	case e < 0:
		e = 0
	case e >= len(ex.Experiments):
		return nil, errorf(name, "experiment %d: the file has %d (0 to %d)", e, len(ex.Experiments), len(ex.Experiments)-1)
	}
	x := ex.Experiments[e]
	limits := trace.DefaultLimits
	if opts.MaxRequests > 0 {
		limits.MaxRequests = opts.MaxRequests
	}
	if int64(len(x.Requests)) > limits.MaxRequests {
		return nil, fmt.Errorf("%s: experiment %d: %d requests, more than %d: %w", name, e, len(x.Requests), limits.MaxRequests, trace.ErrLimit)
	}
	rd := &Reader{name: name, reqs: x.Requests, exp: e, chk: trace.NewChecker(name, limits)}
	for j := range x.Requests {
		if x.Requests[j].Timestamp == nil {
			return nil, errorf(name, "experiments[%d].requests[%d]: no \"timestamp\" (ns): %s", e, j, want)
		}
		rd.idx = append(rd.idx, j)
	}
	sort.SliceStable(rd.idx, func(a, b int) bool { return *x.Requests[rd.idx[a]].Timestamp < *x.Requests[rd.idx[b]].Timestamp })
	if len(rd.idx) > 0 {
		// Times on the epoch (perf_analyzer's system clock) would lose
		// sub-microsecond precision as float seconds (AISBench's
		// arithmetic): move the origin to the whole second before the
		// first request, and keep the offset.
		if first := *x.Requests[rd.idx[0]].Timestamp; first > epochLike {
			rd.offset = first - first%1e9
			rd.meta.Set(trace.KeyRunPrefix+"clock_offset_ns", strconv.FormatInt(rd.offset, 10))
		}
	}

	rd.meta.Set(trace.KeySource, "import genai-perf")
	if ex.ServiceKind != "" {
		rd.meta.Set(trace.KeyRunPrefix+"service_kind", ex.ServiceKind)
	}
	if ex.Endpoint != "" {
		rd.meta.Set(trace.KeyRunPrefix+"endpoint", ex.Endpoint)
	}
	rd.meta.Set(trace.KeyRunPrefix+"experiment", strconv.Itoa(e))
	v := string(bytes.TrimSpace(x.Experiment.Value))
	switch x.Experiment.Mode {
	case "concurrency":
		if c, err := strconv.Atoi(v); err == nil && c > 0 {
			rd.meta.Set(trace.KeyMaxConcurrency, v)
		} else {
			return nil, errorf(name, "experiments[%d].experiment.value %s: want a positive integer concurrency", e, v)
		}
	case "request_rate":
		if f, err := strconv.ParseFloat(v, 64); err == nil && f > 0 {
			rd.meta.Set(trace.KeyRequestRate, v)
		}
	}
	if x.Experiment.Mode != "" {
		rd.meta.Set(trace.KeyRunPrefix+"mode", x.Experiment.Mode)
	}
	return rd, nil
}

// Meta is the run metadata.
func (rd *Reader) Meta() trace.Meta { return rd.meta }

// Scan moves to the next request.
func (rd *Reader) Scan() bool {
	if rd.err != nil || rd.i >= len(rd.idx) {
		return false
	}
	j := rd.idx[rd.i]
	src := &rd.reqs[j]
	where := fmt.Sprintf("experiments[%d].requests[%d]", rd.exp, j)
	if len(src.ResponseTimestamps) != len(src.ResponseOutputs) {
		rd.err = errorf(rd.name, "%s: %d response_timestamps and %d response_outputs: want one timestamp a response", where, len(src.ResponseTimestamps), len(src.ResponseOutputs))
		return false
	}
	req := trace.Request{
		RequestID: fmt.Sprintf("e%d-r%06d", rd.exp, j),
		T0Ns:      *src.Timestamp - rd.offset,
		Extra:     []trace.Value{{Str: payloadPrompt(src.RequestInputs)}},
	}
	if len(src.ResponseOutputs) == 0 {
		e := "no response recorded by GenAI-Perf"
		req.Error = &e
	} else {
		status := int32(200)
		req.HTTPStatus = &status
		req.Chunks = make([]trace.Chunk, len(src.ResponseOutputs))
		for k, o := range src.ResponseOutputs {
			if o.Response == nil {
				rd.err = errorf(rd.name, "%s: response_outputs[%d]: no \"response\" text", where, k)
				return false
			}
			req.Chunks[k] = trace.Chunk{TNs: src.ResponseTimestamps[k] - rd.offset, Data: []byte(*o.Response)}
		}
		end := src.ResponseTimestamps[len(src.ResponseTimestamps)-1] - rd.offset
		req.EndNs = &end
	}
	rd.chk.File = rd.name + ": " + where
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
func (rd *Reader) Len() int { return len(rd.idx) }

// payloadPrompt is the prompt of a request_inputs object: its "payload"
// (a JSON string holding the request body, or the body itself): the last
// user message's text, or the prompt.
func payloadPrompt(inputs json.RawMessage) string {
	var in struct {
		Payload json.RawMessage `json:"payload"`
	}
	if json.Unmarshal(inputs, &in) != nil || len(in.Payload) == 0 {
		return ""
	}
	return openaibody.Prompt(in.Payload)
}
