// Package genaiperf reads the profile export perf_analyzer writes
// (--profile-export-file; profile_export.json under GenAI-Perf) into trace
// requests.
//
// The file is one JSON object (pretty-printed or not):
//
//	{"service_kind": "openai", "endpoint": "v1/chat/completions", "version",
//	 "experiments": [{"experiment": {"mode": "concurrency", "value": 4},
//	   "requests": [{"timestamp": NS,
//	                 "request_inputs": {"payload": "{...request JSON...}"},
//	                 "response_timestamps": [NS, ...],
//	                 "response_outputs": [{"response": "data: {...}\n\n"}, ...]}]}]}
//
// What each request becomes depends on what perf_analyzer kept of the
// responses:
//
//   - service_kind "openai": each response's raw text. One chunk a
//     response (t_ns = response_timestamps[k], data = the text), end_ns =
//     the last response: the closest of the tools' exports to a trace. It
//     loses the HTTP status (a request with responses is taken as 200, one
//     without as a failure with no response), transport errors, and the
//     read boundaries wherever perf_analyzer's responses are not one a read.
//   - the Triton kinds ("triton", "dynamic_grpc"; "triton_c_api" for
//     TensorRT-LLM in process): each response's output tensors
//     ({"text_output": "..."}, {"output_ids": [...]}) — no SSE bytes. Time
//     points [timestamp, each response's time]; output token counts when
//     the tensors are token ids (output_ids), input token counts from
//     input_ids. It loses every body byte (no events, classes or read
//     boundaries), and token counts of text outputs (a tokenizer's).
//   - perf_analyzer's own export, without GenAI-Perf: response times only
//     ("responses_timestamps" up to mid-2023, then "response_timestamps"
//     without "response_outputs"). Time points as for Triton; no bytes, no
//     token counts.
//
// Requests are put in timestamp order (the order they were sent). Check
// reproduces GenAI-Perf's profile_export_genai_perf.json, when it sits
// beside the file, from the imported requests.
package genaiperf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/sseaudit/sseaudit/internal/openaibody"
	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/importer/crosscheck"
	"github.com/sseaudit/sseaudit/trace/importer/sourcefile"
)

// ExtraPrompt holds each request's prompt (from request_inputs: the
// payload's, or the text_input tensor), empty when there is none.
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
	// Summary is GenAI-Perf's profile_export_genai_perf.json to check the
	// requests against; nil for none.
	Summary *Summary
}

// Kinds of export, by what the responses hold.
const (
	KindSSE        = "sse"        // openai: raw response text
	KindTensors    = "tensors"    // Triton kinds: output tensors
	KindTimestamps = "timestamps" // perf_analyzer alone: response times only
)

type export struct {
	ServiceKind string          `json:"service_kind"`
	Endpoint    string          `json:"endpoint"`
	Version     string          `json:"version"`
	Experiments json.RawMessage `json:"experiments"`
}

type experiment struct {
	Experiment struct {
		Mode  string          `json:"mode"`
		Value json.RawMessage `json:"value"`
	} `json:"experiment"`
	Requests []json.RawMessage `json:"requests"`
}

// request is one request of the export.
type request struct {
	Timestamp *int64                        `json:"timestamp"`
	Inputs    map[string]json.RawMessage    `json:"request_inputs"`
	Times     *[]int64                      `json:"response_timestamps"`
	OldTimes  *[]int64                      `json:"responses_timestamps"`
	Outputs   *[]map[string]json.RawMessage `json:"-"`
	RawOut    json.RawMessage               `json:"response_outputs"`
}

// Reader yields the requests of one experiment, in the order they were
// sent.
type Reader struct {
	name    string
	kind    string
	format  string // GenAI-Perf's response format, for Check
	meta    trace.Meta
	reqs    []request
	idx     []int
	exp     int
	line    int // where the export starts
	i       int
	cur     trace.Request
	err     error
	chk     *trace.Checker
	offset  int64 // subtracted from every time
	summary *Summary
	tally   tally
}

// want describes the expected file for error messages.
const want = `want perf_analyzer's or GenAI-Perf's profile export (profile_export.json): {"experiments": [{"requests": [{"timestamp", "response_timestamps", "response_outputs"}]}]}`

