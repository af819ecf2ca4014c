package replay

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// aisFramer is AISBench's streaming client (BaseAPIModel.stream_infer over
// iter_lines over aiohttp's line reader), replayed on a recorded body.
//
// iter_lines keeps a `pending` piece between lines and rewrites the bytes it
// works on (\r\n\r\n and \r\r become \n\n), so the framer works on a copy,
// `work`, holding pending plus the current line as Python would hold them,
// and `marks`, the map from work positions back to body offsets.
type aisFramer struct {
	work  []byte
	marks []mark
	tmp   []mark

	in    *input
	cls   *classifier
	acct  *accountant
	res   *Result
	tok   *tokens
	clock chunkClock

	reading bool // the client still consumes blocks
	bodyCR  bool // the body holds a CR: work may need rewriting
	failed  bool // an exception ended the attempt
	errInfo string
	done    bool // a [DONE] block was framed
	tp      []int64
	agree   sseAgreement // whether the sse framer would cut the body alike

	messages bool         // hand on the payloads the client parsed (Options.Messages)
	skipID   bool         // skip "id:" blocks as comments (Options.SkipIDBlocks)
	text     *messageText // where they go
}

// mark says that work[i] starts at body offset body + (i - work), for i
// from work up to the next mark.
type mark struct {
	work int
	body int64
}

var (
	crlfcrlf = []byte("\r\n\r\n")
	crcr     = []byte("\r\r")
	lflf     = []byte("\n\n")
	dataTag  = []byte("data:")
	idTag    = []byte("id:")
)

// origOf is the body offset of work position i (i may be len(work)).
func (a *aisFramer) origOf(i int) int64 {
	k := len(a.marks) - 1
	for k > 0 && a.marks[k].work > i {
		k--
	}
	return a.marks[k].body + int64(i-a.marks[k].work)
}

func (a *aisFramer) run(in *input, cls *classifier, acct *accountant, res *Result, tok *tokens) {
	a.work, a.marks = a.work[:0], a.marks[:0]
	a.in, a.cls, a.acct, a.res, a.tok = in, cls, acct, res, tok
	a.clock = chunkClock{in: in}
	a.failed, a.errInfo, a.done = false, "", false
	req := in.req
	a.tp = append(in.timePoints, req.T0Ns)
	noResponse := req.HTTPStatus == nil
	statusOK := !noResponse && *req.HTTPStatus == 200
	a.reading = statusOK

	body := in.body
	a.bodyCR = bytes.IndexByte(body, '\r') >= 0
	a.agree = sseAgreement{ok: !a.bodyCR}
	pos := 0
	for {
		i := bytes.IndexByte(body[pos:], '\n')
		if i < 0 {
			break
		}
		end := pos + i + 1
		a.agree.line(body[pos:end])
		a.feed(pos, end, a.clock.at(int64(pos+i)))
		pos = end
	}
	a.agree.end(len(body) - pos)
	// The oracle's FakeContent raises a transport error once every complete
	// line is out, before the leftover: what aiohttp does when the
	// connection drops.
	if statusOK && req.Error != nil && a.reading {
		a.fail(*req.Error)
	}
	if pos < len(body) {
		a.feed(pos, len(body), in.endNs)
	}
	if len(a.work) > 0 {
		a.block(0, len(a.work), in.endNs)
		a.work = a.work[:0]
	}
	acct.upTo(BucketFraming, int64(len(body)))
	if a.messages {
		switch t := transportFailure(req); {
		case t != "":
			res.Transport = t
		case req.Error != nil && res.Transport == "":
			res.Transport = *req.Error
		}
	}

	switch {
	case noResponse:
		msg := "no response"
		if req.Error != nil {
			msg = *req.Error
		}
		a.fail(msg)
		a.clearTimePoints()
	case !statusOK:
		res.Success, res.ErrorInfo = false, statusReason(*req.HTTPStatus)
		res.TimePointsNs = []int64{req.T0Ns}
	case a.failed:
		a.clearTimePoints()
	default:
		res.Success, res.TimePointsNs = true, a.tp
		if len(a.tp) <= 1 {
			res.Success, res.ErrorInfo = false, errChunkSize
		}
	}
	if a.agree.ok {
		o := sseOutcome(req, res.Events)
		res.SSE = &o
	}
}

