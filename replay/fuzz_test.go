package replay

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/sseaudit/sseaudit/trace"
)

var framingSeeds = []string{
	"data: " + pContent + "\n\ndata: [DONE]\n\n",
	"data: " + pContent + "\r\n\r\ndata: " + pUsage + "\r\n\r\n",
	"data: " + pContent + "\r\rdata: " + pUsage + "\r\r",
	": ping\n\ndata: " + pRole + "\n\n: c\ndata: " + pContent + "\n\n",
	"event: message\nid: 1\nretry: 5\ndata: " + pContent + "\n\n",
	"data: {\"choices\":\ndata: []}\n\ndata:\n\nfoo\n\n",
	"data: " + pRole + "\n\r\n\r\ndata: " + pContent + "\n\n",
	"\xef\xbb\xbfdata: " + pContent + "\r\n\r\r\n\n\n\r\r\r\ndata: [DONE]\n\ndata: x",
	"data:\u00a0" + pContent + "\u3000\n\n\ndata: \xff\n\n",
}

// chunked cuts body into reads whose sizes come from sizes (1..8 bytes
// each, cycling); no sizes means one read.
func chunked(body, sizes []byte) *trace.Request {
	status := int32(200)
	end := int64(9_000_000_000)
	req := &trace.Request{RequestID: "fuzz", T0Ns: 1_000_000_000, EndNs: &end, HTTPStatus: &status, Chunks: []trace.Chunk{}}
	t := req.T0Ns
	for i, k := 0, 0; i < len(body); k++ {
		n := len(body) - i
		if len(sizes) > 0 {
			n = min(n, int(sizes[k%len(sizes)])%8+1)
		}
		t += 1000
		req.Chunks = append(req.Chunks, trace.Chunk{TNs: t, Data: body[i : i+n]})
		i += n
	}
	return req
}

func addSeeds(f *testing.F) {
	for _, s := range framingSeeds {
		f.Add([]byte(s), []byte(nil))
		f.Add([]byte(s), []byte{0, 3, 7, 1})
	}
}

// literalBlocks is AISBench's reader written the obvious way, Python line
// for Python line: aiohttp's readline over the reads, iter_lines on the
// whole of pending+line each time. It returns every stripped, non-empty
// block with the time it was yielded at.
func literalBlocks(req *trace.Request) (blocks []string, times []int64) {
	endNs := endTime(req)
	var lines [][]byte
	var lineTimes []int64
	var buf []byte
	for _, c := range req.Chunks {
		buf = append(buf, c.Data...)
		for {
			i := bytes.IndexByte(buf, '\n')
			if i < 0 {
				break
			}
			lines = append(lines, append([]byte(nil), buf[:i+1]...))
			lineTimes = append(lineTimes, c.TNs)
			buf = buf[i+1:]
		}
	}
	if len(buf) > 0 {
		lines = append(lines, buf)
		lineTimes = append(lineTimes, endNs)
	}
	yield := func(b []byte, t int64) {
		if s := bytes.Trim(b, " \t\n\r\x0b\x0c"); len(s) > 0 {
			blocks, times = append(blocks, string(s)), append(times, t)
		}
	}
	var pending []byte
	havePending := false
	for k, chunk := range lines {
		if havePending {
			chunk = append(append([]byte(nil), pending...), chunk...)
		}
		rewritten := bytes.ReplaceAll(bytes.ReplaceAll(chunk, []byte("\r\n\r\n"), []byte("\n\n")), []byte("\r\r"), []byte("\n\n"))
		var pieces [][]byte
		for _, p := range bytes.Split(rewritten, []byte("\n\n")) {
			if len(p) > 0 {
				pieces = append(pieces, p)
			}
		}
		havePending = false
		if len(pieces) > 0 && len(chunk) > 0 && pieces[len(pieces)-1][len(pieces[len(pieces)-1])-1] == chunk[len(chunk)-1] {
			pending, havePending = pieces[len(pieces)-1], true
			pieces = pieces[:len(pieces)-1]
		}
		for _, p := range pieces {
			yield(p, lineTimes[k])
		}
	}
	if havePending {
		yield(pending, endNs)
	}
	return blocks, times
}

