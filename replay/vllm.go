package replay

import (
	"bytes"
	"unicode/utf8"
)

// vllmFramer is the framing of vllm bench serve's client
// (vllm/benchmarks/lib/endpoint_request_func.py at vLLM 2f41c894e320,
// async_request_openai_chat_completions and async_request_openai_completions
// over StreamedResponseHandler), replayed on a recorded body:
//
//  1. Reads. `async for chunk_bytes in response.content.iter_any()`: every
//     recorded read is one chunk, stripped of ASCII whitespace at both ends
//     (bytes.strip), skipped when nothing is left.
//  2. Text. StreamedResponseHandler.add_chunk decodes the chunk with an
//     incremental UTF-8 decoder (an incomplete sequence at its end waits for
//     the next read; an invalid one raises UnicodeDecodeError and fails the
//     request) and appends it to its buffer.
//  3. Messages. While the buffer holds "\n\n", the text before it, stripped
//     (str.strip), is a message when not empty. Then, when what is left
//     starts with "data: " and, after that prefix and a strip, is "[DONE]"
//     or JSON that json.loads accepts, it is a message too (stripped) and the
//     buffer is emptied.
//
// Because each read is stripped before it joins the buffer, the "\n\n" that
// ends an event at the end of a read is gone: such events come out only
// through the check of step 3, which needs "data: " at the buffer's start.
// A comment block (": keep-alive\n\n") or a read cut right after "data:"
// leaves text that check refuses, and every later event joins it until a
// read holds a "\n\n" inside it: those events are lost (a message starting
// with ':' is skipped whole by the request function; one that is not JSON
// fails it). Whatever the buffer holds at the end of the body is dropped.
//
// Messages are handed on as Result.Messages, at the time of the read that
// completed them; the request function (the tool's calculator) decides what
// they mean. Each message is an event, its class the classifier's verdict on
// the message after "data: ".
type vllmFramer struct {
	buf     []byte // the handler's buffer, from bufStart on
	held    []byte // the decoder's incomplete sequence
	heldOff int64  // its body offset
	scratch []byte
	marks   []absMark

	bufStart int64 // stream position of buf[0]
	in       *input
	cls      *classifier
	acct     *accountant
	res      *Result
	text     *messageText
}

// absMark says that stream position pos (a count of the bytes ever appended
// to the buffer) comes from body offset body, and so on up to the next
// mark.
type absMark struct {
	pos, body int64
}

func (v *vllmFramer) run(in *input, cls *classifier, acct *accountant, res *Result, text *messageText) {
	*v = vllmFramer{buf: v.buf[:0], held: v.held[:0], scratch: v.scratch[:0], marks: v.marks[:0],
		in: in, cls: cls, acct: acct, res: res, text: text}
	req := in.req
	if res.Transport = transportFailure(req); res.Transport != "" {
		acct.upTo(BucketIgnored, int64(len(in.body)))
		return
	}
	start := int64(0)
	for k, c := range req.Chunks {
		end := in.chunkEnds[k]
		i, j := pyBytesStrip(c.Data)
		if i == j {
			start = end
			continue
		}
		if !v.add(start+int64(i), c.Data[i:j]) {
			res.Transport = "UnicodeDecodeError: 'utf-8' codec can't decode the read"
			break
		}
		v.messages(c.TNs)
		start = end
	}
	if res.Transport == "" && req.Error != nil {
		res.Transport = *req.Error
	}
	// The buffer's text and the decoder's bytes never come out.
	if len(v.buf) > 0 {
		acct.upTo(BucketFraming, v.origOf(v.bufStart))
	}
	acct.upTo(BucketIgnored, int64(len(in.body)))
}

// add decodes a stripped read, data at body offset off, onto the buffer:
// false on invalid UTF-8. The decoder's input is what it held, then data;
// an incomplete sequence at its end is held again.
func (v *vllmFramer) add(off int64, data []byte) bool {
	in := append(append(v.scratch[:0], v.held...), data...)
	v.scratch = in
	keep := len(in) - incompleteTail(in)
	if !utf8.Valid(in[:keep]) {
		return false
	}
	if keep == 0 {
		// Still one incomplete sequence (held ones start at its lead byte).
		if len(v.held) == 0 {
			v.heldOff = off
		}
		v.held = append(v.held[:0], in...)
		return true
	}
	pos := v.bufStart + int64(len(v.buf))
	if len(v.held) > 0 {
		v.marks = append(v.marks, absMark{pos, v.heldOff})
		pos += int64(len(v.held))
	}
	v.marks = append(v.marks, absMark{pos, off})
	v.buf = append(v.buf, in[:keep]...)
	v.heldOff = off + int64(keep-len(v.held)) // keep > 0: the held bytes went out whole
	v.held = append(v.held[:0], in[keep:]...)
	return true
}

