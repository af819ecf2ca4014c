package replay

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sseaudit/sseaudit/trace"
)

// clientSeeds add the constructs the vllm and sglang framers cut
// differently: comments at a read's end, reads cut after "data:", split
// UTF-8, CR-only events, a JSON value complete before its "\n\n".
var clientSeeds = []string{
	"data: " + pContent + "\n\n: keep-alive\n\ndata: " + pUsage + "\n\ndata: [DONE]\n\n",
	"data:" + " " + pContent + "\n\n",
	"data: {\"choices\":[{\"delta\":{\"content\":\"\xe4\xbd\xa0\xe5\xa5\xbd\"}}]}\n\n",
	"data: " + pContent + "\r\rdata: [DONE]\r\r",
	"data: 1\n\ndata:  [DONE]\n\n  data: [DONE]  \n\n",
	"\x1c\x1ddata: " + pRole + "\u2028\n\n\xff",
}

// literalVLLM is vLLM's client framing written the obvious way, Python line
// for Python line: each read stripped, decoded by an incremental decoder,
// StreamedResponseHandler.add_chunk on a string buffer. It returns the
// messages with the times of their reads, and whether a read failed to
// decode (then nothing after it).
func literalVLLM(req *trace.Request) (msgs []string, times []int64, decodeErr bool) {
	var p JSONParser
	strip := func(s string) string { return strings.TrimFunc(s, isPyStrSpace) }
	var held []byte
	buffer := ""
	for _, c := range req.Chunks {
		b := bytes.Trim(c.Data, " \t\n\r\x0b\x0c")
		if len(b) == 0 {
			continue
		}
		in := append(append([]byte(nil), held...), b...)
		// The decoder: runes while they decode; an undecodable byte within
		// the last three that only lacks its continuation waits.
		pos := 0
		for pos < len(in) {
			r, n := utf8.DecodeRune(in[pos:])
			if r == utf8.RuneError && n == 1 {
				if !utf8.FullRune(in[pos:]) {
					break
				}
				return msgs, times, true
			}
			pos += n
		}
		buffer += string(in[:pos])
		held = in[pos:]
		for strings.Contains(buffer, "\n\n") {
			var m string
			m, buffer, _ = strings.Cut(buffer, "\n\n")
			if m = strip(m); m != "" {
				msgs, times = append(msgs, m), append(times, c.TNs)
			}
		}
		if rest, ok := strings.CutPrefix(buffer, "data: "); ok {
			content := strip(rest)
			if _, valid := p.Parse([]byte(content)); content == "[DONE]" || content != "" && valid {
				msgs, times = append(msgs, strip(buffer)), append(times, c.TNs)
				buffer = ""
			}
		}
	}
	return msgs, times, false
}

// literalSGLang is SGLang's client framing written the obvious way:
// aiohttp's readline over the reads, each line stripped, decoded.
func literalSGLang(req *trace.Request) (msgs []string, times []int64, decodeErr bool) {
	var buf []byte
	take := func(line []byte, t int64) bool {
		s := bytes.Trim(line, " \t\n\r\x0b\x0c")
		if len(s) == 0 {
			return true
		}
		if !utf8.Valid(s) {
			return false
		}
		msgs, times = append(msgs, string(s)), append(times, t)
		return true
	}
	for _, c := range req.Chunks {
		buf = append(buf, c.Data...)
		for {
			i := bytes.IndexByte(buf, '\n')
			if i < 0 {
				break
			}
			if !take(buf[:i+1], c.TNs) {
				return msgs, times, true
			}
			buf = buf[i+1:]
		}
	}
	if len(buf) > 0 && !take(buf, endTime(req)) {
		return msgs, times, true
	}
	return msgs, times, false
}

func fuzzClientFramer(t *testing.T, framer Framer, body, sizes []byte,
	literal func(*trace.Request) ([]string, []int64, bool)) {
	req := chunked(body, sizes)
	res, err := Replay(req, Options{Framer: framer, MaxEventBytes: -1})
	if err != nil {
		t.Fatalf("%s framer: %v", framer, err)
	}
	if s := res.Bytes.Sum(); s != int64(len(body)) {
		t.Fatalf("buckets sum to %d, body %d", s, len(body))
	}
	msgs, times, decodeErr := literal(req)
	if got := strings.HasPrefix(res.Transport, "UnicodeDecodeError"); got != decodeErr {
		t.Fatalf("transport %q, literal decode error %v", res.Transport, decodeErr)
	}
	if len(res.Messages) != len(msgs) {
		t.Fatalf("%d messages, literal %d:\n%q\n%q", len(res.Messages), len(msgs), texts(res.Messages), msgs)
	}
	last := int64(-1)
	for i, m := range res.Messages {
		if string(m.Text) != msgs[i] || m.TNs != times[i] {
			t.Fatalf("message %d: %q at %d, literal %q at %d", i, m.Text, m.TNs, msgs[i], times[i])
		}
		e := res.Events[m.Event]
		if e.Start < 0 || e.End > int64(len(body)) || e.Start > e.End || e.Start < last {
			t.Fatalf("message %d: event [%d,%d) after %d in a body of %d", i, e.Start, e.End, last, len(body))
		}
		last = e.End
	}
	if len(res.TimePointsNs) != len(res.Messages)+1 || res.Success != (res.Transport == "") {
		t.Fatalf("%d time points for %d messages, success %v with transport %q", len(res.TimePointsNs), len(res.Messages), res.Success, res.Transport)
	}
}