func FuzzAISBenchFramer(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, body, sizes []byte) {
		req := chunked(body, sizes)
		res, err := Replay(req, Options{Framer: AISBench})
		if err != nil {
			t.Fatal(err)
		}
		if s := res.Bytes.Sum(); s != int64(len(body)) {
			t.Fatalf("buckets sum to %d, body is %d", s, len(body))
		}
		blocks, times := literalBlocks(req)
		if len(blocks) != len(res.Events) {
			t.Fatalf("%d events, literal iter_lines yields %d blocks %q", len(res.Events), len(blocks), blocks)
		}
		for i, e := range res.Events {
			if got := string(body[e.Start:e.End]); got != blocks[i] || e.TNs != times[i] {
				t.Fatalf("event %d = %q at %d, literal block %q at %d", i, got, e.TNs, blocks[i], times[i])
			}
		}
		if len(res.TimePointsNs) > 0 && !res.Success && res.ErrorInfo == "" {
			t.Fatalf("failure without error_info")
		}
	})
}

// sameEvent compares what must not depend on how the body was split.
func sameEvent(a, b Event) bool {
	return a.Class == b.Class && a.Start == b.Start && a.End == b.End && a.EventType == b.EventType &&
		a.Recorded == b.Recorded && a.ContentBytes == b.ContentBytes && a.ReasoningBytes == b.ReasoningBytes &&
		a.LogprobEntries == b.LogprobEntries
}

func FuzzSSEFramer(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, body, sizes []byte) {
		whole, err := Replay(chunked(body, nil), Options{Framer: SSE})
		if err != nil {
			t.Fatal(err)
		}
		split, err := Replay(chunked(body, sizes), Options{Framer: SSE})
		if err != nil {
			t.Fatal(err)
		}
		if s := split.Bytes.Sum(); s != int64(len(body)) {
			t.Fatalf("buckets sum to %d, body is %d", s, len(body))
		}
		if whole.Bytes != split.Bytes {
			t.Fatalf("buckets depend on the split: %v vs %v", whole.Bytes, split.Bytes)
		}
		if len(whole.Events) != len(split.Events) {
			t.Fatalf("%d events whole, %d split", len(whole.Events), len(split.Events))
		}
		for i := range whole.Events {
			if !sameEvent(whole.Events[i], split.Events[i]) {
				t.Fatalf("event %d: %+v whole, %+v split", i, whole.Events[i], split.Events[i])
			}
		}
	})
}

func FuzzClassify(f *testing.F) {
	for _, s := range classifySeeds {
		f.Add([]byte(s.payload))
	}
	var c classifier
	f.Fuzz(func(t *testing.T, payload []byte) {
		got := c.classify(payload)
		want, ok := referenceClassify(payload)
		if !ok {
			return // deeper than fastjson parses
		}
		if got.class != want.class {
			t.Fatalf("class %s, encoding/json says %s for %q", got.class, want.class, payload)
		}
		if got.facts != want.facts {
			t.Fatalf("facts %b, encoding/json says %b for %q", got.facts, want.facts, payload)
		}
		if got.contentBytes != want.contentBytes || got.reasoningBytes != want.reasoningBytes || got.logprobs != want.logprobs {
			t.Fatalf("bytes %d/%d logprobs %d, encoding/json %d/%d %d for %q", got.contentBytes, got.reasoningBytes, got.logprobs,
				want.contentBytes, want.reasoningBytes, want.logprobs, payload)
		}
		if (got.usage != nil) != want.hasUsage {
			t.Fatalf("usage %v, encoding/json %v for %q", got.usage, want.hasUsage, payload)
		}
		if got.class != ClassDone && got.class != ClassMalformed && (got.aisErr != "") != want.aisRaises {
			t.Fatalf("AISBench raises: %q, encoding/json says %v for %q", got.aisErr, want.aisRaises, payload)
		}
	})
}

type referenceVerdict struct {
	class                                  Class
	facts                                  Facts
	contentBytes, reasoningBytes, logprobs int
	hasUsage, aisRaises                    bool
}

