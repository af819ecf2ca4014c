// Package vllmbench reads the result file of `vllm bench serve
// --save-result --save-detailed` (RESULT.json) into trace requests.
//
// The file is one JSON object; beside the run's figures (backend, model_id,
// request_rate, max_concurrency, duration, ...) --save-detailed adds lists
// with one entry a request, in the order the requests were sent:
// start_times (s), ttfts (s), itls (a list of s a request), input_lens,
// output_lens, errors ("" for a success) and generated_texts.
//
// Each request becomes a trace request with time points only:
// time_points_s = [start, start+ttft, then each previous time point plus
// the next itl], t0_ns = start in ns, end_ns = the last time point,
// input_tokens and output_tokens from the lens, HTTP status 200 for a
// success; a request with an error gets the error text, no status and only
// its start as a time point. What it loses: every body byte (no events, no
// classes, no read boundaries: only AISBench-style figures can be made),
// the float rounding of AISBench's own differences (time points are
// rebuilt by addition, so ttft and itl come back within a few ulps), and
// the HTTP status of failures.
package vllmbench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/sseaudit/sseaudit/trace"
)

// want describes the expected file for error messages.
const want = `want the JSON written by vllm bench serve --save-result --save-detailed: {"start_times", "ttfts", "itls", "input_lens", "output_lens", "errors", ...}`

// Result is the part of the file the trace needs.
type Result struct {
	StartTimes []float64   `json:"start_times"`
	TTFTs      []float64   `json:"ttfts"`
	ITLs       [][]float64 `json:"itls"`
	InputLens  []int64     `json:"input_lens"`
	OutputLens []int64     `json:"output_lens"`
	Errors     []string    `json:"errors"`

	Backend        string          `json:"backend"`
	ModelID        string          `json:"model_id"`
	Date           string          `json:"date"`
	RequestRate    json.RawMessage `json:"request_rate"`
	MaxConcurrency json.RawMessage `json:"max_concurrency"`
	Burstiness     json.RawMessage `json:"burstiness"`
}

// Reader yields the requests of a result file in send order.
type Reader struct {
	name string
	res  Result
	n    int
	i    int
	cur  trace.Request
	err  error
	chk  *trace.Checker
	meta trace.Meta
}

