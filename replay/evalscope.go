package replay

import (
	"bytes"
	"unicode/utf8"
)

// EvalScope frames the body as EvalScope perf's client does: each read
// decoded, CRLF made LF, StreamedResponseHandler's buffer whose blocks keep
// their data lines only (evalscope.go).
const EvalScope Framer = "evalscope"

// evalscopeFramer is the framing of EvalScope perf's client
// (evalscope/perf/plugin/api/default_api.py at modelscope/evalscope
// fde259d2a32ab8a4cdb3af44dc8b18f504f1e277, DefaultApiPlugin.process_request
// over StreamedResponseHandler), replayed on a recorded body:
//
//  1. Reads. `async for chunk_bytes in response.content.iter_any()`: every
//     recorded read is one chunk, skipped when empty; nothing is stripped.
//  2. Text. add_chunk decodes the chunk with an incremental UTF-8 decoder
//     (an incomplete sequence at its end waits for the next read). On
//     invalid UTF-8 the decoder is reset (what it held is lost) and the
//     chunk alone is decoded with errors='ignore': the bad bytes, and an
//     incomplete sequence at its end, are dropped; the request goes on.
//     Then `.replace('\r\n', '\n')` within that chunk's text (a CR and LF
//     split over two reads stay), appended to the buffer.
//  3. Messages. While the buffer holds "\n\n", the text before it is a
//     block; _extract_sse_payload strips it, cuts it with str.splitlines
//     (at \n, \r, \r\n, \v, \f, \x1c-\x1e, \x85, U+2028, U+2029), keeps the
//     lines starting with "data:" (that prefix removed, then leading
//     spaces), joins them with nothing and strips the result: a message
//     "data: " + that, when not empty. A block without a data line (a
//     comment, an "event:" line alone) is no message. Then the same
//     extraction of what is left in the buffer: when its payload is
//     "[DONE]" or JSON that json.loads accepts, it is a message too and the
//     buffer is emptied (an event complete before its "\n\n" comes out at
//     once). Whatever the buffer holds at the end of the body is dropped.
//
// Messages are handed on as Result.Messages ("data: " + payload), at the
// time of the read that completed them; the request function (calc/evalscope)
// decides what they mean. Each message is an event whose class is the
// classifier's verdict on its payload. For the byte accounting a message's
// payload runs from its first data line's payload to its block's end.
type evalscopeFramer struct {
	buf     []byte  // the handler's buffer
	orig    []int64 // the body offset of each byte of buf
	held    []byte  // the decoder's incomplete sequence
	scratch []byte
	dec     []byte
	decOrig []int64
	payload []byte
	lines   [][2]int
	dropped int64 // the body offset up to which the buffer was consumed

	in   *input
	cls  *classifier
	acct *accountant
	res  *Result
	text *messageText
}

func (v *evalscopeFramer) run(in *input, cls *classifier, acct *accountant, res *Result, text *messageText) {
	*v = evalscopeFramer{buf: v.buf[:0], orig: v.orig[:0], held: v.held[:0], scratch: v.scratch[:0],
		dec: v.dec[:0], decOrig: v.decOrig[:0], payload: v.payload[:0], lines: v.lines[:0],
		in: in, cls: cls, acct: acct, res: res, text: text}
	req := in.req
	if res.Transport = transportFailure(req); res.Transport != "" {
		acct.upTo(BucketIgnored, int64(len(in.body)))
		return
	}
	start := int64(0)
	for k, c := range req.Chunks {
		end := in.chunkEnds[k]
		if len(c.Data) > 0 {
			v.add(start, c.Data)
			v.messages(c.TNs)
		}
		start = end
	}
	if req.Error != nil {
		res.Transport = *req.Error // raised by iter_any: the request fails
	}
	acct.upTo(BucketFraming, v.dropped)
	acct.upTo(BucketIgnored, int64(len(in.body)))
}

// add decodes a read, data at body offset off, onto the buffer.
func (v *evalscopeFramer) add(off int64, data []byte) {
	in := append(append(v.scratch[:0], v.held...), data...)
	v.scratch = in
	base := off - int64(len(v.held))
	dec, orig := v.dec[:0], v.decOrig[:0]
	keep := len(in) - incompleteTail(in)
	if utf8.Valid(in[:keep]) {
		dec = append(dec, in[:keep]...)
		for i := range keep {
			orig = append(orig, base+int64(i))
		}
		v.held = append(v.held[:0], in[keep:]...)
	} else {
		// decoder.reset(); chunk_bytes.decode('utf-8', errors='ignore').
		v.held = v.held[:0]
		for i := 0; i < len(data); {
			r, n := utf8.DecodeRune(data[i:])
			if r != utf8.RuneError || n > 1 {
				dec = append(dec, data[i:i+n]...)
				for k := range n {
					orig = append(orig, off+int64(i+k))
				}
			}
			i += n
		}
	}
	// chunk_str.replace('\r\n', '\n')
	for i := 0; i < len(dec); i++ {
		if dec[i] == '\r' && i+1 < len(dec) && dec[i+1] == '\n' {
			continue
		}
		v.buf = append(v.buf, dec[i])
		v.orig = append(v.orig, orig[i])
	}
	v.dec, v.decOrig = dec, orig
}