// clearTimePoints ends a failed attempt as AISBench's retry loop does: both
// attempts see the same body, fail the same way, and the time points are
// cleared.
func (a *aisFramer) clearTimePoints() {
	a.res.Success, a.res.ErrorInfo = false, a.errInfo
	a.res.TimePointsNs = []int64{}
	for i := range a.res.Events {
		a.res.Events[i].Recorded = false
	}
}

// fail records the exception that ends an attempt.
func (a *aisFramer) fail(exception string) {
	a.reading, a.failed = false, true
	a.errInfo = "After " + strconv.Itoa(Retries) + " retries, request failed with exception: " + exception
}

// feed is one line of aiohttp's reader, body[ls:le], delivered at t: one
// round of iter_lines.
func (a *aisFramer) feed(ls, le int, t int64) {
	oldLen := len(a.work)
	if oldLen == 0 {
		a.marks = append(a.marks[:0], mark{0, int64(ls)})
	} else if a.origOf(oldLen) != int64(ls) {
		a.marks = append(a.marks, mark{oldLen, int64(ls)})
	}
	a.work = append(a.work, a.in.body[ls:le]...)
	last := a.in.body[le-1] // chunk[-1], before the rewriting

	// Pending never holds \r\n\r\n, \r\r or \n\n (they were rewritten or
	// split on), so matches start near its end or later: scanning from
	// there finds what Python's scan from 0 finds. Both need a CR, which
	// most bodies do not have: one search of the body spares them.
	if a.bodyCR {
		a.rewriteCRLF(max(0, oldLen-3))
		a.rewriteCR(max(0, oldLen-4))
	}

	from := max(0, oldLen-8)
	start := 0
	var ps, pe int
	havePiece := false
	for {
		j := bytes.Index(a.work[from:], lflf)
		end := len(a.work)
		if j >= 0 {
			end = from + j
		}
		if end > start {
			if havePiece {
				a.block(ps, pe, t)
			}
			ps, pe, havePiece = start, end, true
		}
		if j < 0 {
			break
		}
		start = end + 2
		from = start
	}
	if !havePiece {
		a.work = a.work[:0]
		return
	}
	if a.work[pe-1] != last {
		a.block(ps, pe, t)
		a.work = a.work[:0]
		return
	}
	// The last piece becomes pending.
	tmp := append(a.tmp[:0], mark{0, a.origOf(ps)})
	for _, m := range a.marks {
		if m.work > ps && m.work < pe {
			tmp = append(tmp, mark{m.work - ps, m.body})
		}
	}
	a.marks, a.tmp = tmp, a.marks
	n := copy(a.work, a.work[ps:pe])
	a.work = a.work[:n]
}

// rewriteCRLF is work.replace(b"\r\n\r\n", b"\n\n") from position from on.
func (a *aisFramer) rewriteCRLF(from int) {
	for {
		j := bytes.Index(a.work[from:], crlfcrlf)
		if j < 0 {
			return
		}
		q := from + j
		mid, end := a.origOf(q+2), a.origOf(q+4)
		a.work[q], a.work[q+1] = '\n', '\n'
		n := copy(a.work[q+2:], a.work[q+4:])
		a.work = a.work[:q+2+n]
		tmp := a.tmp[:0]
		for _, m := range a.marks {
			if m.work <= q {
				tmp = append(tmp, m)
			}
		}
		tmp = append(tmp, mark{q + 1, mid}, mark{q + 2, end})
		for _, m := range a.marks {
			if m.work > q+4 {
				tmp = append(tmp, mark{m.work - 2, m.body})
			}
		}
		a.marks, a.tmp = tmp, a.marks
		from = q + 2
	}
}

// rewriteCR is work.replace(b"\r\r", b"\n\n") from position from on.
func (a *aisFramer) rewriteCR(from int) {
	for {
		j := bytes.Index(a.work[from:], crcr)
		if j < 0 {
			return
		}
		q := from + j
		a.work[q], a.work[q+1] = '\n', '\n'
		from = q + 2
	}
}

