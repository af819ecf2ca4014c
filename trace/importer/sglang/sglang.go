// Package sglang reads the output file of SGLang's `python -m
// sglang.bench_serving --output-file F --output-details` into trace
// requests.
//
// The file is JSON Lines, one line a benchmark run (bench_serving appends);
// each line is an object with the run's figures (backend, dataset_name,
// request_rate, max_concurrency, duration, completed, ...) and, with
// --output-details, lists with one entry a request: input_lens,
// output_lens, ttfts (s), itls (a list of s a request), generated_texts and
// errors ("" for a success).
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
package sglang

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/importer/vllmbench"
)

// want describes the expected file for error messages.
const want = `want the JSONL written by sglang.bench_serving --output-file --output-details: one object a run with "ttfts", "itls", "input_lens", "output_lens", "errors"`

type run struct {
	TTFTs      []float64   `json:"ttfts"`
	ITLs       [][]float64 `json:"itls"`
	InputLens  []int64     `json:"input_lens"`
	OutputLens []int64     `json:"output_lens"`
	Errors     []string    `json:"errors"`

	Backend        string          `json:"backend"`
	Dataset        string          `json:"dataset_name"`
	RequestRate    json.RawMessage `json:"request_rate"`
	MaxConcurrency json.RawMessage `json:"max_concurrency"`
}

// Reader yields the requests of one run.
type Reader struct {
	name string
	line int
	r    run
	n    int
	i    int
	cur  trace.Request
	err  error
	chk  *trace.Checker
	meta trace.Meta
}

// Read reads the file and keeps run number runIndex (1-based line of a
// run, counting non-blank lines); 0 means the only run (an error when the
// file holds several). maxRequests bounds it (trace.DefaultLimits when 0).
func Read(r io.Reader, name string, runIndex int, maxRequests int64) (*Reader, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<30)
	var lines [][]byte
	var lineNos []int
	n := 0
	for sc.Scan() {
		n++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		lines = append(lines, append([]byte(nil), b...))
		lineNos = append(lineNos, n)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: line %d: %w", name, n+1, err)
	}
	switch {
	case len(lines) == 0:
		return nil, fmt.Errorf("%s: empty: %s", name, want)
	case runIndex == 0 && len(lines) > 1 && !looksLikeRun(lines[0]):
		runIndex = 1 // say what is wrong with it, below
	case runIndex == 0 && len(lines) > 1:
		return nil, fmt.Errorf("%s: %d runs (one a line): choose one with --sglang-run (1 to %d)", name, len(lines), len(lines))
	case runIndex == 0:
		runIndex = 1
	case runIndex < 0 || runIndex > len(lines):
		return nil, fmt.Errorf("%s: run %d: the file holds %d (1 to %d)", name, runIndex, len(lines), len(lines))
	}
	b := vllmbench.PythonJSON(lines[runIndex-1])
	rd := &Reader{name: name, line: lineNos[runIndex-1]}
	where := fmt.Sprintf("%s: line %d", name, rd.line)
	if b[0] != '{' {
		return nil, fmt.Errorf("%s: not a JSON object: %s", where, want)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, fmt.Errorf("%s: not valid JSON (%v): %s", where, err, want)
	}
	var missing []string
	for _, k := range []string{"ttfts", "itls", "input_lens", "output_lens", "errors"} {
		if _, ok := top[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		hint := ""
		if _, ok := top["ttfts"]; !ok {
			hint = " (was it written with --output-details?)"
		}
		return nil, fmt.Errorf("%s: no %s%s: %s", where, strings.Join(missing, ", "), hint, want)
	}
	if err := json.Unmarshal(b, &rd.r); err != nil {
		return nil, fmt.Errorf("%s: %v: %s", where, err, want)
	}
	rd.n = len(rd.r.TTFTs)
	for k, l := range map[string]int{"itls": len(rd.r.ITLs), "input_lens": len(rd.r.InputLens), "output_lens": len(rd.r.OutputLens), "errors": len(rd.r.Errors)} {
		if l != rd.n {
			return nil, fmt.Errorf("%s: %s has %d entries and ttfts %d: want one entry a request in each list", where, k, l, rd.n)
		}
	}
	limits := trace.DefaultLimits
	if maxRequests > 0 {
		limits.MaxRequests = maxRequests
	}
	rd.chk = trace.NewChecker(name, limits)
	rd.meta = vllmbench.RunMeta("import sglang", rd.r.MaxConcurrency, rd.r.RequestRate)
	rd.meta.Set(trace.KeyRunPrefix+"start_times", "unknown: every request starts at 0 (no timeline, no stable stage)")
	rd.meta.Set(trace.KeyRunPrefix+"line", strconv.Itoa(rd.line))
	if rd.r.Backend != "" {
		rd.meta.Set(trace.KeyRunPrefix+"backend", rd.r.Backend)
	}
	if rd.r.Dataset != "" {
		rd.meta.Set(trace.KeyRunPrefix+"dataset", rd.r.Dataset)
	}
	return rd, nil
}

// looksLikeRun reports whether b is a JSON object with a "ttfts" key.
func looksLikeRun(b []byte) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(vllmbench.PythonJSON(b), &top) != nil {
		return false
	}
	_, ok := top["ttfts"]
	return ok
}

// Meta is the run metadata.
func (rd *Reader) Meta() trace.Meta { return rd.meta }

// Len is the number of requests.
func (rd *Reader) Len() int { return rd.n }

// Scan moves to the next request.
func (rd *Reader) Scan() bool {
	if rd.err != nil || rd.i >= rd.n {
		return false
	}
	i := rd.i
	r := &rd.r
	req, err := vllmbench.Request(fmt.Sprintf("sglang-%06d", i), 0, r.TTFTs[i], r.ITLs[i], r.InputLens[i], r.OutputLens[i], r.Errors[i])
	if err != nil {
		rd.err = fmt.Errorf("%s: line %d: request %d: %v", rd.name, rd.line, i, err)
		return false
	}
	rd.chk.File = fmt.Sprintf("%s: line %d: request %d", rd.name, rd.line, i)
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
