package replay

import (
	"bytes"
	"unicode/utf8"
)

// GuideLLM frames the body as guidellm's OpenAI HTTP backend does: httpx's
// text lines, blank ones skipped (guidellm.go).
const GuideLLM Framer = "guidellm"

// guidellmFramer is the framing of guidellm's streaming client
// (src/guidellm/backends/openai/http.py at vllm-project/guidellm
// ee7a77457ba668b4b5ccb40f110518829893b36a, OpenAIHTTPBackend._aiter_lines
// over httpx 0.28.1's Response.aiter_lines), replayed on a recorded body:
//
//  1. Reads. aiter_raw hands on every recorded read; an empty one is
//     skipped (ByteChunker).
//  2. Text. aiter_text decodes each read with an incremental UTF-8 decoder
//     with errors="replace" (TextDecoder; a trace holds no headers, so no
//     charset: utf-8): an incomplete sequence at a read's end waits for the
//     next read, an invalid byte becomes U+FFFD and the request goes on. At
//     the end of the body what the decoder holds is flushed, replaced.
//  3. Lines. LineDecoder.decode: str.splitlines over the text (lines end at
//     \n, \r, \r\n, \v, \f, \x1c-\x1e, \x85, U+2028, U+2029), a line handed
//     on at the read that brought its line break, except that a "\r" ending
//     a read's text is held for the next one (it may be half of "\r\n"): the
//     line it ends comes out at the next read. At the end of the body
//     (LineDecoder.flush) what is left is a last line. A transport error
//     ending the body raises before the flush: the request fails and the
//     leftover is lost.
//  4. _aiter_lines skips a line whose str.strip() is empty.
//
// Every other line is a message, handed on as Result.Messages as it is (not
// stripped: the request handler compares it with "data: [DONE]" before
// stripping it), at the time of the read that completed it. The request
// handler (calc/guidellm) decides what it means. Each message is an event:
// [DONE] for "data: [DONE]", a comment for a line not starting with
// "data:" once stripped (the handler ignores it), else the classifier's
// verdict on what follows "data:", stripped.
type guidellmFramer struct {
	buf     []byte  // LineDecoder's buffer: decoded text without a line break
	orig    []int64 // the body offset of each byte of buf
	held    []byte  // the text decoder's incomplete sequence
	text    []byte  // scratch: a read's decoded text
	textOff []int64 // its body offsets
	cr      bool    // trailing_cr: a "\r" held for the next read
	crOff   int64
	dropped int64 // the body offset up to which lines were handed on

	in   *input
	cls  *classifier
	acct *accountant
	res  *Result
	msgs *messageText
}

func (g *guidellmFramer) run(in *input, cls *classifier, acct *accountant, res *Result, text *messageText) {
	*g = guidellmFramer{buf: g.buf[:0], orig: g.orig[:0], held: g.held[:0], text: g.text[:0], textOff: g.textOff[:0],
		in: in, cls: cls, acct: acct, res: res, msgs: text}
	req := in.req
	if res.Transport = transportFailure(req); res.Transport != "" {
		acct.upTo(BucketIgnored, int64(len(in.body)))
		return
	}
	start := int64(0)
	for k, c := range req.Chunks {
		if len(c.Data) > 0 {
			g.decode(start, c.Data, false)
			g.lines(c.TNs)
		}
		start = in.chunkEnds[k]
	}
	if req.Error != nil {
		res.Transport = *req.Error // raised by aiter_raw, before the flush
	} else {
		g.decode(int64(len(in.body)), nil, true)
		g.lines(in.endNs)
		if len(g.buf) > 0 || g.cr {
			g.line(0, len(g.buf), in.endNs)
		}
	}
	acct.upTo(BucketFraming, g.dropped)
	acct.upTo(BucketIgnored, int64(len(in.body)))
}

// decode is TextDecoder.decode of data, the read at body offset off (final:
// the flush), then LineDecoder.decode's trailing "\r" rule, onto buf.
func (g *guidellmFramer) decode(off int64, data []byte, final bool) {
	in := append(g.held, data...)
	base := off - int64(len(g.held))
	keep := len(in)
	if !final {
		keep -= incompleteTail(in)
	}
	text, orig := g.text[:0], g.textOff[:0]
	for i := 0; i < keep; {
		r, n := utf8.DecodeRune(in[i:keep])
		if r == utf8.RuneError && n <= 1 {
			text = utf8.AppendRune(text, utf8.RuneError)
			for range 3 {
				orig = append(orig, base+int64(i))
			}
			i++
			continue
		}
		text = append(text, in[i:i+n]...)
		for k := range n {
			orig = append(orig, base+int64(i+k))
		}
		i += n
	}
	g.held = append(g.held[:0], in[keep:]...)
	g.text, g.textOff = text, orig
	if len(text) == 0 {
		return // TextChunker hands on no empty text
	}
	if g.cr {
		g.buf, g.orig = append(g.buf, '\r'), append(g.orig, g.crOff)
		g.cr = false
	}
	if n := len(text); text[n-1] == '\r' {
		g.cr, g.crOff = true, orig[n-1]
		text, orig = text[:n-1], orig[:n-1]
	}
	g.buf, g.orig = append(g.buf, text...), append(g.orig, orig...)
}

// lines hands on every line of buf that has its line break, at t.
func (g *guidellmFramer) lines(t int64) {
	start := 0
	for i := 0; i < len(g.buf); {
		r, n := utf8.DecodeRune(g.buf[i:])
		switch r {
		case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			if r == '\r' && i+1 < len(g.buf) && g.buf[i+1] == '\n' {
				n++
			}
			g.line(start, i, t)
			start = i + n
			g.dropped = g.orig[start-1] + 1
		}
		i += n
	}
	g.buf = g.buf[:copy(g.buf, g.buf[start:])]
	g.orig = g.orig[:copy(g.orig, g.orig[start:])]
}

var dataDone = []byte("data: [DONE]")

// line hands on buf[ls:le], delivered at t, unless it is blank.
func (g *guidellmFramer) line(ls, le int, t int64) {
	line := g.buf[ls:le]
	i, j := pyStrStrip(line)
	if i == j {
		return
	}
	start, end := g.orig[ls+i], g.orig[ls+j-1]+1
	payloadStart := start
	ev := Event{Index: len(g.res.Events), TNs: t, Start: start, End: end, Recorded: true}
	var vd verdict
	stripped := line[i:j]
	switch {
	case bytes.Equal(line, dataDone):
		vd.class = ClassDone
		ev.Recorded = false
	case !bytes.HasPrefix(stripped, dataColon):
		vd.class = ClassComment
	default:
		p := stripped[len(dataColon):]
		a, b := pyStrStrip(p)
		payloadStart = end
		if a < b {
			payloadStart = g.orig[ls+i+len(dataColon)+a]
		}
		vd = g.cls.classify(p[a:b])
		if vd.class == ClassDone {
			vd.class = ClassMalformed // "data:[DONE]": json.loads fails
		}
	}
	ev.Class, ev.Facts, ev.Usage, ev.LogprobEntries = vd.class, vd.facts, vd.usage, vd.logprobs
	ev.ContentBytes, ev.ReasoningBytes = vd.contentBytes, vd.reasoningBytes
	g.acct.upTo(BucketFraming, start)
	g.acct.span(BucketFraming, start, payloadStart)
	g.acct.span(ClassBucket(vd.class), payloadStart, end)
	g.res.Events = append(g.res.Events, ev)
	g.msgs.add(g.res, t, line, ev.Index)
}