// block is one piece iter_lines yields, work[ws:we], at t: framed,
// classified, and handed to stream_infer's loop while the client reads.
func (a *aisFramer) block(ws, we int, t int64) {
	i, j := pyBytesStrip(a.work[ws:we])
	if i == j {
		return // whitespace only: framing, assigned with the next span
	}
	bs, be := ws+i, ws+j
	start, end := a.origOf(bs), a.origOf(be)
	content := a.work[bs:be]
	ev := Event{Index: len(a.res.Events), TNs: t, Start: start, End: end}
	a.acct.upTo(BucketFraming, start)
	afterDone := a.done
	if afterDone {
		a.acct.startAfterDone(start)
	}
	valid := utf8.Valid(content)
	var v verdict
	var payload []byte
	if content[0] == ':' || a.skipID && bytes.HasPrefix(content, idTag) {
		v.class = ClassComment
		a.acct.span(ClassBucket(ClassComment), start, end)
	} else {
		k := 0
		if bytes.HasPrefix(content, dataTag) {
			k = len(dataTag)
		}
		rest := content[k:]
		var pi, pj int
		if valid {
			pi, pj = pyStrStrip(rest)
		} else {
			pi, pj = pyBytesStrip(rest)
		}
		payload = rest[pi:pj]
		// The sse framer's payload is the whole line after "data: ": the
		// same bytes only if the strips took that space and nothing else,
		// and the sse framer replaces no invalid UTF-8.
		if !valid || pi != 1 || pj != len(rest) || j != we-ws {
			a.agree.ok = false
		}
		if bytes.Equal(payload, doneMarker) {
			v.class = ClassDone
		} else {
			v = a.cls.classify(payload)
		}
		payloadStart, payloadEnd := a.origOf(bs+k+pi), a.origOf(bs+k+pj)
		a.acct.span(BucketFraming, start, payloadStart)
		a.acct.span(ClassBucket(v.class), payloadStart, payloadEnd)
		a.acct.span(BucketFraming, payloadEnd, end)
	}
	ev.Class, ev.Facts = v.class, v.facts
	ev.Usage, ev.LogprobEntries = v.usage, v.logprobs
	ev.ContentBytes, ev.ReasoningBytes = v.contentBytes, v.reasoningBytes
	if afterDone {
		ev.Class = ClassAfterDone
	} else if v.class == ClassDone {
		a.done = true
	}

	if a.reading {
		switch {
		case !valid:
			a.fail("UnicodeDecodeError: " + pyUTF8Error(content))
			if a.messages {
				a.res.Transport = a.errInfo
			}
		case v.class == ClassComment:
			// skipped: the whole block, data lines in it included
		case v.class == ClassDone:
			a.reading = false // break: the rest is never read
			if a.messages {
				a.text.add(a.res, t, doneMarker, ev.Index)
			}
		default:
			if a.messages {
				a.text.add(a.res, t, payload, ev.Index)
			}
			// The time point comes before json.loads.
			ev.Recorded = true
			a.tp = append(a.tp, t)
			switch {
			case !v.json:
				a.fail(jsonErrorException)
			case v.aisErr != "":
				a.fail(v.aisErr)
			case v.aisUsage:
				a.tok.apply(v.usage)
			}
		}
	}
	a.res.Events = append(a.res.Events, ev)
}

// jsonErrorException is str() of the AISBenchValueError stream_infer raises
// on a JSON error: get_formatted_log_content of error code MODEL-DATA-003,
// ANSI colours included, as it lands in error_info.
const jsonErrorException = "AISBenchValueError: " +
	"[\x1b[1m\x1b[41m\x1b[33mMODEL-DATA-003\x1b[0m]" +
	"\x1b[1m\x1b[31mparse text response invalid format\x1b[0m. " +
	"Unexpected response format. Please check 'error_info' in ***_failed.jsonl for more information." +
	" | Visit \x1b[4m\x1b[35mhttps://ais-bench-benchmark.readthedocs.io/zh-cn/latest/faqs/error_codes.html#model-data-003\x1b[0m for further help."
