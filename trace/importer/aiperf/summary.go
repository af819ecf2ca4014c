// AIPerf's own summary (profile_export_aiperf.json), reproduced from the
// imported trace under AIPerf's definitions.

package aiperf

import (
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/importer/crosscheck"
	"github.com/sseaudit/sseaudit/trace/importer/sourcefile"
)

// SummaryName is the file AIPerf writes its summary to, beside the records.
const SummaryName = "profile_export_aiperf.json"

// SummaryBeside is the summary file in the folder of src, or "" when there
// is none.
func SummaryBeside(src string) string {
	p := filepath.Join(filepath.Dir(src), SummaryName)
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		return p
	}
	return ""
}

// Summary is AIPerf's summary file: each metric's statistics by tag, and
// the run's load settings.
type Summary struct {
	Path    string
	Metrics map[string]map[string]json.RawMessage // tag -> avg, min, ..., unit
	// Concurrency and RequestRate are input_config.loadgen's; 0 when absent.
	Concurrency int
	RequestRate float64
}

// ReadSummary reads profile_export_aiperf.json: metrics under "records"
// (AIPerf <= 0.2) or at the top level (2026).
func ReadSummary(path string) (*Summary, error) {
	f, err := sourcefile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return DecodeSummary(f, path)
}

// DecodeSummary reads a summary from r; path is the file's name for
// errors.
func DecodeSummary(r io.Reader, path string) (*Summary, error) {
	vals, _, err := sourcefile.ReadAll(r, path, sourcefile.Limits{MaxBytes: 256 << 20})
	if err != nil {
		return nil, err
	}
	if len(vals) != 1 {
		return nil, sourcefile.Errorf(path, 0, "%d JSON values: want AIPerf's summary, one JSON object", len(vals))
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(sourcefile.PythonJSON(vals[0].Data), &top); err != nil {
		return nil, sourcefile.Errorf(path, vals[0].Line, "not a JSON object (%v): want AIPerf's summary", err)
	}
	s := &Summary{Path: path, Metrics: map[string]map[string]json.RawMessage{}}
	metrics := top
	if rec, ok := top["records"]; ok {
		if err := json.Unmarshal(rec, &metrics); err != nil {
			return nil, sourcefile.Errorf(path, 0, `"records": want an object of metrics by tag`)
		}
	}
	for tag, raw := range metrics {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) == nil && m["unit"] != nil {
			s.Metrics[tag] = m
		}
	}
	if len(s.Metrics) == 0 {
		return nil, sourcefile.Errorf(path, 0, `no metrics (objects with "unit" and "avg"): want AIPerf's summary`)
	}
	var cfg struct {
		Loadgen struct {
			Concurrency json.RawMessage `json:"concurrency"`
			RequestRate json.RawMessage `json:"request_rate"`
		} `json:"loadgen"`
	}
	if json.Unmarshal(top["input_config"], &cfg) == nil {
		if c, err := strconv.Atoi(string(cfg.Loadgen.Concurrency)); err == nil && c > 0 {
			s.Concurrency = c
		}
		if r, err := strconv.ParseFloat(string(cfg.Loadgen.RequestRate), 64); err == nil && r > 0 && !math.IsInf(r, 0) {
			s.RequestRate = r
		}
	}
	return s, nil
}

// stat is a statistic of a metric from the summary; false when absent or
// null.
func (s *Summary) stat(tag, stat string) (float64, bool) {
	var v *float64
	if json.Unmarshal(s.Metrics[tag][stat], &v) != nil || v == nil {
		return 0, false
	}
	return *v, true
}

// unitScale is how many ns (or tokens, requests) one unit of tag holds.
func (s *Summary) unitScale(tag string) float64 {
	var u string
	json.Unmarshal(s.Metrics[tag]["unit"], &u)
	if ns, ok := unitNs[u]; ok {
		return ns
	}
	return 1
}

