package replay

import (
	"bytes"
	"unicode/utf8"
)

// sseFramer is the WHATWG server-sent-events parser
// (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation):
// lines end at CRLF, LF or CR; a leading BOM is dropped; ':' starts a
// comment; "field: value" with one leading space of the value dropped; a
// line without a colon is a field with an empty value; data lines are joined
// with LF; a blank line dispatches the event when its data buffer is not
// empty. What the end of the body cuts off (an unterminated line, an event
// with no blank line after it) is discarded, as the algorithm says.
//
// Blocks (the lines up to a blank line) become events: a dispatched data
// event, or a comment event for a block of comments only. A block of other
// fields only (event:, id:, retry:) is no event.
type sseFramer struct {
	data  []byte // the joined data buffer, when a block has several data lines
	spans []blockSpan
	valid []byte // data with invalid UTF-8 replaced, the way a decoder would

	in    *input
	cls   *classifier
	acct  *accountant
	res   *Result
	tok   *tokens
	clock chunkClock

	// The block being read.
	blockStart           int64 // offset of its first line, -1 when none
	blockEnd             int64 // end of its last line, before the line end
	dataLines            int
	dataStart, dataEnd   int64 // the value of the only data line
	eventType            []byte
	hasEventType         bool
	hasComment, doneSeen bool
}

// blockSpan is a span of the current block; a payload span takes its bucket
// from the class decided at dispatch.
type blockSpan struct {
	bucket     Bucket
	payload    bool
	start, end int64
}

var bom = []byte("\xef\xbb\xbf")

func (s *sseFramer) run(in *input, cls *classifier, acct *accountant, res *Result, tok *tokens) {
	s.in, s.cls, s.acct, s.res, s.tok = in, cls, acct, res, tok
	s.clock = chunkClock{in: in}
	s.doneSeen = false
	s.resetBlock()
	req := in.req
	tp := append(in.timePoints, req.T0Ns)

	body := in.body
	pos := 0
	if bytes.HasPrefix(body, bom) {
		acct.span(BucketFraming, 0, int64(len(bom)))
		pos = len(bom)
	}
	ends := lineEnds{cr: -1, lf: -1}
	for pos < len(body) {
		eol := ends.next(body, pos)
		if eol < 0 {
			break // an unterminated last line is discarded
		}
		next := eol + 1
		if body[eol] == '\r' && next < len(body) && body[next] == '\n' {
			next++
		}
		t := s.clock.at(int64(eol))
		if eol == pos {
			if ev, ok := s.endBlock(t); ok {
				if ev.Recorded {
					tp = append(tp, t)
					if ev.Usage != nil {
						tok.apply(ev.Usage)
					}
				}
				res.Events = append(res.Events, ev)
			}
		} else {
			s.line(int64(pos), int64(eol))
		}
		s.spans = append(s.spans, blockSpan{bucket: BucketFraming, start: int64(eol), end: int64(next)})
		if s.blockStart < 0 {
			s.flushSpans(BucketIgnored)
		}
		pos = next
	}
	// End of body: the block in progress is never dispatched.
	s.flushSpans(BucketIgnored)
	s.resetBlock()
	if s.doneSeen && pos < len(body) {
		acct.startAfterDone(int64(pos))
	}
	acct.upTo(BucketIgnored, int64(len(body)))

	if req.HTTPStatus == nil || *req.HTTPStatus != 200 {
		*tok = tokens{} // a client does not read such a body
	}
	switch {
	case req.HTTPStatus == nil:
		res.Success, res.ErrorInfo = false, "no response"
		if req.Error != nil {
			res.ErrorInfo = *req.Error
		}
		res.TimePointsNs = []int64{}
		for i := range res.Events {
			res.Events[i].Recorded = false
		}
	case *req.HTTPStatus != 200:
		res.Success, res.ErrorInfo = false, statusReason(*req.HTTPStatus)
		res.TimePointsNs = []int64{req.T0Ns}
		for i := range res.Events {
			res.Events[i].Recorded = false
		}
	case req.Error != nil:
		// A generic client keeps what it saw before the connection broke.
		res.Success, res.ErrorInfo, res.TimePointsNs = false, *req.Error, tp
	default:
		res.Success, res.TimePointsNs = true, tp
		if len(tp) <= 1 {
			res.Success, res.ErrorInfo = false, errChunkSize
		}
	}
}

// lineEnds finds line ends (CR or LF) with IndexByte, much faster than
// IndexAny. It remembers the next CR and the next LF found, so that a body
// with one kind only is not searched again to its end for the other at
// every line.
type lineEnds struct {
	cr, lf int // the next CR and LF at or after the last position asked (len(body) when none, -1 before the first search)
}

