package replay

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/trace"
)

// literalAIPerf is AIPerf's client framing written the obvious way, Python
// line for Python line: aiohttp 3.12's StreamReader (a deque of the reads,
// read(1), readuntil searching the first buffered read only) under
// AioHttpSSEStreamReader.__aiter__, then parse_sse_message and
// extract_data_content on each message. It returns the messages' data
// contents with their first bytes' times, and whether the request fails
// (a message over the high-water mark).
func literalAIPerf(req *trace.Request) (msgs []string, times []int64, fail bool) {
	var buf [][]byte
	off, k, eof, now := 0, 0, false, req.T0Ns
	wait := func() { // the next non-empty read, or the end of the body
		for k < len(req.Chunks) {
			c := req.Chunks[k]
			k++
			if len(c.Data) > 0 {
				buf, now = append(buf, c.Data), c.TNs
				return
			}
		}
		eof = true
	}
	take := func(n int) []byte { // n bytes of the first read (-1: the rest)
		if n < 0 {
			n = len(buf[0]) - off
		}
		b := buf[0][off : off+n]
		if off += n; off == len(buf[0]) {
			buf, off = buf[1:], 0
		}
		return b
	}
	for !(eof && len(buf) == 0) {
		for len(buf) == 0 && !eof {
			wait()
		}
		if len(buf) == 0 {
			break // read(1) gave b""
		}
		first := take(1)
		t := now
		var chunk []byte
		for found := false; !found; {
			for len(buf) > 0 && !found {
				i := bytes.Index(buf[0][off:], []byte("\n\n"))
				if i >= 0 {
					chunk, found = append(chunk, take(i+2)...), true
				} else {
					chunk = append(chunk, take(-1)...)
				}
				if len(chunk) > 2*(1<<16) {
					return msgs, times, true // ValueError: Chunk too big
				}
			}
			if eof {
				break
			}
			if !found {
				wait()
			}
		}
		if len(chunk) == 0 {
			break
		}
		raw := string(pyDecodeReplace(nil, append(append([]byte(nil), first...), chunk...)))
		var data []string
		for _, line := range strings.Split(strings.TrimFunc(raw, isPyStrSpace), "\n") {
			line = strings.TrimFunc(line, isPyStrSpace)
			name, value, ok := strings.Cut(line, ":")
			if line == "" || !ok {
				continue
			}
			name, value = strings.TrimFunc(name, isPyStrSpace), strings.TrimFunc(value, isPyStrSpace)
			if strings.ToLower(name) == "data" && value != "" {
				data = append(data, value)
			}
		}
		msgs, times = append(msgs, strings.Join(data, "\n")), append(times, t)
	}
	return msgs, times, false
}

// FuzzAIPerfFramer: the aiperf framer hands on what AIPerf's client
// framing, written literally, hands on (the same data contents at the same
// first-byte times), every body byte in one bucket.
func FuzzAIPerfFramer(f *testing.F) {
	addSeeds(f)
	for _, s := range append(clientSeeds,
		"data: {}\n\ndata: {}\n\n\n\ndata:[DONE]\n\n",
		"DATA : {\"a\":1}\n data:x\nevent: e\n:c\n\nData\n\n",
		"data: {\"a\":\"\xe4\xbd\"}\n\ndata: \xf0\x90\x80 \n\n\xed\xa0\x80\n\n",
		"data: a\r\n\r\ndata: b\r\n\r\n",
		"data: x\n\n\n") {
		f.Add([]byte(s), []byte(nil))
		f.Add([]byte(s), []byte{4, 0, 6, 2, 7})
	}
	f.Fuzz(func(t *testing.T, body, sizes []byte) {
		req := chunked(body, sizes)
		res, err := Replay(req, Options{Framer: AIPerf, MaxEventBytes: -1})
		if err != nil {
			t.Fatalf("aiperf framer: %v", err)
		}
		if s := res.Bytes.Sum(); s != int64(len(body)) {
			t.Fatalf("buckets sum to %d, body %d", s, len(body))
		}
		msgs, times, fail := literalAIPerf(req)
		if fail != (res.Transport != "") {
			t.Fatalf("transport %q, literal failure %v", res.Transport, fail)
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
			if e.Start < last || e.Start > e.End || e.End > int64(len(body)) {
				t.Fatalf("message %d: event [%d,%d) after %d in a body of %d", i, e.Start, e.End, last, len(body))
			}
			last = e.End
		}
		if len(res.TimePointsNs) != len(res.Messages)+1 || res.Success != (res.Transport == "") {
			t.Fatalf("%d time points for %d messages, success %v with transport %q", len(res.TimePointsNs), len(res.Messages), res.Success, res.Transport)
		}
	})
}