// referenceClassify is the classification rule on an encoding/json parse.
// ok is false for JSON nested deeper than fastjson's limit.
func referenceClassify(payload []byte) (referenceVerdict, bool) {
	if string(bytes.Trim(payload, " \t\r\n")) == "[DONE]" {
		return referenceVerdict{class: ClassDone}, true
	}
	if !utf8.Valid(payload) {
		return referenceVerdict{class: ClassMalformed}, true
	}
	if !json.Valid(payload) {
		fixed, replaced := fixPythonLiterals(nil, payload)
		if !replaced || !json.Valid(fixed) {
			return referenceVerdict{class: ClassMalformed}, true
		}
		payload = fixed
	}
	if nestingDepth(payload) >= 300 {
		return referenceVerdict{}, false
	}
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		panic(err) // json.Valid said yes
	}
	obj, isObj := root.(map[string]any)
	if !isObj {
		return referenceVerdict{class: ClassMalformed}, true
	}
	var v referenceVerdict
	var content, reasoning, toolCall, finish, role bool
	choices, hasChoices := obj["choices"]
	items, isList := choices.([]any)
	choicesEmpty := !hasChoices || choices == nil || isList && len(items) == 0
	switch ch := choices.(type) {
	case nil:
		v.aisRaises = hasChoices // None is not iterable
	case []any:
	case string, map[string]any:
		v.aisRaises = pyTruthy(ch)
	default:
		v.aisRaises = true
	}
	for _, it := range items {
		el, ok := it.(map[string]any)
		if !ok {
			v.aisRaises = true
			continue
		}
		if s, ok := el["text"].(string); ok && s != "" {
			content = true
			v.contentBytes += len(s)
		}
		if s, ok := el["finish_reason"].(string); ok && s != "" {
			finish = true
		}
		if lp, ok := el["logprobs"].(map[string]any); ok {
			if a, ok := lp["content"].([]any); ok {
				v.logprobs += len(a)
			} else if a, ok := lp["tokens"].([]any); ok {
				v.logprobs += len(a)
			}
		}
		delta, ok := el["delta"].(map[string]any)
		if !ok {
			v.aisRaises = true // KeyError, or no .get on a non-dict
			continue
		}
		if s, ok := delta["content"].(string); ok && s != "" {
			content = true
			v.contentBytes += len(s)
		}
		if s, ok := delta["reasoning_content"].(string); ok && s != "" {
			reasoning = true
			v.reasoningBytes += len(s)
		} else if s, ok := delta["reasoning"].(string); ok && s != "" {
			reasoning = true
			v.reasoningBytes += len(s)
		}
		if a, ok := delta["tool_calls"].([]any); ok && len(a) > 0 {
			toolCall = true
		}
		if s, ok := delta["role"].(string); ok && s != "" {
			role = true
		}
		if c := delta["content"]; pyTruthy(c) {
			if _, ok := c.(string); !ok {
				v.aisRaises = true
			}
		}
		r := delta["reasoning_content"]
		if !pyTruthy(r) {
			r = delta["reasoning"]
		}
		if pyTruthy(r) {
			if _, ok := r.(string); !ok {
				v.aisRaises = true
			}
		}
	}
	usage := obj["usage"]
	usageTruthy := pyTruthy(usage)
	if usageTruthy {
		_, v.hasUsage = usage.(map[string]any)
		if !v.hasUsage {
			v.aisRaises = true
		}
	}
	errv := obj["error"]
	_, errObj := errv.(map[string]any)
	errStr, _ := errv.(string)
	for fact, has := range map[Facts]bool{HasText: content, HasReasoning: reasoning, HasToolCall: toolCall,
		HasFinish: finish, HasRole: role, HasUsage: usageTruthy, HasError: errObj || errStr != ""} {
		if has {
			v.facts |= fact
		}
	}
	switch {
	case errObj || errStr != "":
		v.class = ClassError
	case content:
		v.class = ClassContent
	case reasoning:
		v.class = ClassReasoning
	case toolCall:
		v.class = ClassToolCall
	case finish:
		v.class = ClassFinish
	case role:
		v.class = ClassRole
	case choicesEmpty && usageTruthy:
		v.class = ClassUsageOnly
	default:
		v.class = ClassMetadataOnly
	}
	return v, true
}

// pyTruthy is Python's truth of a json.loads value.
func pyTruthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	case json.Number:
		return numberTruthy([]byte(x))
	}
	panic("unexpected JSON value")
}

// nestingDepth is the deepest bracket nesting outside strings.
func nestingDepth(b []byte) int {
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(b); i++ {
		switch ch := b[i]; {
		case inString && ch == '\\':
			i++
		case ch == '"':
			inString = !inString
		case !inString && (ch == '[' || ch == '{'):
			depth++
			deepest = max(deepest, depth)
		case !inString && (ch == ']' || ch == '}'):
			depth--
		}
	}
	return deepest
}
