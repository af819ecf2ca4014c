// The records export (profile_export.jsonl, AIPerf's default): one JSON
// object a request with its metadata and the metrics AIPerf computed.

package aiperf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/sseaudit/sseaudit/trace"
)

// wantRecords describes the records export for error messages.
const wantRecords = `AIPerf's records export (profile_export.jsonl): one JSON object a request with "metadata" {"request_start_ns" (or "timestamp_ns"), ...} and "metrics" {"time_to_first_token" (or "ttft"), "inter_chunk_latency", "request_latency", ...}, "error"`

// Schemas of the records export, by the key that starts a request.
const (
	// SchemaTimestamp is AIPerf up to 0.2: metadata.timestamp_ns,
	// credit_phase, metrics.ttft, errors with a code.
	SchemaTimestamp = "timestamp_ns (AIPerf <= 0.2)"
	// SchemaRequestStart is AIPerf from late 2025 (the 2026 releases):
	// metadata.request_start_ns, request_ack_ns, request_end_ns,
	// benchmark_phase, metrics.time_to_first_token, errors that may have no
	// code.
	SchemaRequestStart = "request_start_ns (AIPerf 2026)"
)

// MetricRecord is one request of the records export, as far as the trace
// needs it. Times are on AIPerf's wall clock, in ns.
type MetricRecord struct {
	Line   int
	ID     string // metadata.x_request_id, may be empty
	Schema string // SchemaTimestamp or SchemaRequestStart
	Phase  string // benchmark_phase (or credit_phase); "" when absent
	// StartNs is request_start_ns (or timestamp_ns).
	StartNs int64
	// EndNs is request_end_ns; 0 when absent.
	EndNs int64
	// PointsNs are the time points of a success: the start, the first
	// response (start + TTFT), then each next response (+ each inter-chunk
	// latency). Nil for a failure.
	PointsNs []int64
	// LatencyNs is request_latency; -1 when absent.
	LatencyNs int64
	Error     *string
	// InputTokens and OutputTokens are input_sequence_length and
	// output_sequence_length (reasoning included); nil when absent.
	InputTokens, OutputTokens *int64
}

type recordJSON struct {
	Metadata map[string]json.RawMessage `json:"metadata"`
	Metrics  map[string]json.RawMessage `json:"metrics"`
	Error    json.RawMessage            `json:"error"`
}

type metricJSON struct {
	Value json.RawMessage `json:"value"`
	Unit  string          `json:"unit"`
}

// unitNs is how many ns one unit of a time metric holds.
var unitNs = map[string]float64{"ns": 1, "us": 1e3, "ms": 1e6, "sec": 1e9, "s": 1e9}