// messages is add_chunk's message loop after a read at t.
func (v *evalscopeFramer) messages(t int64) {
	for {
		k := bytes.Index(v.buf, lf2)
		if k < 0 {
			break
		}
		v.message(k, t)
		v.drop(k + 2)
	}
	if len(v.buf) == 0 {
		return
	}
	payload, _, ok := v.extract(len(v.buf))
	if !ok {
		return
	}
	if !bytes.Equal(payload, doneMarker) {
		if _, valid := v.cls.parse(payload); !valid {
			return // incomplete JSON: wait for more reads
		}
	}
	v.message(len(v.buf), t)
	v.drop(len(v.buf))
}

// drop removes the buffer's first n bytes.
func (v *evalscopeFramer) drop(n int) {
	if n > 0 {
		v.dropped = v.orig[n-1] + 1
	}
	v.buf = v.buf[:copy(v.buf, v.buf[n:])]
	v.orig = v.orig[:copy(v.orig, v.orig[n:])]
}

// extract is _extract_sse_payload of buf[:n]: the data lines' payload
// (into v.payload), the buffer index where the first one's payload starts,
// and whether there is a message.
func (v *evalscopeFramer) extract(n int) (payload []byte, first int, ok bool) {
	i, j := pyStrStrip(v.buf[:n])
	v.lines = pySplitLines(v.buf[i:j], v.lines[:0])
	p := v.payload[:0]
	first = -1
	for _, l := range v.lines {
		line := v.buf[i+l[0] : i+l[1]]
		if !bytes.HasPrefix(line, dataColon) {
			continue
		}
		k := len(dataColon)
		for k < len(line) && line[k] == ' ' {
			k++
		}
		if first < 0 {
			first = i + l[0] + k
		}
		p = append(p, line[k:]...)
	}
	v.payload = p
	a, b := pyStrStrip(p)
	if a == b {
		return nil, first, false
	}
	return p[a:b], first, true
}

var dataColon = []byte("data:")

// message hands on the message of block buf[:n], if it has one, completed
// by the read at t.
func (v *evalscopeFramer) message(n int, t int64) {
	payload, first, ok := v.extract(n)
	if !ok {
		return
	}
	i, j := pyStrStrip(v.buf[:n])
	start, end := v.orig[i], v.orig[j-1]+1
	payloadStart := max(v.orig[min(first, j-1)], start)
	ev := Event{Index: len(v.res.Events), TNs: t, Start: start, End: end, Recorded: true}
	var vd verdict
	if bytes.Equal(payload, doneMarker) {
		vd.class = ClassDone
		ev.Recorded = false
	} else {
		vd = v.cls.classify(payload)
		if vd.class == ClassDone {
			vd.class = ClassMalformed
		}
	}
	ev.Class, ev.Facts, ev.Usage, ev.LogprobEntries = vd.class, vd.facts, vd.usage, vd.logprobs
	ev.ContentBytes, ev.ReasoningBytes = vd.contentBytes, vd.reasoningBytes
	v.acct.upTo(BucketFraming, start)
	v.acct.span(BucketFraming, start, payloadStart)
	v.acct.span(ClassBucket(vd.class), payloadStart, end)
	v.res.Events = append(v.res.Events, ev)
	text := append(append(v.scratch[:0], dataSpace...), payload...)
	v.scratch = text
	v.text.add(v.res, t, text, ev.Index)
}

// pySplitLines appends the bounds of str.splitlines()'s lines of the valid
// UTF-8 text s to out: lines end at \n, \r, \r\n, \v, \f, \x1c, \x1d, \x1e,
// \x85, U+2028 and U+2029, which are not part of them; no empty line after
// a last line break.
func pySplitLines(s []byte, out [][2]int) [][2]int {
	start := 0
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRune(s[i:])
		switch r {
		case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			out = append(out, [2]int{start, i})
			if r == '\r' && i+1 < len(s) && s[i+1] == '\n' {
				n++
			}
			start = i + n
		}
		i += n
	}
	if start < len(s) {
		out = append(out, [2]int{start, len(s)})
	}
	return out
}