// Read reads a profile export from r; name is the file's name for errors.
func Read(r io.Reader, name string, opts Options) (*Reader, error) {
	vals, _, err := sourcefile.ReadAll(r, name, sourcefile.Limits{})
	if err != nil {
		return nil, err
	}
	switch len(vals) {
	case 0:
		return nil, sourcefile.Errorf(name, 0, "empty: %s", want)
	case 1:
	default:
		return nil, sourcefile.Errorf(name, vals[1].Line, "a second JSON value after the export (line %d): %s", vals[0].Line, want)
	}
	v := vals[0]
	errorf := func(format string, args ...any) error {
		return sourcefile.Errorf(name, v.Line, format, args...)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(v.Data, &top); err != nil {
		if v.Data[0] != '{' {
			return nil, errorf("not a JSON object: %s", want)
		}
		return nil, errorf("not valid JSON (%v): %s", err, want)
	}
	if _, ok := top["experiments"]; !ok {
		return nil, errorf("no \"experiments\" key: %s", want)
	}
	var ex export
	if err := json.Unmarshal(v.Data, &ex); err != nil {
		return nil, errorf("%v: %s", err, want)
	}
	var exps []experiment
	if err := json.Unmarshal(ex.Experiments, &exps); err != nil {
		return nil, errorf("experiments: %v: %s", err, want)
	}
	if len(exps) == 0 {
		return nil, errorf("\"experiments\" is empty: %s", want)
	}
	e := opts.Experiment
	switch {
	case e < 0 && len(exps) > 1:
		return nil, errorf("%d experiments: choose one with --genai-perf-experiment (0 to %d)", len(exps), len(exps)-1)
	case e < 0:
		e = 0
	case e >= len(exps):
		return nil, errorf("experiment %d: the file has %d (0 to %d)", e, len(exps), len(exps)-1)
	}
	x := exps[e]
	limits := trace.DefaultLimits
	if opts.MaxRequests > 0 {
		limits.MaxRequests = opts.MaxRequests
	}
	if int64(len(x.Requests)) > limits.MaxRequests {
		return nil, fmt.Errorf("%s: experiment %d: %d requests, more than %d: %w", name, e, len(x.Requests), limits.MaxRequests, trace.ErrLimit)
	}
	rd := &Reader{name: name, exp: e, line: v.Line, chk: trace.NewChecker(name, limits), summary: opts.Summary}
	rd.reqs = make([]request, len(x.Requests))
	for j, raw := range x.Requests {
		where := fmt.Sprintf("experiments[%d].requests[%d]", e, j)
		q := &rd.reqs[j]
		if err := json.Unmarshal(raw, q); err != nil {
			return nil, errorf("%s: %v: %s", where, err, want)
		}
		if q.Timestamp == nil {
			return nil, errorf("%s: no \"timestamp\" (ns): %s", where, want)
		}
		if q.Times == nil {
			q.Times = q.OldTimes
		}
		if q.Times == nil {
			return nil, errorf("%s: no \"response_timestamps\" (nor perf_analyzer's older \"responses_timestamps\"): %s", where, want)
		}
		if len(q.RawOut) > 0 && string(q.RawOut) != "null" {
			var outs []map[string]json.RawMessage
			if err := json.Unmarshal(q.RawOut, &outs); err != nil {
				return nil, errorf("%s: response_outputs: want a list of objects (one a response): %v", where, err)
			}
			if len(outs) != len(*q.Times) {
				return nil, errorf("%s: %d response_timestamps and %d response_outputs: want one timestamp a response", where, len(*q.Times), len(outs))
			}
			q.Outputs = &outs
		}
		rd.idx = append(rd.idx, j)
	}
	rd.kind, err = kindOf(ex.ServiceKind, rd.reqs)
	if err != nil {
		return nil, errorf("%v: %s", err, want)
	}
	if rd.kind == KindSSE {
		rd.format = responseFormat(ex.Endpoint, rd.reqs)
		for _, j := range rd.idx {
			q := &rd.reqs[j]
			if q.Outputs == nil {
				return nil, errorf("experiments[%d].requests[%d]: no \"response_outputs\": want each response's text, as GenAI-Perf's export (service_kind openai) has", e, j)
			}
		}
	}
	sort.SliceStable(rd.idx, func(a, b int) bool { return *rd.reqs[rd.idx[a]].Timestamp < *rd.reqs[rd.idx[b]].Timestamp })
	if len(rd.idx) > 0 {
		// Times on the epoch (perf_analyzer's system clock) would lose
		// sub-microsecond precision as float seconds (AISBench's
		// arithmetic): move the origin to the whole second before the
		// first request, and keep the offset.
		rd.offset = sourcefile.EpochOffset(*rd.reqs[rd.idx[0]].Timestamp)
	}
	if err := rd.setMeta(ex, x); err != nil {
		return nil, errorf("%v", err)
	}
	return rd, nil
}

// kindOf tells what the responses hold: from service_kind, else from the
// first response output's keys.
func kindOf(serviceKind string, reqs []request) (string, error) {
	switch serviceKind {
	case "openai":
		return KindSSE, nil
	case "triton", "dynamic_grpc", "triton_c_api", "tfserving", "torchserve":
		return KindTensors, nil
	case "":
	default:
		return "", fmt.Errorf("service_kind %q: want openai, triton, dynamic_grpc, triton_c_api, tfserving or torchserve", serviceKind)
	}
	for _, q := range reqs {
		if q.Outputs == nil {
			continue
		}
		for _, o := range *q.Outputs {
			if _, ok := o["response"]; ok {
				return KindSSE, nil
			}
			return KindTensors, nil
		}
	}
	return KindTimestamps, nil
}

func (rd *Reader) setMeta(ex export, x experiment) error {
	m := &rd.meta
	m.Set(trace.KeySource, "import genai-perf")
	if rd.offset != 0 {
		m.Set(trace.KeyRunPrefix+"clock_offset_ns", strconv.FormatInt(rd.offset, 10))
	}
	for k, v := range map[string]string{"service_kind": ex.ServiceKind, "endpoint": ex.Endpoint, "version": ex.Version, "kind": rd.kind, "lost": rd.Lost()} {
		if v != "" {
			m.Set(trace.KeyRunPrefix+k, v)
		}
	}
	m.Set(trace.KeyRunPrefix+"experiment", strconv.Itoa(rd.exp))
	v := string(bytes.TrimSpace(x.Experiment.Value))
	switch x.Experiment.Mode {
	case "concurrency":
		if c, err := strconv.Atoi(v); err == nil && c > 0 {
			m.Set(trace.KeyMaxConcurrency, v)
		} else {
			return fmt.Errorf("experiments[%d].experiment.value %s: want a positive integer concurrency", rd.exp, v)
		}
	case "request_rate":
		if f, err := strconv.ParseFloat(v, 64); err == nil && f > 0 {
			m.Set(trace.KeyRequestRate, v)
		}
	}
	if x.Experiment.Mode != "" {
		m.Set(trace.KeyRunPrefix+"mode", x.Experiment.Mode)
	}
	return nil
}

// Kind is KindSSE, KindTensors or KindTimestamps.
func (rd *Reader) Kind() string { return rd.kind }

// Lost says what the export does not hold that a trace can.
func (rd *Reader) Lost() string {
	switch rd.kind {
	case KindSSE:
		return "HTTP status (a request with responses is taken as 200), transport errors, read boundaries where perf_analyzer's responses are not one a read"
	case KindTensors:
		return "body bytes (output tensors, not SSE: no events, event classes or read boundaries: time points only), token counts of text outputs, HTTP status"
	}
	return "body bytes and token counts (response times only: time points only), HTTP status"
}

// Notes say what the import did that a reader of the trace should know.
func (rd *Reader) Notes() []string {
	what := map[string]string{
		KindSSE:        "each response's raw text, one chunk a response",
		KindTensors:    "Triton output tensors: time points from the response times",
		KindTimestamps: "perf_analyzer's response times only: time points",
	}[rd.kind]
	return []string{fmt.Sprintf("%s: experiment %d: %s; lost: %s", rd.name, rd.exp, what, rd.Lost())}
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
	req, err := rd.request(src, fmt.Sprintf("e%d-r%06d", rd.exp, j))
	if err != nil {
		rd.err = sourcefile.Errorf(rd.name, rd.line, "%s: %v", where, err)
		return false
	}
	rd.chk.File = rd.name + ": " + where
	if err := rd.chk.Check(&req, trace.Error{RowGroup: -1, Row: -1}); err != nil {
		rd.err = err
		return false
	}
	rd.tally.add(&req, rd.kind, rd.format)
	rd.cur = req
	rd.i++
	return true
}

// request is one request of the export as a trace request.
func (rd *Reader) request(src *request, id string) (trace.Request, error) {
	req := trace.Request{RequestID: id, T0Ns: *src.Timestamp - rd.offset, Extra: []trace.Value{{Str: prompt(src.Inputs)}}}
	times := *src.Times
	if len(times) == 0 {
		e := "no response recorded by perf_analyzer"
		req.Error = &e
		if rd.kind != KindSSE {
			req.TimePointsS = []float64{seconds(req.T0Ns)}
		}
		return req, nil
	}
	status := int32(200)
	req.HTTPStatus = &status
	end := times[len(times)-1] - rd.offset
	req.EndNs = &end
	if rd.kind == KindSSE {
		req.Chunks = make([]trace.Chunk, len(times))
		for k, o := range *src.Outputs {
			var text *string
			if json.Unmarshal(o["response"], &text) != nil || text == nil {
				return req, fmt.Errorf("response_outputs[%d]: no \"response\" text", k)
			}
			req.Chunks[k] = trace.Chunk{TNs: times[k] - rd.offset, Data: []byte(*text)}
		}
		return req, nil
	}
	req.TimePointsS = make([]float64, 0, 1+len(times))
	req.TimePointsS = append(req.TimePointsS, seconds(req.T0Ns))
	for k, t := range times {
		if t < *src.Timestamp || (k > 0 && t < times[k-1]) {
			return req, fmt.Errorf("response_timestamps[%d] = %d: want times from the request's timestamp %d on, in order", k, t, *src.Timestamp)
		}
		req.TimePointsS = append(req.TimePointsS, seconds(t-rd.offset))
	}
	if src.Outputs != nil {
		if n, ok := tokenIDs(*src.Outputs, "output_ids"); ok {
			req.OutputTokens = &n
		}
	}
	if ids, ok := src.Inputs["input_ids"]; ok {
		var v []json.RawMessage
		if json.Unmarshal(ids, &v) == nil {
			n := int64(len(v))
			req.InputTokens = &n
		}
	}
	return req, nil
}

// tokenIDs counts the ids of a token-id tensor over the responses (a list
// or a single id a response); false when the responses hold no such
// tensor.
func tokenIDs(outs []map[string]json.RawMessage, tensor string) (int64, bool) {
	n, seen := int64(0), false
	for _, o := range outs {
		raw, ok := o[tensor]
		if !ok {
			continue
		}
		seen = true
		var list []json.RawMessage
		var one int64
		switch {
		case json.Unmarshal(raw, &list) == nil:
			n += int64(len(list))
		case json.Unmarshal(raw, &one) == nil:
			n++
		}
	}
	return n, seen
}

func seconds(ns int64) float64 { return float64(ns) / 1e9 }

// Request is the current request, valid until the next Scan.
func (rd *Reader) Request() *trace.Request { return &rd.cur }

// Err is the error that ended the scan, if any.
func (rd *Reader) Err() error { return rd.err }

// Len is the number of requests.
func (rd *Reader) Len() int { return len(rd.idx) }

// Check is GenAI-Perf's summary beside the same figures from the requests
// scanned (call it after the last Scan); nil when no summary was given.
func (rd *Reader) Check() *crosscheck.Comparison {
	if rd.summary == nil {
		return nil
	}
	return rd.tally.compare(rd.summary)
}

// prompt is the prompt of a request_inputs object: its "payload" (a JSON
// string holding the request body, or the body itself: the last user
// message's text, or the prompt), or its text_input tensor (Triton).
func prompt(inputs map[string]json.RawMessage) string {
	if p, ok := inputs["payload"]; ok && len(p) > 0 {
		return openaibody.Prompt(p)
	}
	var s string
	if json.Unmarshal(inputs["text_input"], &s) == nil {
		return s
	}
	var list []string
	if json.Unmarshal(inputs["text_input"], &list) == nil {
		return strings.Join(list, " ")
	}
	return ""
}
