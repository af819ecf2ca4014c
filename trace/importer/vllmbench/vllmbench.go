// Package vllmbench reads the result file of `vllm bench serve
// --save-result --save-detailed` (RESULT.json, and benchmarks/
// benchmark_serving.py's before it) into trace requests.
//
// The file holds one JSON object a run: one run, compact (as vLLM writes
// it) or pretty-printed (as people commit it after `python -m json.tool`),
// or several runs appended one a line (--append-result), of which Options.Run
// picks one. Beside the run's figures (backend, model_id, request_rate,
// max_concurrency, duration, mean_ttft_ms, ...) --save-detailed adds lists
// with one entry a request, in the order the requests were sent: ttfts (s),
// itls (a list of s a request), input_lens, output_lens, errors ("" for a
// success), generated_texts and, from vLLM PR #32667 (2026-01-20) on,
// start_times (s).
//
// Each request becomes a trace request with time points only:
// time_points_s = [start, start+ttft, then each previous time point plus
// the next itl], t0_ns = start in ns, end_ns = the last time point,
// input_tokens and output_tokens from the lens, HTTP status 200 for a
// success; a request with an error gets the error text, no status and only
// its start as a time point. A file saved before start_times existed is
// imported with every start at 0 (time points relative to each request's
// own start): the per-request figures are right, the run's timeline is
// not, and KeyStartTimes says so. What it loses: every body byte (no
// events, no classes, no read boundaries: only AISBench-style figures can
// be made), the float rounding of AISBench's own differences (time points
// are rebuilt by addition, so ttft and itl come back within a few ulps),
// the HTTP status of failures, and, without start_times, the timeline.
//
// Check reproduces the run's own figures (completed, token totals, TTFT,
// TPOT, ITL and E2EL statistics) from the imported requests under vLLM's
// definitions.
package vllmbench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/importer/crosscheck"
)

// want describes the expected file for error messages.
const want = `want the JSON written by vllm bench serve --save-result --save-detailed: {"ttfts", "itls", "input_lens", "output_lens", "errors", "start_times" (from vLLM PR #32667), ...}`

// KeyStartTimes is set when the file has no start times: every request
// then starts at 0, and the stages that need send times (the benchmark
// duration, throughputs and concurrency of the total stage, the stable
// stage) cannot be made.
const KeyStartTimes = trace.KeyStartTimes

// NoStartTimes is KeyStartTimes's value.
const NoStartTimes = "unknown: every request starts at 0 (no timeline: no benchmark duration, throughput, concurrency or stable stage)"

// Options select what to read.
type Options struct {
	// Run is the 1-based run to import from a file of appended runs; 0
	// means the only one (an error when the file holds several).
	Run int
	// MaxRequests bounds the requests read (trace.DefaultLimits when 0).
	MaxRequests int64
}

// Reader yields the requests of a result file in send order.
type Reader struct {
	name  string
	run   *Run
	lists Lists
	i     int
	cur   trace.Request
	err   error
	chk   *trace.Checker
	meta  trace.Meta
	tally Tally
	// chat: a chat backend (openai-chat), whose latency ends at the last
	// message parsed (the usage-only tail), not at the last token.
	chat bool
}

// Read reads a result file.
func Read(r io.Reader, name string, opts Options) (*Reader, error) {
	run, err := ReadRun(r, name, opts.Run, "--run", want, looksLikeRun)
	if err != nil {
		return nil, err
	}
	where := run.Where(name)
	if run.Top["model_id"] == nil && (run.Top["dataset_name"] != nil || run.Top["mean_e2e_latency_ms"] != nil) {
		return nil, fmt.Errorf("%s: an sglang.bench_serving run (\"dataset_name\", \"mean_e2e_latency_ms\", no \"model_id\"): import it with --from sglang, whose definitions its figures follow", where)
	}
	if _, ok := run.Top["ttfts"]; !ok {
		return nil, fmt.Errorf("%s: no ttfts: a summary without the per-request lists (was it saved with --save-detailed? vllm bench serve keeps ttfts, itls, input_lens, output_lens and errors only with it): %s", where, want)
	}
	lists, err := DecodeLists(run.Top)
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
		ModelID        string          `json:"model_id"`
		Date           string          `json:"date"`
		RequestRate    json.RawMessage `json:"request_rate"`
		MaxConcurrency json.RawMessage `json:"max_concurrency"`
		Burstiness     json.RawMessage `json:"burstiness"`
	}
	run.Decode(&res)
	rd.chat = strings.Contains(res.Backend, "chat")
	rd.meta = RunMeta("import vllm", res.MaxConcurrency, res.RequestRate)
	for k, v := range map[string]string{"backend": res.Backend, "model": res.ModelID, "date": res.Date} {
		if v != "" {
			rd.meta.Set(trace.KeyRunPrefix+k, v)
		}
	}
	if b := strings.TrimSpace(string(res.Burstiness)); b != "" && b != "null" {
		rd.meta.Set(trace.KeyRunPrefix+"burstiness", b)
	}
	run.SetMeta(&rd.meta)
	rd.meta.Set(trace.KeyRunPrefix+"lost", rd.Lost())
	if lists.StartTimes == nil {
		rd.meta.Set(KeyStartTimes, NoStartTimes)
	}
	return rd, nil
}

