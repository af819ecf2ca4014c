// GenAI-Perf's own summary (profile_export_genai_perf.json), reproduced
// from the imported trace under GenAI-Perf's definitions
// (LLMProfileDataParser).

package genaiperf

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/importer/crosscheck"
	"github.com/sseaudit/sseaudit/trace/importer/sourcefile"
)

// SummaryBeside is GenAI-Perf's summary of the export src
// (<stem>_genai_perf.json in its folder), or "" when there is none.
func SummaryBeside(src string) string {
	p := strings.TrimSuffix(src, filepath.Ext(src)) + "_genai_perf.json"
	if st, err := os.Stat(p); err == nil && !st.IsDir() {
		return p
	}
	return ""
}

// Summary is GenAI-Perf's summary: each metric's statistics by name.
type Summary struct {
	Path    string
	Metrics map[string]map[string]json.RawMessage
}

// ReadSummary reads profile_export_genai_perf.json.
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
		return nil, sourcefile.Errorf(path, 0, "%d JSON values: want GenAI-Perf's summary, one JSON object", len(vals))
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(sourcefile.PythonJSON(vals[0].Data), &top); err != nil {
		return nil, sourcefile.Errorf(path, vals[0].Line, "not a JSON object (%v): want GenAI-Perf's summary", err)
	}
	s := &Summary{Path: path, Metrics: map[string]map[string]json.RawMessage{}}
	for k, raw := range top {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) == nil && m["unit"] != nil {
			s.Metrics[k] = m
		}
	}
	if len(s.Metrics) == 0 {
		return nil, sourcefile.Errorf(path, 0, `no metrics (objects with "unit" and "avg"): want GenAI-Perf's summary`)
	}
	return s, nil
}

func (s *Summary) stat(metric, stat string) (float64, bool) {
	var v *float64
	if json.Unmarshal(s.Metrics[metric][stat], &v) != nil || v == nil {
		return 0, false
	}
	return *v, true
}

// tally gathers, from the imported requests, what GenAI-Perf's summary is
// computed from, in ns.
type tally struct {
	requests         int
	latency, ttft    []float64
	ttst             []float64
	minStart, maxEnd int64
	counted          int
}

// add takes one imported request: the times of the responses GenAI-Perf
// keeps (for openai, those with text content, after merging split and
// bundled SSE messages as it does); a request with none is left out of the
// latencies, not of the request count.
func (t *tally) add(r *trace.Request, kind, format string) {
	t.requests++
	var times []int64
	if kind == KindSSE {
		times = keptTimes(r.Chunks, format)
	} else if len(r.TimePointsS) > 1 {
		for _, s := range r.TimePointsS[1:] {
			times = append(times, r.T0Ns+int64((s-r.TimePointsS[0])*1e9+0.5))
		}
	}
	if len(times) == 0 {
		return
	}
	if t.counted == 0 || r.T0Ns < t.minStart {
		t.minStart = r.T0Ns
	}
	if last := times[len(times)-1]; t.counted == 0 || last > t.maxEnd {
		t.maxEnd = last
	}
	t.counted++
	t.latency = append(t.latency, float64(times[len(times)-1]-r.T0Ns))
	t.ttft = append(t.ttft, float64(times[0]-r.T0Ns))
	if len(times) > 1 {
		t.ttst = append(t.ttst, float64(times[1]-times[0]))
	}
}

