// Package sglang reads the output file of SGLang's `python -m
// sglang.bench_serving --output-file F --output-details` into trace
// requests.
//
// bench_serving appends one JSON object a run to the file (JSON Lines);
// people also commit a run pretty-printed. Options.Run picks a run of
// several. Each run is an object with the run's figures (backend,
// dataset_name, request_rate, max_concurrency, duration, completed,
// mean_ttft_ms, ...) and, with --output-details, lists with one entry a
// request: input_lens, output_lens, ttfts (s), itls (a list of s a
// request), generated_texts and errors ("" for a success). Newer versions
// add server_info (the server's settings), tag (--tag) and accept_length
// (speculative decoding); they are kept in the run metadata.
//
// The lists carry no start times. Each request therefore becomes a trace
// request whose start is 0: t0_ns = 0, time_points_s = [0, ttft, then each
// previous time point plus the next itl], tokens from the lens, status 200
// for a success; a request with an error gets its text, no status and the
// time point 0 alone. What it loses: every body byte (time points only),
// the start times and so the run's timeline: per-request figures (E2EL,
// TTFT, TPOT, ITL, tokens) are right, but the benchmark duration, the
// throughputs and the concurrency of the total stage are not (every
// request starts at 0), and there is no stable stage (AISBench finds none
// when every request starts at once).
//
// Check reproduces the run's own figures that the lists determine
// (completed, token totals, TTFT and ITL statistics) under SGLang's
// definitions.
package sglang

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/importer/crosscheck"
	"github.com/sseaudit/sseaudit/trace/importer/vllmbench"
)

// want describes the expected file for error messages.
const want = `want the JSONL written by sglang.bench_serving --output-file --output-details: one object a run with "ttfts", "itls", "input_lens", "output_lens", "errors"`

// Options select what to read.
type Options struct {
	// Run is the 1-based run (JSON object, one a line as bench_serving
	// appends them) to import; 0 means the only one (an error when the file
	// holds several).
	Run int
	// MaxRequests bounds the requests read (trace.DefaultLimits when 0).
	MaxRequests int64
}

// Reader yields the requests of one run.
type Reader struct {
	name  string
	run   *vllmbench.Run
	lists vllmbench.Lists
	i     int
	cur   trace.Request
	err   error
	chk   *trace.Checker
	meta  trace.Meta
	tally vllmbench.Tally
}

// Read reads the file and keeps one run.
func Read(r io.Reader, name string, opts Options) (*Reader, error) {
	run, err := vllmbench.ReadRun(r, name, opts.Run, "--run", want, func(top map[string]json.RawMessage) bool { return top["ttfts"] != nil })
	if err != nil {
		return nil, err
	}
	where := run.Where(name)
	if run.Top["start_times"] != nil || (run.Top["model_id"] != nil && run.Top["dataset_name"] == nil) {
		return nil, fmt.Errorf("%s: a vllm bench serve result (\"model_id\"%s): import it with --from vllm, whose definitions its figures follow", where, map[bool]string{true: `, "start_times"`}[run.Top["start_times"] != nil])
	}
	if _, ok := run.Top["ttfts"]; !ok {
		return nil, fmt.Errorf("%s: no ttfts: a summary without the per-request lists (was it written with --output-details? bench_serving writes ttfts, itls, input_lens, output_lens and errors only with it): %s", where, want)
	}
	lists, err := vllmbench.DecodeLists(run.Top)
	if err != nil {
		return nil, fmt.Errorf("%s: %v: %s", where, err, want)
	}
	limits := trace.DefaultLimits
	if opts.MaxRequests > 0 {
		limits.MaxRequests = opts.MaxRequests
	}
	if int64(lists.Len()) > limits.MaxRequests {
		return nil, fmt.Errorf("%s: %d requests, more than %d: %w", where, lists.Len(), limits.MaxRequests, trace.ErrLimit)
	}
	rd := &Reader{name: name, run: run, lists: lists, chk: trace.NewChecker(name, limits)}
	var res struct {
		Backend        string          `json:"backend"`
		Dataset        string          `json:"dataset_name"`
		RequestRate    json.RawMessage `json:"request_rate"`
		MaxConcurrency json.RawMessage `json:"max_concurrency"`
		Tag            string          `json:"tag"`
		AcceptLength   json.RawMessage `json:"accept_length"`
	}
	run.Decode(&res)
	rd.meta = vllmbench.RunMeta("import sglang", res.MaxConcurrency, res.RequestRate)
	if lists.StartTimes == nil {
		rd.meta.Set(vllmbench.KeyStartTimes, vllmbench.NoStartTimes)
	}
	run.SetMeta(&rd.meta)
	for k, v := range map[string]string{"backend": res.Backend, "dataset": res.Dataset, "tag": res.Tag} {
		if v != "" {
			rd.meta.Set(trace.KeyRunPrefix+k, v)
		}
	}
	if a := strings.TrimSpace(string(res.AcceptLength)); a != "" && a != "null" {
		rd.meta.Set(trace.KeyRunPrefix+"accept_length", a)
	}
	rd.meta.Set(trace.KeyRunPrefix+"lost", rd.Lost())
	return rd, nil
}