// looksLikeRun reports whether a run object has per-request lists.
func looksLikeRun(top map[string]json.RawMessage) bool { return top["ttfts"] != nil }

// Lost says what the file does not hold that a trace can.
func (rd *Reader) Lost() string {
	s := "body bytes (no events, event classes or read boundaries: time points only), HTTP status of failures"
	if rd.lists.StartTimes == nil {
		s += ", request start times (saved before vLLM PR #32667: every request starts at 0)"
	}
	return s
}

// Notes say what the import did that a reader of the trace should know.
func (rd *Reader) Notes() []string {
	n := []string{fmt.Sprintf("%s: vllm bench serve result (%s, %s): time points rebuilt from ttfts and itls; lost: %s", rd.run.Where(rd.name), rd.run.Layout, rd.run.Of(), rd.Lost())}
	if rd.lists.StartTimes == nil {
		n = append(n, fmt.Sprintf("%s: no start_times (vLLM before PR #32667, 2026-01-20): every request starts at 0; per-request figures (E2EL, TTFT, TPOT, ITL, tokens) are right, the stages that need send times are not (%s = %q)", rd.name, KeyStartTimes, NoStartTimes))
	}
	return n
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
	req, err := rd.lists.Request(fmt.Sprintf("vllm-%06d", rd.i), rd.i)
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
// scanned (call it after the last Scan), under vLLM's definitions
// (benchmarks/serve.py calculate_metrics): over the successful requests,
// TTFT, the pooled ITLs, TPOT = (latency - ttft) / (output_len - 1) for
// output_len > 1 and E2EL = latency, where vLLM's latency ends at the last
// token (ttft plus the itls) for a completions backend; a chat backend's
// TPOT and E2EL are skipped, with the reason.
func (rd *Reader) Check() *crosscheck.Comparison {
	c := &crosscheck.Comparison{Source: rd.run.Where(rd.name)}
	t := &rd.tally
	rd.run.Figure(c, "completed", float64(t.Successes))
	rd.run.Figure(c, "failed", float64(t.Failures))
	rd.run.Figure(c, "total_input_tokens", float64(t.InputTokens))
	rd.run.Figure(c, "total_output_tokens", float64(t.OutputTokens))
	rd.run.Distribution(c, "ttft", t.TTFT)
	if !rd.chat {
		rd.run.Distribution(c, "tpot", t.TPOT)
	}
	rd.run.Distribution(c, "itl", t.ITL)
	if !rd.chat {
		rd.run.Distribution(c, "e2el", t.Latency)
	} else {
		// async_request_openai_chat_completions sets most_recent_timestamp on
		// every message it parses, the usage-only tail included: its latency
		// (E2EL, and TPOT through it) ends after the last token, and the
		// lists do not hold when.
		var skipped []string
		for k := range rd.run.Top {
			if m := statKey.FindStringSubmatch(k); m != nil && (m[2] == "tpot" || m[2] == "e2el") {
				skipped = append(skipped, k+" (a chat backend's latency ends at the last message parsed, after the last token: not in the lists)")
			}
		}
		sort.Strings(skipped)
		c.Skipped = append(c.Skipped, skipped...)
	}
	for _, k := range []string{"duration", "request_throughput", "output_throughput", "total_token_throughput"} {
		if _, ok := rd.run.Top[k]; ok {
			c.Skipped = append(c.Skipped, k+" (the benchmark's duration is not in the per-request lists)")
		}
	}
	return c
}

// RunMeta builds the metadata both vLLM's and SGLang's files give.
func RunMeta(source string, maxConc, rate json.RawMessage) trace.Meta {
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