// incompleteTail is the length of the incomplete but valid UTF-8 sequence
// at the end of b (0 to 3 bytes): what Python's incremental decoder keeps
// for the next call.
func incompleteTail(b []byte) int {
	for k := 1; k <= 3 && k <= len(b); k++ {
		if c := b[len(b)-k]; c&0xC0 != 0x80 {
			if !utf8.FullRune(b[len(b)-k:]) {
				return k
			}
			return 0
		}
	}
	return 0
}

// origOf is the body offset of stream position p.
func (v *vllmFramer) origOf(p int64) int64 {
	k := len(v.marks) - 1
	for k > 0 && v.marks[k].pos > p {
		k--
	}
	if k < 0 {
		return 0
	}
	return v.marks[k].body + (p - v.marks[k].pos)
}

var lf2 = []byte("\n\n")

// messages is add_chunk's message loop after a read at t.
func (v *vllmFramer) messages(t int64) {
	for {
		k := bytes.Index(v.buf, lf2)
		if k < 0 {
			break
		}
		v.message(0, k, t)
		v.drop(k + 2)
	}
	if !bytes.HasPrefix(v.buf, dataSpace) {
		return
	}
	i, j := pyStrStrip(v.buf[len(dataSpace):])
	content := v.buf[len(dataSpace)+i : len(dataSpace)+j]
	switch {
	case bytes.Equal(content, doneMarker):
	case len(content) == 0:
		return
	default:
		if _, ok := v.cls.parse(content); !ok {
			return // incomplete JSON: wait for more reads
		}
	}
	v.message(0, len(v.buf), t)
	v.drop(len(v.buf))
}

// drop removes the buffer's first n bytes.
func (v *vllmFramer) drop(n int) {
	v.bufStart += int64(n)
	v.buf = v.buf[:copy(v.buf, v.buf[n:])]
	// Keep the last mark at or before the new start.
	k := 0
	for k+1 < len(v.marks) && v.marks[k+1].pos <= v.bufStart {
		k++
	}
	v.marks = v.marks[:copy(v.marks, v.marks[k:])]
}

// message hands on buf[ms:me].strip() (nothing when empty), completed by the
// read at t.
func (v *vllmFramer) message(ms, me int, t int64) {
	i, j := pyStrStrip(v.buf[ms:me])
	if i == j {
		return
	}
	text := v.buf[ms+i : ms+j]
	a, b := v.bufStart+int64(ms+i), v.bufStart+int64(ms+j)
	start, end := v.origOf(a), v.origOf(b-1)+1
	payload, k := text, 0
	if bytes.HasPrefix(text, dataSpace) {
		payload, k = text[len(dataSpace):], len(dataSpace)
	}
	ev := Event{Index: len(v.res.Events), TNs: t, Start: start, End: end, Recorded: true}
	var vd verdict
	switch {
	case text[0] == ':':
		vd.class = ClassComment
		ev.Recorded = false
	case bytes.Equal(payload, doneMarker):
		vd.class = ClassDone
		ev.Recorded = false
	default:
		vd = v.cls.classify(payload)
		if vd.class == ClassDone {
			vd.class = ClassMalformed // " [DONE]": json.loads refuses it
		}
	}
	ev.Class, ev.Facts, ev.Usage, ev.LogprobEntries = vd.class, vd.facts, vd.usage, vd.logprobs
	ev.ContentBytes, ev.ReasoningBytes = vd.contentBytes, vd.reasoningBytes
	payloadStart := v.origOf(a + int64(k))
	if k == 0 || payloadStart > end {
		payloadStart = start
	}
	v.acct.upTo(BucketFraming, start)
	v.acct.span(BucketFraming, start, payloadStart)
	v.acct.span(ClassBucket(vd.class), payloadStart, end)
	v.res.Events = append(v.res.Events, ev)
	v.text.add(v.res, t, text, ev.Index)
}
