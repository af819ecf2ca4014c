// What vLLM's and SGLang's results share: runs of one JSON object each,
// per-request lists, and their summary statistics. Package sglang uses
// them.

package vllmbench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/importer/crosscheck"
	"github.com/sseaudit/sseaudit/trace/importer/sourcefile"
)

// Run is one run of a results file: one top-level JSON object.
type Run struct {
	Index  int // 1-based
	Runs   int // runs in the file
	Line   int // where it starts
	Layout sourcefile.Layout
	Top    map[string]json.RawMessage // Python's NaN and Infinity as strings
}

// Of is "run I of N".
func (r *Run) Of() string { return fmt.Sprintf("run %d of %d", r.Index, r.Runs) }

// Where is the file and the run's line, for errors.
func (r *Run) Where(name string) string {
	return fmt.Sprintf("%s: line %d", name, r.Line)
}

// ReadRun reads a file of one run or several appended ones and returns run
// number run (1-based; 0: the only one). flag is the option that picks a
// run and want describes the file, for errors; isRun tells a run object
// from something else, so that a file of foreign objects gets an error
// about the first of them.
func ReadRun(r io.Reader, name string, run int, flag, want string, isRun func(map[string]json.RawMessage) bool) (*Run, error) {
	vals, layout, err := sourcefile.ReadAll(r, name, sourcefile.Limits{})
	if err != nil {
		return nil, err
	}
	n := len(vals)
	decode := func(v sourcefile.Value) (map[string]json.RawMessage, error) {
		var top map[string]json.RawMessage
		if err := json.Unmarshal(sourcefile.PythonJSON(v.Data), &top); err != nil {
			if v.Data[0] != '{' {
				return nil, sourcefile.Errorf(name, v.Line, "not a JSON object: %s", want)
			}
			return nil, sourcefile.Errorf(name, v.Line, "not valid JSON (%v): %s", err, want)
		}
		return top, nil
	}
	switch {
	case n == 0:
		return nil, sourcefile.Errorf(name, 0, "empty: %s", want)
	case run < 0 || run > n:
		return nil, fmt.Errorf("%s: run %d: the file holds %d (%s 1 to %d)", name, run, n, flag, n)
	case run == 0 && n > 1:
		top, err := decode(vals[0])
		if err != nil {
			return nil, err
		}
		if !isRun(top) {
			run = 1 // say what is wrong with it
			break
		}
		return nil, fmt.Errorf("%s: %d runs (%s, appended): choose one with %s (1 to %d; run 1 starts on line %d, run %d on line %d)", name, n, layout, flag, n, vals[0].Line, n, vals[n-1].Line)
	case run == 0:
		run = 1
	}
	v := vals[run-1]
	top, err := decode(v)
	if err != nil {
		return nil, err
	}
	return &Run{Index: run, Runs: n, Line: v.Line, Layout: layout, Top: top}, nil
}

// Decode decodes the run into v, leaving what does not fit at its zero
// value (the fields decoded this way are informative).
func (r *Run) Decode(v any) {
	b, _ := json.Marshal(r.Top)
	json.Unmarshal(b, v)
}

// SetMeta records which run of the file the trace is.
func (r *Run) SetMeta(m *trace.Meta) {
	m.Set(trace.KeyRunPrefix+"run", strconv.Itoa(r.Index))
	m.Set(trace.KeyRunPrefix+"line", strconv.Itoa(r.Line))
}

// Lists are a run's per-request lists, one entry a request in send order.
type Lists struct {
	StartTimes []float64 // nil when the run has none
	TTFTs      []float64
	ITLs       [][]float64
	InputLens  []int64
	OutputLens []int64
	Errors     []string
}

// Len is the number of requests.
func (l *Lists) Len() int { return len(l.TTFTs) }