// next is the offset of the first CR or LF at or after pos, or -1; pos
// never goes back between calls.
func (e *lineEnds) next(body []byte, pos int) int {
	if e.cr < pos {
		e.cr = indexFrom(body, pos, '\r')
	}
	if e.lf < pos {
		e.lf = indexFrom(body, pos, '\n')
	}
	if eol := min(e.cr, e.lf); eol < len(body) {
		return eol
	}
	return -1
}

// indexFrom is the offset of the first c in body at or after pos, or
// len(body) when there is none.
func indexFrom(body []byte, pos int, c byte) int {
	if i := bytes.IndexByte(body[pos:], c); i >= 0 {
		return pos + i
	}
	return len(body)
}

func (s *sseFramer) resetBlock() {
	s.blockStart = -1
	s.dataLines = 0
	s.data = s.data[:0]
	s.eventType = s.eventType[:0]
	s.hasEventType, s.hasComment = false, false
}

// line handles one non-blank line body[ls:le] (without its line end).
func (s *sseFramer) line(ls, le int64) {
	if s.blockStart < 0 {
		s.blockStart = ls
		if s.doneSeen {
			s.acct.startAfterDone(ls)
		}
	}
	s.blockEnd = le
	body := s.in.body
	ln := body[ls:le]
	if ln[0] == ':' {
		s.hasComment = true
		s.spans = append(s.spans, blockSpan{bucket: ClassBucket(ClassComment), start: ls, end: le})
		return
	}
	name, valueStart := ln, le
	if c := bytes.IndexByte(ln, ':'); c >= 0 {
		name = ln[:c]
		valueStart = ls + int64(c) + 1
		if valueStart < le && body[valueStart] == ' ' {
			valueStart++
		}
	}
	switch string(name) {
	case "data":
		s.spans = append(s.spans,
			blockSpan{bucket: BucketFraming, start: ls, end: valueStart},
			blockSpan{payload: true, start: valueStart, end: le})
		s.dataLines++
		switch s.dataLines {
		case 1:
			s.dataStart, s.dataEnd = valueStart, le
		case 2:
			s.data = append(s.data[:0], body[s.dataStart:s.dataEnd]...)
			fallthrough
		default:
			s.data = append(s.data, '\n')
			s.data = append(s.data, body[valueStart:le]...)
		}
	case "event":
		s.spans = append(s.spans, blockSpan{bucket: BucketFraming, start: ls, end: le})
		s.eventType = append(s.eventType[:0], body[valueStart:le]...)
		s.hasEventType = true
	case "id", "retry":
		s.spans = append(s.spans, blockSpan{bucket: BucketFraming, start: ls, end: le})
	default:
		s.spans = append(s.spans, blockSpan{bucket: BucketIgnored, start: ls, end: le})
	}
}

// endBlock handles a blank line delivered at t: the
// block's event, if it makes one.
func (s *sseFramer) endBlock(t int64) (Event, bool) {
	defer s.resetBlock()
	if s.blockStart < 0 {
		return Event{}, false
	}
	ev := Event{Index: len(s.res.Events), TNs: t, Start: s.blockStart, End: s.blockEnd}
	if s.hasEventType {
		ev.EventType = string(s.eventType)
	}
	switch {
	case s.dataLines > 0:
		payload := s.data
		if s.dataLines == 1 {
			payload = s.in.body[s.dataStart:s.dataEnd]
		}
		if !utf8.Valid(payload) {
			s.valid = pyDecodeReplace(s.valid[:0], payload) // one U+FFFD per maximal subpart, as the WHATWG decoder
			payload = s.valid
		}
		v := s.cls.classify(payload)
		ev.Class, ev.Facts = v.class, v.facts
		if ev.EventType == "error" {
			ev.Class = ClassError
		}
		ev.Usage, ev.LogprobEntries = v.usage, v.logprobs
		ev.ContentBytes, ev.ReasoningBytes = v.contentBytes, v.reasoningBytes
		switch {
		case s.doneSeen:
			ev.Class = ClassAfterDone
		case ev.Class == ClassDone:
			s.doneSeen = true
		default:
			ev.Recorded = true
		}
		s.flushSpans(ClassBucket(ev.Class))
	case s.hasComment:
		ev.Class = ClassComment
		if s.doneSeen {
			ev.Class = ClassAfterDone
		}
		s.flushSpans(BucketIgnored) // no payload spans
	default:
		s.flushSpans(BucketIgnored)
		return Event{}, false
	}
	return ev, true
}

// flushSpans hands the block's spans to the accountant, its data values to
// payload: the bucket of the dispatched event's class, or ignored.
func (s *sseFramer) flushSpans(payload Bucket) {
	for _, sp := range s.spans {
		b := sp.bucket
		if sp.payload {
			b = payload
		}
		s.acct.upTo(BucketFraming, sp.start)
		s.acct.span(b, sp.start, sp.end)
	}
	s.spans = s.spans[:0]
}