// Lost says what the file does not hold that a trace can.
func (rd *Reader) Lost() string {
	s := "body bytes (no events, event classes or read boundaries: time points only), HTTP status of failures"
	if rd.lists.StartTimes == nil {
		s += ", request start times (every request starts at 0)"
	}
	return s
}

// Notes say what the import did that a reader of the trace should know.
func (rd *Reader) Notes() []string {
	return []string{
		fmt.Sprintf("%s: sglang.bench_serving output (%s, %s): time points rebuilt from ttfts and itls; lost: %s", rd.run.Where(rd.name), rd.run.Layout, rd.run.Of(), rd.Lost()),
		fmt.Sprintf("%s: no start times: every request starts at 0; per-request figures (E2EL, TTFT, TPOT, ITL, tokens) are right, the stages that need send times are not (%s = %q)", rd.name, vllmbench.KeyStartTimes, vllmbench.NoStartTimes),
	}
}

// Meta is the run metadata.
func (rd *Reader) Meta() trace.Meta { return rd.meta }

// Len is the number of requests.
func (rd *Reader) Len() int { return rd.lists.Len() }

// Scan moves to the next request.
func (rd *Reader) Scan() bool {
	if rd.err != nil || rd.i >= rd.lists.Len() {
		return false
	}
	req, err := rd.lists.Request(fmt.Sprintf("sglang-%06d", rd.i), rd.i)
	if err != nil {
		rd.err = fmt.Errorf("%s: request %d: %v", rd.run.Where(rd.name), rd.i, err)
		return false
	}
	rd.chk.File = fmt.Sprintf("%s: request %d", rd.run.Where(rd.name), rd.i)
	if err := rd.chk.Check(&req, trace.Error{RowGroup: -1, Row: -1}); err != nil {
		rd.err = err
		return false
	}
	rd.tally.Add(&req)
	rd.cur = req
	rd.i++
	return true
}

// Request is the current request, valid until the next Scan.
func (rd *Reader) Request() *trace.Request { return &rd.cur }

// Err is the error that ended the scan, if any.
func (rd *Reader) Err() error { return rd.err }

// Check is the run's own figures beside the same figures from the requests
// scanned (call it after the last Scan), under SGLang's definitions
// (bench_serving calculate_metrics): over the successful requests,
// completed, total_input_tokens (their prompt lengths), total_output_tokens
// (their output lengths), the TTFT statistics and those of the pooled ITLs.
// SGLang's E2E latency (and so TPOT) ends when the stream ends, after the
// last token: the lists do not hold it.
func (rd *Reader) Check() *crosscheck.Comparison {
	c := &crosscheck.Comparison{Source: rd.run.Where(rd.name)}
	t := &rd.tally
	rd.run.Figure(c, "completed", float64(t.Successes))
	rd.run.Figure(c, "total_input_tokens", float64(t.InputTokens))
	rd.run.Figure(c, "total_output_tokens", float64(t.OutputTokens))
	rd.run.Distribution(c, "ttft", t.TTFT)
	rd.run.Distribution(c, "itl", t.ITL)
	for _, k := range []string{"mean_e2e_latency_ms", "mean_tpot_ms"} {
		if _, ok := rd.run.Top[k]; ok {
			c.Skipped = append(c.Skipped, k+" (SGLang's latency ends with the stream, after the last token: not in the lists)")
		}
	}
	for _, k := range []string{"duration", "request_throughput", "output_throughput"} {
		if _, ok := rd.run.Top[k]; ok {
			c.Skipped = append(c.Skipped, k+" (the run's duration is not in the lists)")
		}
	}
	return c
}