// TestIssue16AIPerfFraming: AIPerf's framing on reads cut by hand. A
// message is timed at its first byte's read: "data: a\n\ndata: b" then
// "\n\n" gives b at the first read (1001 µs), not the second. A blank
// line split over two reads ("data: a\n" | "\ndata: b\n\n") is no
// separator for aiohttp 3.12's readuntil: one message of two data lines,
// "a\nb". CRLF line ends hold no "\n\n": the whole body is one message.
// A message of one byte at the body's end is dropped.
func TestIssue16AIPerfFraming(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reads []string
		want  []string
		at    []int64 // µs after t0
	}{
		{"first byte", []string{"data: a\n\ndata: b", "\n\n"}, []string{"a", "b"}, []int64{1, 1}},
		{"split blank line", []string{"data: a\n", "\ndata: b\n\n"}, []string{"a\nb"}, []int64{1}},
		{"blank line in one read", []string{"data: a\n", "\n", "data: b\n\n"}, []string{"a\nb"}, []int64{1}},
		{"crlf", []string{"data: a\r\n\r\n", "data: b\r\n\r\n"}, []string{"a\nb"}, []int64{1}},
		{"trailing byte", []string{"data: a\n\n", "\n"}, []string{"a"}, []int64{1}},
		{"comment", []string{": ping\n\n", "Data:  x \n\n"}, []string{"", "x"}, []int64{1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status := int32(200)
			req := &trace.Request{RequestID: "a", T0Ns: 0, HTTPStatus: &status}
			for i, r := range tc.reads {
				req.Chunks = append(req.Chunks, trace.Chunk{TNs: int64(i+1) * 1000, Data: []byte(r)})
			}
			res, err := Replay(req, Options{Framer: AIPerf})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Messages) != len(tc.want) {
				t.Fatalf("messages %q, want %q", texts(res.Messages), tc.want)
			}
			for i, m := range res.Messages {
				if string(m.Text) != tc.want[i] || m.TNs != tc.at[i]*1000 {
					t.Errorf("message %d: %q at %d ns, want %q at %d µs", i, m.Text, m.TNs, tc.want[i], tc.at[i])
				}
			}
		})
	}
}

// TestIssue16AIPerfChunkTooBig: readuntil raises once it holds more than
// its high-water mark, 2 × 2**16 bytes, after the message's first byte:
// "d" + 131072 bytes passes, one more fails the request.
func TestIssue16AIPerfChunkTooBig(t *testing.T) {
	for _, extra := range []int{0, 1} {
		body := "d" + strings.Repeat("x", AIPerfMaxMessage-2+extra) + "\n\n"
		status := int32(200)
		req := &trace.Request{RequestID: "big", T0Ns: 0, HTTPStatus: &status, Chunks: []trace.Chunk{{TNs: 1, Data: []byte(body)}}}
		res, err := Replay(req, Options{Framer: AIPerf, MaxEventBytes: -1})
		if err != nil {
			t.Fatal(err)
		}
		if fails := res.Transport != ""; fails != (extra == 1) {
			t.Errorf("%d bytes after the first: transport %q", len(body)-1, res.Transport)
		}
	}
}

// TestPyDecodeReplace: Python's bytes.decode("utf-8", errors="replace"),
// one U+FFFD a maximal invalid subsequence, as CPython 3.11 gives them:
// b"\xe4\xbd".decode(errors="replace") == "\ufffd" (one: a cut 3-byte
// start), b"\xed\xa0\x80" gives three (ED's second byte must be below
// A0), b"\xf0\x90\x80x" one and "x", b"\xff\xfe" two, b"\xc3\xa9" "é".
func TestPyDecodeReplace(t *testing.T) {
	for in, want := range map[string]string{
		"\xe4\xbd": "\ufffd", "\xed\xa0\x80": "\ufffd\ufffd\ufffd", "\xf0\x90\x80x": "\ufffdx",
		"\xff\xfe": "\ufffd\ufffd", "\xc3\xa9": "é", "a\xe4\n": "a\ufffd\n", "\xf4\x90\x80\x80": "\ufffd\ufffd\ufffd\ufffd",
	} {
		if got := string(pyDecodeReplace(nil, []byte(in))); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}
