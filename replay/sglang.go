package replay

import (
	"bytes"
	"unicode/utf8"
)

// sglangFramer is the framing of SGLang's bench_serving client
// (python/sglang/benchmark/serving.py at SGLang db570fe619ae,
// async_request_openai_chat_completions and
// async_request_openai_completions), replayed on a recorded body:
//
//  1. Lines. `async for chunk_bytes in response.content`: aiohttp's
//     StreamReader.readline, a line up to and including its "\n", handed
//     over at the read that brought the "\n"; what is left at the end of the
//     body comes out last, at its end (not when a transport error ends it).
//     A line longer than the reader's high-water mark (2 × read_bufsize, 20
//     MiB for bench_serving's 10 MiB) raises LineTooLong and fails the
//     request.
//  2. Each line is stripped of ASCII whitespace (bytes.strip) and skipped
//     when empty; the rest is decoded as UTF-8 (strictly: invalid bytes
//     raise UnicodeDecodeError and fail the request) and handed on.
//
// So every non-blank line is a message: an "event:", "id:" or ": comment"
// line as much as a "data:" one. The request function (the tool's
// calculator) takes "data: " off and hands the rest to json.loads. Each
// message is an event, its class the classifier's verdict on it after
// "data: ".
type sglangFramer struct {
	in   *input
	cls  *classifier
	acct *accountant
	res  *Result
	text *messageText
}

// SGLangMaxLine is the longest line bench_serving's reader hands over:
// aiohttp's high-water mark, twice its read_bufsize of 10 MiB.
const SGLangMaxLine = 2 * 10 << 20

func (s *sglangFramer) run(in *input, cls *classifier, acct *accountant, res *Result, text *messageText) {
	*s = sglangFramer{in: in, cls: cls, acct: acct, res: res, text: text}
	req := in.req
	if res.Transport = transportFailure(req); res.Transport != "" {
		acct.upTo(BucketIgnored, int64(len(in.body)))
		return
	}
	clock := chunkClock{in: in}
	body := in.body
	pos := 0
	for pos < len(body) {
		i := bytes.IndexByte(body[pos:], '\n')
		if i < 0 {
			break
		}
		end := pos + i + 1
		if end-pos > SGLangMaxLine {
			res.Transport = "LineTooLong"
			break
		}
		if !s.line(pos, end, clock.at(int64(pos+i))) {
			break
		}
		pos = end
	}
	if res.Transport == "" && req.Error != nil {
		res.Transport = *req.Error // raised by the next readline: the leftover is lost
	}
	if res.Transport == "" && pos < len(body) {
		if len(body)-pos > SGLangMaxLine {
			res.Transport = "LineTooLong"
		} else {
			s.line(pos, len(body), in.endNs)
		}
	}
	acct.upTo(BucketFraming, int64(min(pos, len(body))))
	acct.upTo(BucketIgnored, int64(len(body)))
}

// line handles body[ls:le], delivered at t; false when it fails the request.
func (s *sglangFramer) line(ls, le int, t int64) bool {
	i, j := pyBytesStrip(s.in.body[ls:le])
	if i == j {
		return true
	}
	text := s.in.body[ls+i : ls+j]
	if !utf8.Valid(text) {
		s.res.Transport = "UnicodeDecodeError: 'utf-8' codec can't decode the line"
		return false
	}
	start, end := int64(ls+i), int64(ls+j)
	payload, k := text, 0
	if bytes.HasPrefix(text, dataSpace) {
		payload, k = text[len(dataSpace):], len(dataSpace)
	}
	ev := Event{Index: len(s.res.Events), TNs: t, Start: start, End: end, Recorded: true}
	var vd verdict
	switch {
	case bytes.Equal(payload, doneMarker):
		vd.class = ClassDone
	case text[0] == ':':
		vd.class = ClassComment
	default:
		vd = s.cls.classify(payload)
		if vd.class == ClassDone {
			vd.class = ClassMalformed
		}
	}
	ev.Class, ev.Facts, ev.Usage, ev.LogprobEntries = vd.class, vd.facts, vd.usage, vd.logprobs
	ev.ContentBytes, ev.ReasoningBytes = vd.contentBytes, vd.reasoningBytes
	s.acct.upTo(BucketFraming, start)
	s.acct.span(BucketFraming, start, start+int64(k))
	s.acct.span(ClassBucket(vd.class), start+int64(k), end)
	s.res.Events = append(s.res.Events, ev)
	s.text.add(s.res, t, text, ev.Index)
	return true
}
