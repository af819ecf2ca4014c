package replay

import (
	"bytes"
)

// AIPerf frames the body as AIPerf's client does: a message from its first
// byte to a "\n\n" found within one read, timed at its first byte
// (aiperf.go).
const AIPerf Framer = "aiperf"

// AIPerfMaxMessage is the most bytes aiohttp 3.12's readuntil gathers after
// a message's first byte: its high-water mark, twice the 2**16 read_bufsize
// of AIPerf's ClientSession. More raises ValueError("Chunk too big").
const AIPerfMaxMessage = 2 << 16

// aiperfFramer is the framing of AIPerf's client
// (aiperf/clients/http/aiohttp_client.py at ai-dynamo/aiperf
// db4f6397d11ee2d4cfbb41f70b2327315163dcf0, AioHttpSSEStreamReader.__aiter__
// l. 189 and parse_sse_message l. 227, over aiohttp 3.12's StreamReader,
// which AIPerf asks for: aiohttp~=3.12.14), replayed on a recorded body:
//
//  1. Messages. `while not content.at_eof()`: `read(1)` takes the next byte
//     and the message is timed then (perf_counter_ns): at the read that
//     brought its first byte, which is the read before when the last
//     message ended inside it. Then `readuntil(b"\n\n")`: aiohttp 3.12
//     looks for the separator within its buffer's first read only, from
//     where it stands (after the first byte), so a "\n\n" split over two
//     reads is not one: the message runs on to the next "\n\n" that lies
//     within one read, or to the end of the body. A message of nothing
//     but its first byte at the end of the body is dropped (`if not
//     chunk: break`). More than AIPerfMaxMessage bytes after the first
//     raise ValueError and fail the request; so does a transport error
//     (the messages read so far are lost with it).
//  2. Text. The message is decoded as UTF-8 with errors="replace" and
//     stripped (str.strip); parse_sse_message splits it at "\n" only,
//     strips each line, skips empty ones, and cuts each at its first ":"
//     into a field name and a value (both stripped; an empty name is a
//     comment). SSEMessage.extract_data_content joins the non-empty values
//     of the fields named "data" (case-insensitively: SSEFieldType is a
//     CaseInsensitiveStrEnum) with "\n".
//
// Each message is handed on as a Result.Message whose Text is that data
// content ("" for a message without data: a comment, an "event:" line),
// at its first byte's time; the response extractor (calc/aiperf) decides
// what it means. Each message is an event, its class the classifier's
// verdict on its data content; for the byte accounting its payload runs
// from its first data value to its end.
type aiperfFramer struct {
	data []byte // the data content being built
	k    int    // the read messageEnd looks from

	in   *input
	cls  *classifier
	acct *accountant
	res  *Result
	text *messageText
}

func (p *aiperfFramer) run(in *input, cls *classifier, acct *accountant, res *Result, text *messageText) {
	*p = aiperfFramer{data: p.data[:0], in: in, cls: cls, acct: acct, res: res, text: text}
	req := in.req
	if res.Transport = transportFailure(req); res.Transport != "" {
		acct.upTo(BucketIgnored, int64(len(in.body)))
		return
	}
	clock := chunkClock{in: in}
	body := in.body
	pos := 0
	for pos < len(body) {
		t := clock.at(int64(pos)) // read(1): the first byte's read
		end := p.messageEnd(pos + 1)
		if end-(pos+1) > AIPerfMaxMessage {
			res.Transport = "ValueError: Chunk too big"
			break
		}
		if end == pos+1 {
			break // only the first byte, at the end of the body: dropped
		}
		p.message(pos, end, t)
		pos = end
	}
	if res.Transport == "" && req.Error != nil {
		res.Transport = *req.Error // raised by the next read: the request fails
	}
	acct.upTo(BucketFraming, int64(pos))
	acct.upTo(BucketIgnored, int64(len(body)))
}

// messageEnd is where readuntil(b"\n\n") stops when it starts at body
// offset from: after the first "\n\n" lying within one read from there,
// else at the end of the body. from only grows from call to call.
func (p *aiperfFramer) messageEnd(from int) int {
	body, ends := p.in.body, p.in.chunkEnds
	for p.k < len(ends) && ends[p.k] <= int64(from) {
		p.k++
	}
	for k := p.k; k < len(ends); k++ {
		start := int64(0)
		if k > 0 {
			start = ends[k-1]
		}
		a := max(int64(from), start)
		if i := bytes.Index(body[a:ends[k]], lf2); i >= 0 {
			return int(a) + i + 2
		}
	}
	return len(body)
}

// message hands on the message body[ms:me], timed at t.
func (p *aiperfFramer) message(ms, me int, t int64) {
	raw := p.in.body[ms:me]
	data, first := p.dataContent(raw)
	start, end := int64(ms), int64(me)
	ev := Event{Index: len(p.res.Events), TNs: t, Start: start, End: end, Recorded: true}
	var vd verdict
	switch {
	case first < 0:
		vd.class = ClassComment
	case bytes.Equal(data, doneMarker):
		vd.class = ClassDone
	default:
		vd = p.cls.classify(data)
		if vd.class == ClassDone {
			vd.class = ClassMalformed
		}
	}
	ev.Class, ev.Facts, ev.Usage, ev.LogprobEntries = vd.class, vd.facts, vd.usage, vd.logprobs
	ev.ContentBytes, ev.ReasoningBytes = vd.contentBytes, vd.reasoningBytes
	p.acct.upTo(BucketFraming, start)
	if first < 0 {
		p.acct.span(ClassBucket(vd.class), start, end)
	} else {
		p.acct.span(BucketFraming, start, start+int64(first))
		p.acct.span(ClassBucket(vd.class), start+int64(first), end)
	}
	p.res.Events = append(p.res.Events, ev)
	p.text.add(p.res, t, data, ev.Index)
}

// dataContent is extract_data_content of parse_sse_message of the message
// raw, decoded with errors="replace" and stripped: the non-empty values of
// its "data" fields joined with "\n" (in p.data), and the offset in raw of
// the first one's value (-1 for none).
func (p *aiperfFramer) dataContent(raw []byte) ([]byte, int) {
	d := p.data[:0]
	first := -1
	i, j := pyStrStrip(raw) // invalid bytes decode to U+FFFD, which is not a space
	for ls := i; ls <= j; {
		le := ls + bytes.IndexByte(raw[ls:j], '\n')
		if le < ls {
			le = j
		}
		a, b := pyStrStrip(raw[ls:le])
		line := raw[ls+a : ls+b]
		if c := bytes.IndexByte(line, ':'); c >= 0 {
			na, nb := pyStrStrip(line[:c])
			va, vb := pyStrStrip(line[c+1:])
			if nb-na == 4 && asciiEqualFold(line[na:nb], "data") && vb > va {
				if first >= 0 {
					d = append(d, '\n')
				} else {
					first = ls + a + c + 1 + va
				}
				d = pyDecodeReplace(d, line[c+1+va:c+1+vb])
			}
		}
		ls = le + 1
	}
	p.data = d
	return d, first
}

// asciiEqualFold reports whether b, lowered as Python's str.lower() lowers
// it, is the ASCII word w (only ASCII letters lower into ASCII, but for
// the Kelvin sign, which w does not hold).
func asciiEqualFold(b []byte, w string) bool {
	if len(b) != len(w) {
		return false
	}
	for i := range len(b) {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != w[i] {
			return false
		}
	}
	return true
}