// genaiStats are the statistics GenAI-Perf writes for a metric.
var genaiStats = []string{"avg", "min", "max", "std", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99"}

func (t *tally) compare(s *Summary) *crosscheck.Comparison {
	c := &crosscheck.Comparison{Source: s.Path}
	dist := func(metric string, ns []float64) {
		if _, ok := s.Metrics[metric]; !ok {
			return
		}
		ms := make([]float64, len(ns))
		for i, v := range ns {
			ms[i] = v / 1e6
		}
		for _, st := range genaiStats {
			v, ok := s.stat(metric, st)
			if !ok {
				continue
			}
			var got float64
			switch st {
			case "avg":
				got = crosscheck.Mean(ms)
			case "min":
				got = crosscheck.Min(ms)
			case "max":
				got = crosscheck.Max(ms)
			case "std":
				got = crosscheck.Std(ms)
			default:
				p, _ := strconv.ParseFloat(st[1:], 64)
				got = crosscheck.Percentile(ms, p)
			}
			c.Add(metric+"."+st, v, got)
		}
	}
	dist("request_latency", t.latency)
	dist("time_to_first_token", t.ttft)
	dist("time_to_second_token", t.ttst)
	if v, ok := s.stat("request_throughput", "avg"); ok && t.counted > 0 && t.maxEnd > t.minStart {
		c.Add("request_throughput.avg", v, float64(t.requests)/(float64(t.maxEnd-t.minStart)/1e9))
	}
	for _, m := range []string{"inter_token_latency", "output_sequence_length", "input_sequence_length", "output_token_throughput", "output_token_throughput_per_user"} {
		if _, ok := s.Metrics[m]; ok {
			c.Skipped = append(c.Skipped, m+" (GenAI-Perf counts tokens with its tokenizer)")
		}
	}
	return c
}

// Response formats GenAI-Perf tells apart for the openai service kind.
const (
	formatChat        = "chat"
	formatCompletions = "completions"
)

// responseFormat is GenAI-Perf's response format: from the endpoint, else
// from the first response.
func responseFormat(endpoint string, reqs []request) string {
	switch endpoint {
	case "v1/chat/completions":
		return formatChat
	case "v1/completions":
		return formatCompletions
	}
	for _, q := range reqs {
		if q.Outputs == nil || len(*q.Outputs) == 0 {
			continue
		}
		var text string
		json.Unmarshal((*q.Outputs)[0]["response"], &text)
		if strings.Contains(text, "chat.completion") {
			return formatChat
		}
		break
	}
	return formatCompletions
}

// keptTimes are the times of the responses GenAI-Perf keeps
// (_preprocess_response for openai): a response that is not an SSE "data:"
// field is merged into the one before it; several SSE messages in one
// response are one response whose text is theirs; a response with an
// error event, or without text content, is dropped.
func keptTimes(chunks []trace.Chunk, format string) []int64 {
	texts := make([]string, len(chunks))
	for i, c := range chunks {
		texts[i] = string(c.Data)
	}
	for i := len(texts) - 1; i >= 1; i-- {
		r := texts[i]
		if notDataField(r) || strings.HasPrefix(r, "data: ") {
			continue
		}
		if !strings.Contains(texts[i-1], "data:") {
			return nil // GenAI-Perf stops here ("splintered SSE response")
		}
		if k := strings.Index(r, "data: "); k < 0 {
			texts[i-1] += r
			texts[i] = ""
		} else {
			texts[i-1] += r[:k]
			texts[i] = r[k:]
		}
	}
	var kept []int64
	for i, r := range texts {
		if keep(r, format) {
			kept = append(kept, chunks[i].TNs)
		}
	}
	return kept
}

// keep is whether GenAI-Perf keeps one response (after the merging of split
// messages): several SSE messages are rewritten as the first one's JSON with
// their texts joined, which fails unless that first one is a chunk with a
// choice; one message is kept when it has text (an error event drops it).
func keep(r, format string) bool {
	msgs := strings.Split(strings.TrimSpace(r), "\n\n")
	if len(msgs) == 1 {
		m := msgs[0]
		if strings.HasPrefix(m, "event:") && strings.Contains(strings.ToLower(m), "error") {
			return false
		}
		t, err := textOutput(m, format)
		return err == nil && t != ""
	}
	if _, err := textOutput(msgs[0], format); err != nil || !isChunk(msgs[0], format) {
		return false
	}
	text := ""
	for _, m := range msgs {
		t, err := textOutput(m, format)
		if err != nil {
			return false
		}
		text += t
	}
	return text != ""
}

// isChunk is whether an SSE message is JSON with a first choice that takes
// the joined text (a "delta" for chat).
func isChunk(msg, format string) bool {
	var data struct {
		Object  string                       `json:"object"`
		Choices []map[string]json.RawMessage `json:"choices"`
	}
	if json.Unmarshal([]byte(strings.TrimSpace(strings.TrimPrefix(msg, "data:"))), &data) != nil || len(data.Choices) == 0 {
		return false
	}
	if format == formatChat {
		// The joined text goes to delta.content, but a message without an
		// object is read back from its text.
		return data.Choices[0]["delta"] != nil && data.Object != ""
	}
	return true
}

// notDataField is GenAI-Perf's not_data_sse_field.
func notDataField(s string) bool {
	for _, p := range []string{":", "event:", "id:", "retry:"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// textOutput is GenAI-Perf's _extract_text_output of one SSE message: the
// content of a chat chunk, the text of a completion; an error where GenAI-
// Perf's raises.
func textOutput(msg, format string) (string, error) {
	if msg == "" || notDataField(msg) {
		return "", nil
	}
	msg = strings.TrimSpace(strings.TrimPrefix(msg, "data:"))
	if msg == "[DONE]" {
		return "", nil
	}
	var data map[string]json.RawMessage
	if err := json.Unmarshal([]byte(msg), &data); err != nil {
		return "", err
	}
	// data.get("choices", [{}])[0]
	choices := []map[string]json.RawMessage{{}}
	if raw, ok := data["choices"]; ok {
		if err := json.Unmarshal(raw, &choices); err != nil {
			return "", err
		}
	}
	if len(choices) == 0 {
		return "", errIndex
	}
	ch := choices[0]
	// x.get(k, "") or "": a missing key or null is "".
	get := func(m map[string]json.RawMessage, k string) string {
		var s *string
		json.Unmarshal(m[k], &s)
		if s == nil {
			return ""
		}
		return *s
	}
	sub := func(k string) (map[string]json.RawMessage, error) {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(ch[k], &m); err != nil || m == nil {
			return nil, errIndex
		}
		return m, nil
	}
	object := get(data, "object")
	switch {
	case object == "":
		return get(ch, "text"), nil
	case format == formatChat && object == "chat.completion":
		m, err := sub("message")
		if err != nil {
			return "", err
		}
		return get(m, "content"), nil
	case format == formatChat && object == "chat.completion.chunk":
		m, err := sub("delta")
		if err != nil {
			return "", err
		}
		return get(m, "content"), nil
	case format == formatCompletions && object == "text_completion":
		return get(ch, "text"), nil
	}
	return "", errIndex
}

// errIndex stands for the exceptions GenAI-Perf's extraction raises.
var errIndex = errors.New("no text where GenAI-Perf looks for it")