// DecodeLists decodes a run's per-request lists (start_times when present);
// a missing list is an error that names it.
func DecodeLists(top map[string]json.RawMessage) (Lists, error) {
	var l Lists
	var missing []string
	for _, k := range []string{"ttfts", "itls", "input_lens", "output_lens", "errors"} {
		if _, ok := top[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return l, fmt.Errorf("no %s", strings.Join(missing, ", "))
	}
	dec := func(k string, v any) error {
		err := json.Unmarshal(top[k], v)
		// A null entry decodes, to its zero value (a null error would be
		// a success, a null time 0 s): looked for only where one may be.
		if err != nil || bytes.Contains(top[k], []byte("null")) {
			if where := badEntry(top[k], reflect.TypeOf(v).Elem().Elem()); where != "" {
				return fmt.Errorf("%s%s", k, where)
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %v", k, err)
		}
		return nil
	}
	for _, f := range []struct {
		k string
		v any
	}{{"ttfts", &l.TTFTs}, {"itls", &l.ITLs}, {"input_lens", &l.InputLens}, {"output_lens", &l.OutputLens}, {"errors", &l.Errors}} {
		if err := dec(f.k, f.v); err != nil {
			return l, err
		}
	}
	if raw, ok := top["start_times"]; ok && string(raw) != "null" {
		if err := dec("start_times", &l.StartTimes); err != nil {
			return l, err
		}
		if l.StartTimes == nil {
			l.StartTimes = []float64{}
		}
	}
	n := len(l.TTFTs)
	lens := map[string]int{"itls": len(l.ITLs), "input_lens": len(l.InputLens), "output_lens": len(l.OutputLens), "errors": len(l.Errors)}
	if l.StartTimes != nil {
		lens["start_times"] = len(l.StartTimes)
	}
	keys := make([]string, 0, len(lens))
	for k := range lens {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if lens[k] != n {
			return l, fmt.Errorf("%s has %d entries and ttfts %d: want one entry a request in each list", k, lens[k], n)
		}
	}
	return l, nil
}

// Request builds request i (its start 0 when there are no start times).
func (l *Lists) Request(id string, i int) (trace.Request, error) {
	start := 0.0
	if l.StartTimes != nil {
		start = l.StartTimes[i]
	}
	return Request(id, start, l.TTFTs[i], l.ITLs[i], l.InputLens[i], l.OutputLens[i], l.Errors[i])
}

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

// Request builds a request from its entries in the lists; errText "" is a
// success.
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

// Tally gathers, from imported requests, what vLLM's and SGLang's summaries
// are computed from: over the successful requests, in ms.
type Tally struct {
	Successes, Failures       int
	InputTokens, OutputTokens int64
	TTFT, ITL, TPOT, Latency  []float64
}

// Add takes one imported request.
func (t *Tally) Add(r *trace.Request) {
	tp := r.TimePointsS
	if r.Failed() || len(tp) < 2 {
		t.Failures++
		return
	}
	t.Successes++
	in, out := int64(0), int64(0)
	if r.InputTokens != nil {
		in = *r.InputTokens
	}
	if r.OutputTokens != nil {
		out = *r.OutputTokens
	}
	t.InputTokens += in
	t.OutputTokens += out
	ttft, lat := (tp[1]-tp[0])*1e3, (tp[len(tp)-1]-tp[0])*1e3
	t.TTFT = append(t.TTFT, ttft)
	t.Latency = append(t.Latency, lat)
	for _, d := range crosscheck.Diff(tp[1:]) {
		t.ITL = append(t.ITL, d*1e3)
	}
	if out > 1 {
		t.TPOT = append(t.TPOT, (lat-ttft)/float64(out-1))
	}
}

// Figure adds the run's value of key (a number) beside trace, when the run
// has it.
func (r *Run) Figure(c *crosscheck.Comparison, key string, trace float64) {
	if v, ok := r.number(key); ok {
		c.Add(key, v, trace)
	}
}

func (r *Run) number(key string) (float64, bool) {
	var v *float64
	if json.Unmarshal(r.Top[key], &v) != nil || v == nil {
		return 0, false
	}
	return *v, true
}

var statKey = regexp.MustCompile(`^(mean|median|std|min|max|p[0-9]+(?:\.[0-9]+)?)_(.+)_ms$`)

// Distribution adds every statistic the run has of metric (keys
// mean_<metric>_ms, median_, std_, min_, max_, p<P>_), computed from xs
// (ms) as numpy does; Figure names stay the run's keys, in sorted order.
func (r *Run) Distribution(c *crosscheck.Comparison, metric string, xs []float64) {
	var keys []string
	for k := range r.Top {
		if m := statKey.FindStringSubmatch(k); m != nil && m[2] == metric {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		stat := statKey.FindStringSubmatch(k)[1]
		var v float64
		switch stat {
		case "mean":
			v = crosscheck.Mean(xs)
		case "median":
			v = crosscheck.Percentile(xs, 50)
		case "std":
			v = crosscheck.Std(xs)
		case "min":
			v = crosscheck.Min(xs)
		case "max":
			v = crosscheck.Max(xs)
		default:
			p, _ := strconv.ParseFloat(stat[1:], 64)
			v = crosscheck.Percentile(xs, p)
		}
		r.Figure(c, k, v)
	}
}

// badEntry is where the JSON list raw (of lists, when elem is a slice
// type) first holds a null or an entry that is no elem, and what is wrong
// there: "[i] is null: ..." or "[i][j] (x): why"; "" when nothing is.
func badEntry(raw json.RawMessage, elem reflect.Type) string {
	var entries []json.RawMessage
	if json.Unmarshal(raw, &entries) != nil {
		return ""
	}
	for i, e := range entries {
		if string(e) == "null" {
			return fmt.Sprintf("[%d] is null: want a value", i)
		}
		if elem.Kind() == reflect.Slice {
			if inner := badEntry(e, elem.Elem()); inner != "" {
				return fmt.Sprintf("[%d]%s", i, inner)
			}
		}
		if err := json.Unmarshal(e, reflect.New(elem).Interface()); err != nil {
			return fmt.Sprintf("[%d] (%s): %v", i, e, err)
		}
	}
	return ""
}