// ParseMetricRecord parses one request of the records export. A record of
// another phase than profiling (warm-up) is returned with its id and phase
// only: AIPerf's summary leaves it out, and so does the import.
func ParseMetricRecord(b []byte) (MetricRecord, error) {
	var rec MetricRecord
	if len(b) == 0 || b[0] != '{' {
		return rec, errors.New("not a JSON object")
	}
	var raw recordJSON
	if err := json.Unmarshal(b, &raw); err != nil {
		return rec, err
	}
	if raw.Metadata == nil {
		return rec, errors.New(`no "metadata" object`)
	}
	md := raw.Metadata
	str := func(k string) (string, bool) {
		var s string
		ok := json.Unmarshal(md[k], &s) == nil && md[k] != nil && !isNull(md[k])
		return s, ok
	}
	rec.ID, _ = str("x_request_id")
	if p, ok := str("benchmark_phase"); ok {
		rec.Phase = p
	} else if p, ok := str("credit_phase"); ok {
		rec.Phase = p
	}
	if rec.Phase != "" && rec.Phase != "profiling" {
		return rec, nil
	}
	startKey := "request_start_ns"
	rec.Schema = SchemaRequestStart
	if _, ok := md[startKey]; !ok {
		startKey, rec.Schema = "timestamp_ns", SchemaTimestamp
	}
	var err error
	if rec.StartNs, err = nsField(md, startKey); err != nil {
		if md[startKey] == nil {
			return rec, errors.New(`no metadata.request_start_ns (AIPerf 2026) nor metadata.timestamp_ns (AIPerf <= 0.2): want the request's start`)
		}
		return rec, fmt.Errorf("metadata.%s: %v", startKey, err)
	}
	if md["request_end_ns"] != nil && !isNull(md["request_end_ns"]) {
		if rec.EndNs, err = nsField(md, "request_end_ns"); err != nil {
			return rec, fmt.Errorf("metadata.request_end_ns: %v", err)
		}
		if rec.EndNs < rec.StartNs {
			return rec, fmt.Errorf("metadata.request_end_ns %d is before the start %d: want an end at or after the start", rec.EndNs, rec.StartNs)
		}
	}
	if e := bytes.TrimSpace(raw.Error); len(e) > 0 && !isNull(e) {
		s, err := errorText(e)
		if err != nil {
			return rec, err
		}
		rec.Error = &s
	}
	m := raw.Metrics
	if rec.InputTokens, err = tokens(m, "input_sequence_length"); err != nil {
		return rec, err
	}
	osl := "output_sequence_length"
	if _, ok := m[osl]; !ok {
		osl = "output_token_count"
	}
	if rec.OutputTokens, err = tokens(m, osl); err != nil {
		return rec, err
	}
	rec.LatencyNs = -1
	if _, ok := m["request_latency"]; ok {
		if rec.LatencyNs, err = durationNs(m, "request_latency"); err != nil {
			return rec, err
		}
	}
	if rec.Error != nil {
		return rec, nil
	}
	return rec, rec.points(m)
}

// points rebuilds a success's time points from its TTFT and inter-chunk
// latencies, and checks them against its request latency.
func (rec *MetricRecord) points(m map[string]json.RawMessage) error {
	ttftKey := "time_to_first_token"
	if _, ok := m[ttftKey]; !ok {
		ttftKey = "ttft"
	}
	if _, ok := m[ttftKey]; !ok {
		// Not streamed: one response, at the end.
		if rec.LatencyNs < 0 {
			return errors.New(`a success with no metrics.time_to_first_token (or ttft) and no metrics.request_latency: want at least one to place its response`)
		}
		rec.PointsNs = []int64{rec.StartNs, rec.StartNs + rec.LatencyNs}
		return nil
	}
	ttft, err := durationNs(m, ttftKey)
	if err != nil {
		return err
	}
	var icl []int64
	if raw, ok := m["inter_chunk_latency"]; ok {
		var mv metricJSON
		var vals []float64
		if err := json.Unmarshal(raw, &mv); err != nil || json.Unmarshal(mv.Value, &vals) != nil {
			return errors.New(`metrics.inter_chunk_latency: want {"value": [numbers], "unit"}`)
		}
		scale, ok := unitNs[mv.Unit]
		if !ok {
			return fmt.Errorf("metrics.inter_chunk_latency: unit %q: want ns, us, ms or sec", mv.Unit)
		}
		for k, v := range vals {
			ns, err := toNs(v, scale)
			if err != nil {
				return fmt.Errorf("metrics.inter_chunk_latency[%d]: %v", k, err)
			}
			icl = append(icl, ns)
		}
	}
	t := rec.StartNs
	rec.PointsNs = make([]int64, 0, 2+len(icl))
	rec.PointsNs = append(rec.PointsNs, t)
	for _, d := range append([]int64{ttft}, icl...) {
		if t > math.MaxInt64-d {
			return errors.New("time points past int64 nanoseconds")
		}
		t += d
		rec.PointsNs = append(rec.PointsNs, t)
	}
	// AIPerf's definitions: TTFT + the inter-chunk latencies = the request
	// latency. Each value was rounded to the ns by the ms conversion, so
	// allow one ns a term.
	if rec.LatencyNs >= 0 {
		sum := t - rec.StartNs
		if d := sum - rec.LatencyNs; d > int64(len(icl))+1 || -d > int64(len(icl))+1 {
			return fmt.Errorf("%s + inter_chunk_latency = %s ms but request_latency = %s ms: want them equal (AIPerf's definitions)", ttftKey, ms(sum), ms(rec.LatencyNs))
		}
	}
	return nil
}