// summaryStats are the statistics AIPerf writes for a metric.
var summaryStats = []string{"avg", "min", "max", "std", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99"}

func statOf(xs []float64, stat string) float64 {
	switch stat {
	case "avg":
		return crosscheck.Mean(xs)
	case "min":
		return crosscheck.Min(xs)
	case "max":
		return crosscheck.Max(xs)
	case "std":
		return crosscheck.Std(xs)
	}
	p, _ := strconv.ParseFloat(stat[1:], 64)
	return crosscheck.Percentile(xs, p)
}

// tally gathers, from the imported requests, the per-request values of
// AIPerf's metrics, in ns (times) or counts.
type tally struct {
	successes, failures int
	ttft, latency, ttst []float64
	icl                 []float64
	itl, perUser        []float64
	osl, isl            []float64
	minStart, maxEnd    int64
	offset              int64
}

// add takes one imported request (times relative to the clock offset).
func (t *tally) add(r *trace.Request) {
	if r.Failed() {
		t.failures++
		return
	}
	t.successes++
	tp := r.TimePointsS
	ns := func(s float64) float64 { return math.Round(s * 1e9) }
	start := r.T0Ns
	if t.successes == 1 || start < t.minStart {
		t.minStart = start
	}
	if len(tp) >= 2 {
		end := start + int64(ns(tp[len(tp)-1]-tp[0]))
		if t.successes == 1 || end > t.maxEnd {
			t.maxEnd = end
		}
		ttft, lat := ns(tp[1]-tp[0]), ns(tp[len(tp)-1]-tp[0])
		t.ttft = append(t.ttft, ttft)
		t.latency = append(t.latency, lat)
		d := crosscheck.Diff(tp[1:])
		for k := range d {
			d[k] = ns(d[k])
		}
		t.icl = append(t.icl, d...)
		if len(d) > 0 {
			t.ttst = append(t.ttst, d[0])
		}
		if r.OutputTokens != nil && *r.OutputTokens > 1 {
			itl := (lat - ttft) / float64(*r.OutputTokens-1)
			t.itl = append(t.itl, itl)
			t.perUser = append(t.perUser, 1e9/itl)
		}
	}
	if r.OutputTokens != nil {
		t.osl = append(t.osl, float64(*r.OutputTokens))
	}
	if r.InputTokens != nil {
		t.isl = append(t.isl, float64(*r.InputTokens))
	}
}

// compare is AIPerf's summary beside the figures of the imported trace.
func (t *tally) compare(s *Summary) *crosscheck.Comparison {
	c := &crosscheck.Comparison{Source: s.Path}
	one := func(tag string, trace float64) {
		if v, ok := s.stat(tag, "avg"); ok {
			c.Add(tag, v, trace)
		}
	}
	one("request_count", float64(t.successes))
	one("error_request_count", float64(t.failures))
	dist := func(tag string, xs []float64, scale float64) {
		if _, ok := s.Metrics[tag]; !ok {
			return
		}
		vals := make([]float64, len(xs))
		for i, x := range xs {
			vals[i] = x * scale / s.unitScale(tag)
		}
		for _, st := range summaryStats {
			if v, ok := s.stat(tag, st); ok {
				c.Add(tag+"."+st, v, statOf(vals, st))
			}
		}
		if n, ok := s.stat(tag, "count"); ok && tag == "inter_chunk_latency" {
			c.Add(tag+".count", n, float64(len(xs)))
		}
	}
	for _, tag := range []string{"ttft", "time_to_first_token"} {
		dist(tag, t.ttft, 1)
	}
	for _, tag := range []string{"ttst", "time_to_second_token"} {
		dist(tag, t.ttst, 1)
	}
	dist("request_latency", t.latency, 1)
	dist("inter_chunk_latency", t.icl, 1)
	dist("inter_token_latency", t.itl, 1)
	dist("output_token_throughput_per_user", t.perUser, 1)
	dist("output_sequence_length", t.osl, 1)
	dist("input_sequence_length", t.isl, 1)
	if t.successes > 0 {
		one("min_request_timestamp", float64(t.minStart+t.offset))
		one("max_response_timestamp", float64(t.maxEnd+t.offset))
		dur := float64(t.maxEnd-t.minStart) / 1e9
		one("benchmark_duration", dur)
		one("request_throughput", float64(t.successes)/dur)
		one("output_token_throughput", sum(t.osl)/dur)
	}
	one("total_osl", sum(t.osl))
	one("total_isl", sum(t.isl))
	for _, tag := range []string{"reasoning_token_count", "output_token_count", "total_reasoning_tokens", "total_output_tokens"} {
		if _, ok := s.Metrics[tag]; ok {
			c.Skipped = append(c.Skipped, tag+" (the trace keeps one output count, reasoning included)")
		}
	}
	return c
}

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}