func texts(ms []Message) []string {
	var out []string
	for _, m := range ms {
		out = append(out, string(m.Text))
	}
	return out
}

// FuzzVLLMFramer: the vllm framer hands on what vLLM's client framing,
// written literally, hands on (the same messages at the same times, the
// same decode failures), every body byte in one bucket.
func FuzzVLLMFramer(f *testing.F) {
	addSeeds(f)
	for _, s := range clientSeeds {
		f.Add([]byte(s), []byte(nil))
		f.Add([]byte(s), []byte{4, 0, 6, 2, 7})
	}
	f.Fuzz(func(t *testing.T, body, sizes []byte) {
		fuzzClientFramer(t, VLLM, body, sizes, literalVLLM)
	})
}

// FuzzSGLangFramer: the sglang framer hands on SGLang's lines, as its
// client framing written literally does.
func FuzzSGLangFramer(f *testing.F) {
	addSeeds(f)
	for _, s := range clientSeeds {
		f.Add([]byte(s), []byte(nil))
		f.Add([]byte(s), []byte{4, 0, 6, 2, 7})
	}
	f.Fuzz(func(t *testing.T, body, sizes []byte) {
		fuzzClientFramer(t, SGLang, body, sizes, literalSGLang)
	})
}

// literalEvalScope is EvalScope perf's client framing written the obvious
// way, Python line for Python line: iter_any's reads, an incremental
// decoder reset on invalid UTF-8 (the read then decoded alone, ignoring
// bad bytes), CRLF made LF in each read's text, StreamedResponseHandler's
// add_chunk with _extract_sse_payload on a string buffer.
func literalEvalScope(req *trace.Request) (msgs []string, times []int64, decodeErr bool) {
	var p JSONParser
	strip := func(s string) string { return strings.TrimFunc(s, isPyStrSpace) }
	extract := func(m string) (string, bool) {
		var data []string
		m = strip(m)
		// str.splitlines
		var lines []string
		start := 0
		rs := []rune(m)
		for i := 0; i < len(rs); i++ {
			switch rs[i] {
			case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
				lines = append(lines, string(rs[start:i]))
				if rs[i] == '\r' && i+1 < len(rs) && rs[i+1] == '\n' {
					i++
				}
				start = i + 1
			}
		}
		if start < len(rs) {
			lines = append(lines, string(rs[start:]))
		}
		for _, l := range lines {
			if rest, ok := strings.CutPrefix(l, "data:"); ok {
				data = append(data, strings.TrimLeft(rest, " "))
			}
		}
		payload := strip(strings.Join(data, ""))
		return "data: " + payload, len(data) > 0 && payload != ""
	}
	var held []byte
	buffer := ""
	for _, c := range req.Chunks {
		if len(c.Data) == 0 {
			continue
		}
		in := append(append([]byte(nil), held...), c.Data...)
		pos, bad := 0, false
		for pos < len(in) {
			r, n := utf8.DecodeRune(in[pos:])
			if r == utf8.RuneError && n == 1 {
				if !utf8.FullRune(in[pos:]) {
					break
				}
				bad = true
				break
			}
			pos += n
		}
		var text string
		if bad {
			held = nil
			text = strings.ToValidUTF8(string(c.Data), "")
		} else {
			text = string(in[:pos])
			held = in[pos:]
		}
		buffer += strings.ReplaceAll(text, "\r\n", "\n")
		for strings.Contains(buffer, "\n\n") {
			var m string
			m, buffer, _ = strings.Cut(buffer, "\n\n")
			if msg, ok := extract(m); ok {
				msgs, times = append(msgs, msg), append(times, c.TNs)
			}
		}
		if msg, ok := extract(buffer); ok {
			content := strings.TrimPrefix(msg, "data: ")
			if _, valid := p.Parse([]byte(content)); content == "[DONE]" || valid {
				msgs, times = append(msgs, msg), append(times, c.TNs)
				buffer = ""
			}
		}
	}
	return msgs, times, false
}

// FuzzEvalScopeFramer: the evalscope framer hands on what EvalScope perf's
// client framing, written literally, hands on (the same messages at the
// same times), every body byte in one bucket.
func FuzzEvalScopeFramer(f *testing.F) {
	addSeeds(f)
	for _, s := range append(clientSeeds,
		"event: x\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\nid: 3\n\n",
		"data: {\"choices\":[]}\n\xe4\xbd\n\ndata: \xff[DONE]\n\n",
		"data: {}\ndata: {}\n\n\vdata:   [DONE]\u2028\n\n") {
		f.Add([]byte(s), []byte(nil))
		f.Add([]byte(s), []byte{4, 0, 6, 2, 7})
	}
	f.Fuzz(func(t *testing.T, body, sizes []byte) {
		fuzzClientFramer(t, EvalScope, body, sizes, literalEvalScope)
	})
}