// Read reads a result file; maxRequests bounds it (trace.DefaultLimits
// when 0).
func Read(r io.Reader, name string, maxRequests int64) (*Reader, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	data = PythonJSON(bytes.TrimSpace(data))
	if len(data) == 0 || data[0] != '{' {
		return nil, fmt.Errorf("%s: not a JSON object: %s", name, want)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("%s: not valid JSON (%v): %s", name, err, want)
	}
	var missing []string
	for _, k := range []string{"start_times", "ttfts", "itls", "input_lens", "output_lens", "errors"} {
		if _, ok := top[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		hint := ""
		if _, ok := top["ttfts"]; !ok {
			hint = " (was it saved with --save-detailed?)"
		} else if _, ok := top["start_times"]; !ok {
			hint = " (a vLLM version that does not save start_times: without them there are no request start times; import it with --from sglang, which sets every start to 0)"
		}
		return nil, fmt.Errorf("%s: no %s%s: %s", name, strings.Join(missing, ", "), hint, want)
	}
	rd := &Reader{name: name}
	if err := json.Unmarshal(data, &rd.res); err != nil {
		return nil, fmt.Errorf("%s: %v: %s", name, err, want)
	}
	res := &rd.res
	rd.n = len(res.TTFTs)
	for k, l := range map[string]int{"start_times": len(res.StartTimes), "itls": len(res.ITLs), "input_lens": len(res.InputLens), "output_lens": len(res.OutputLens), "errors": len(res.Errors)} {
		if l != rd.n {
			return nil, fmt.Errorf("%s: %s has %d entries and ttfts %d: want one entry a request in each list", name, k, l, rd.n)
		}
	}
	limits := trace.DefaultLimits
	if maxRequests > 0 {
		limits.MaxRequests = maxRequests
	}
	rd.chk = trace.NewChecker(name, limits)
	rd.meta = runMeta("import vllm", res.MaxConcurrency, res.RequestRate)
	for k, v := range map[string]string{"backend": res.Backend, "model": res.ModelID, "date": res.Date} {
		if v != "" {
			rd.meta.Set(trace.KeyRunPrefix+k, v)
		}
	}
	if b := strings.TrimSpace(string(res.Burstiness)); b != "" && b != "null" {
		rd.meta.Set(trace.KeyRunPrefix+"burstiness", b)
	}
	return rd, nil
}

// runMeta builds the metadata both vLLM's and SGLang's files give.
func runMeta(source string, maxConc, rate json.RawMessage) trace.Meta {
	var m trace.Meta
	m.Set(trace.KeySource, source)
	if c, err := strconv.Atoi(strings.TrimSpace(string(maxConc))); err == nil && c > 0 {
		m.Set(trace.KeyMaxConcurrency, strconv.Itoa(c))
	}
	r := strings.TrimSpace(string(rate))
	if f, err := strconv.ParseFloat(r, 64); err == nil && f > 0 && !math.IsInf(f, 0) {
		m.Set(trace.KeyRequestRate, r)
	}
	return m
}

// RunMeta is runMeta for package sglang.
func RunMeta(source string, maxConc, rate json.RawMessage) trace.Meta {
	return runMeta(source, maxConc, rate)
}

// Meta is the run metadata.
func (rd *Reader) Meta() trace.Meta { return rd.meta }

// Len is the number of requests.
func (rd *Reader) Len() int { return rd.n }

// TimePoints rebuilds a client's time points from a start time, a time to
// first token and the inter-token latencies, all in seconds.
func TimePoints(start, ttft float64, itls []float64) []float64 {
	tp := make([]float64, 0, 2+len(itls))
	tp = append(tp, start)
	t := start + ttft
	tp = append(tp, t)
	for _, d := range itls {
		t += d
		tp = append(tp, t)
	}
	return tp
}

// Request builds request i of a file with per-request lists; errText ""
// is a success. Package sglang shares it.
func Request(id string, start, ttft float64, itls []float64, in, out int64, errText string) (trace.Request, error) {
	req := trace.Request{RequestID: id}
	for _, v := range append([]float64{start, ttft}, itls...) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return req, fmt.Errorf("a time of %v: want finite seconds", v)
		}
	}
	if math.Abs(start) > 9e9 {
		return req, fmt.Errorf("start time %v: want seconds that fit in int64 nanoseconds", start)
	}
	if ttft < 0 {
		return req, fmt.Errorf("ttft %v: want 0 or more seconds", ttft)
	}
	for k, d := range itls {
		if d < 0 {
			return req, fmt.Errorf("itls[%d] = %v: want 0 or more seconds", k, d)
		}
	}
	if in < 0 || out < 0 {
		return req, fmt.Errorf("input_len %d, output_len %d: want counts of 0 or more", in, out)
	}
	req.T0Ns = int64(math.Round(start * 1e9))
	if errText != "" {
		e := errText
		req.Error = &e
		req.TimePointsS = []float64{start}
		end := req.T0Ns
		req.EndNs = &end
		return req, nil
	}
	status := int32(200)
	req.HTTPStatus = &status
	req.TimePointsS = TimePoints(start, ttft, itls)
	last := req.TimePointsS[len(req.TimePointsS)-1]
	if math.IsInf(last, 0) || math.Abs(last) > 9e9 {
		return req, fmt.Errorf("the last time point %v (start + ttft + itls): want seconds that fit in int64 nanoseconds", last)
	}
	end := max(req.T0Ns, int64(math.Round(last*1e9)))
	req.EndNs = &end
	req.InputTokens, req.OutputTokens = &in, &out
	return req, nil
}

// Scan moves to the next request.
func (rd *Reader) Scan() bool {
	if rd.err != nil || rd.i >= rd.n {
		return false
	}
	i := rd.i
	res := &rd.res
	req, err := Request(fmt.Sprintf("vllm-%06d", i), res.StartTimes[i], res.TTFTs[i], res.ITLs[i], res.InputLens[i], res.OutputLens[i], res.Errors[i])
	if err != nil {
		rd.err = fmt.Errorf("%s: request %d: %v", rd.name, i, err)
		return false
	}
	rd.chk.File = fmt.Sprintf("%s: request %d", rd.name, i)
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

// PythonJSON turns the non-standard number literals Python's json module
// writes (NaN, Infinity, -Infinity, as in "request_rate": Infinity),
// outside strings, into JSON strings ("Infinity"), so that a standard JSON
// parser reads the file: a field that wants a number then fails with an
// error naming it, and a rate of "Infinity" is no rate.
func PythonJSON(b []byte) []byte {
	var out []byte // nil until something changes
	last := 0      // b[last:i] is not yet in out
	inStr, esc := false, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		if c == '"' {
			inStr = true
			continue
		}
		for _, lit := range []string{"-Infinity", "Infinity", "NaN"} {
			if bytes.HasPrefix(b[i:], []byte(lit)) {
				out = append(append(out, b[last:i]...), '"')
				out = append(append(out, lit...), '"')
				i += len(lit) - 1
				last = i + 1
				break
			}
		}
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}