// Request is the record as a trace request with the given id; offset is
// subtracted from every time. A record without time points (a failure, or
// a warm-up record, which is not parsed) keeps its start alone.
func (rec *MetricRecord) Request(id string, offset int64) trace.Request {
	req := trace.Request{RequestID: id, T0Ns: rec.StartNs - offset, Error: rec.Error}
	end := rec.EndNs
	if rec.Error != nil || len(rec.PointsNs) == 0 {
		req.TimePointsS = []float64{seconds(rec.StartNs - offset)}
	} else {
		status := int32(200)
		req.HTTPStatus = &status
		req.TimePointsS = make([]float64, len(rec.PointsNs))
		for i, p := range rec.PointsNs {
			req.TimePointsS[i] = seconds(p - offset)
		}
		end = max(end, rec.PointsNs[len(rec.PointsNs)-1])
		req.InputTokens, req.OutputTokens = rec.InputTokens, rec.OutputTokens
	}
	end = max(end, rec.StartNs) - offset
	req.EndNs = &end
	return req
}

func seconds(ns int64) float64 { return float64(ns) / 1e9 }

func ms(ns int64) string { return strconv.FormatFloat(float64(ns)/1e6, 'f', -1, 64) }

func isNull(b []byte) bool { return string(bytes.TrimSpace(b)) == "null" }

// nsField reads an integer ns field.
func nsField(md map[string]json.RawMessage, k string) (int64, error) {
	v, err := strconv.ParseInt(string(bytes.TrimSpace(md[k])), 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%.40s: want a non-negative integer of ns", md[k])
	}
	return v, nil
}

// durationNs reads a time metric {"value", "unit"} in ns.
func durationNs(m map[string]json.RawMessage, k string) (int64, error) {
	var mv metricJSON
	var v float64
	if err := json.Unmarshal(m[k], &mv); err != nil || json.Unmarshal(mv.Value, &v) != nil {
		return 0, fmt.Errorf(`metrics.%s: want {"value": number, "unit"}`, k)
	}
	scale, ok := unitNs[mv.Unit]
	if !ok {
		return 0, fmt.Errorf("metrics.%s: unit %q: want ns, us, ms or sec", k, mv.Unit)
	}
	ns, err := toNs(v, scale)
	if err != nil {
		return 0, fmt.Errorf("metrics.%s: %v", k, err)
	}
	return ns, nil
}

// toNs converts a value in a unit to whole ns (AIPerf measures in ns and
// divides for display, so rounding gives the ns back).
func toNs(v, scale float64) (int64, error) {
	ns := math.Round(v * scale)
	if math.IsNaN(ns) || ns < 0 || ns > 1<<62 {
		return 0, fmt.Errorf("%v: want a duration of 0 or more that fits in int64 ns", v)
	}
	return int64(ns), nil
}

// tokens reads a token-count metric; nil when absent.
func tokens(m map[string]json.RawMessage, k string) (*int64, error) {
	raw, ok := m[k]
	if !ok || isNull(raw) {
		return nil, nil
	}
	var mv metricJSON
	var v float64
	if err := json.Unmarshal(raw, &mv); err != nil || json.Unmarshal(mv.Value, &v) != nil || v < 0 || v != math.Trunc(v) || v > 1<<53 {
		return nil, fmt.Errorf(`metrics.%s: want {"value": a count of 0 or more}`, k)
	}
	n := int64(v)
	return &n, nil
}

// errorText is an error object as text: "code C: TYPE: MESSAGE", the code
// and type left out when absent (AIPerf 2026 errors may have no code).
func errorText(e json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(e, &s) == nil {
		return s, nil
	}
	var d struct {
		Code    json.RawMessage `json:"code"`
		Type    string          `json:"type"`
		Message string          `json:"message"`
	}
	if err := json.Unmarshal(e, &d); err != nil {
		return "", fmt.Errorf("error: want null, a string or {code, type, message}: %v", err)
	}
	s = d.Message
	if d.Type != "" {
		s = d.Type + ": " + s
	}
	if c := bytes.TrimSpace(d.Code); len(c) > 0 && string(c) != "null" {
		s = "code " + string(c) + ": " + s
	}
	return s, nil
}
