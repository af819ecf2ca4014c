package audit

import (
	"bytes"
	"sort"

	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/trace"
)

// EventRecord is one recorded event: the event behind one of a request's time
// points after t0 (RequestRecord.TimePoints[i+1] belongs to Events[i]).
type EventRecord struct {
	Class replay.Class
	TNs   int64 // arrival on the trace clock; 0 for traces of time_points_s
	// Tokens is how many output tokens the event carries when the stream says
	// so itself (a continuous-usage completion_tokens delta, else its logprob
	// entries); -1 when unknown. Never inferred from a ratio.
	Tokens         int64
	ContentBytes   int
	ReasoningBytes int
}

// HasContent reports whether the event carries non-empty delta.content (or
// completions text).
func (e EventRecord) HasContent() bool { return e.ContentBytes > 0 }

// HasText reports whether the event carries content or reasoning text.
func (e EventRecord) HasText() bool { return e.ContentBytes > 0 || e.ReasoningBytes > 0 }

// RecordFromReplay turns what the aisbench framer replayed into the record
// AISBench's summarizer sees, with the recorded events alongside.
func RecordFromReplay(res *replay.Result) RequestRecord {
	rec := RequestRecord{
		ID: res.RequestID, Success: res.Success, TimePoints: res.TimePointsS,
		InputTokens: res.InputTokens, OutputTokens: res.OutputTokens,
	}
	if res.TimePointsNs == nil {
		return rec // a trace of time_points_s: no events known
	}
	recorded := 0
	for _, e := range res.Events {
		if e.Recorded {
			recorded++
		}
	}
	if recorded == 0 || recorded != len(rec.TimePoints)-1 {
		// No event (Events stays nil, as before), or time points cleared
		// after a failure: the events stand for nothing.
		return rec
	}
	rec.Events = make([]EventRecord, 0, recorded)
	var lastUsage int64 = -1
	for _, e := range res.Events {
		if !e.Recorded {
			continue
		}
		er := EventRecord{Class: e.Class, TNs: e.TNs, Tokens: -1, ContentBytes: e.ContentBytes, ReasoningBytes: e.ReasoningBytes}
		switch {
		case e.Usage != nil && e.Usage.CompletionTokens > 0 && lastUsage >= 0:
			er.Tokens = e.Usage.CompletionTokens - lastUsage
		case e.Usage != nil && e.Usage.CompletionTokens > 0 && e.Class != replay.ClassUsageOnly:
			// The first usage of a continuous-usage stream counts from zero.
			er.Tokens = e.Usage.CompletionTokens
		case e.LogprobEntries > 0:
			er.Tokens = int64(e.LogprobEntries)
		}
		if e.Usage != nil && e.Usage.CompletionTokens > 0 {
			lastUsage = e.Usage.CompletionTokens
		}
		rec.Events = append(rec.Events, er)
	}
	if len(rec.Events) != len(rec.TimePoints)-1 {
		// Time points cleared after a failure: the events stand for nothing.
		rec.Events = nil
	}
	return rec
}

// SpecView is what a client following the WHATWG server-sent-events algorithm
// (the sse framer) made of a request's bytes, beside AISBench's client, and
// how often the body uses the constructs AISBench's client mishandles.
type SpecView struct {
	Success bool // the spec client finishes the request
	Events  int  // data events it dispatches before [DONE]
	// FirstNs and LastNs are the arrival times of its first and last event
	// (0 when it dispatched none).
	FirstNs, LastNs int64
	// The constructs, counted in the blocks AISBench's client cuts:
	CommentInBlock int // a block starting with ':' that holds a data: line (AISBench skips the data)
	FieldLines     int // a data block with an event:, id: or retry: line (AISBench fails on its JSON)
	MultiLineData  int // a data block with two or more data: lines (AISBench fails on its JSON)
}

// RecordFromReplays is RecordFromReplay with what the sse framer saw in the
// same request's bytes (spec, replayed with replay.SSE) and the framing
// constructs found in req's body at the events AISBench's client cut (none
// when req is nil).
func RecordFromReplays(req *trace.Request, ais, spec *replay.Result) RequestRecord {
	rec := RecordFromReplay(ais)
	if spec == nil || spec.TimePointsNs == nil {
		return rec
	}
	v := specView(spec.Outcome())
	var body bodyRanges
	if req != nil {
		body = newBodyRanges(req.Chunks)
	}
	for _, e := range ais.Events {
		if e.Class == replay.ClassAfterDone || e.Start < 0 || e.End > body.len() || e.Start > e.End {
			continue // AISBench stops reading at [DONE]
		}
		block := body.bytes(e.Start, e.End)
		data, fields := 0, 0
		// Each line (as bytes.Lines cuts them) without its "\n", one "\r"
		// and leading blanks.
		for i := 0; len(block) > 0; i++ {
			line := block
			if k := bytes.IndexByte(block, '\n'); k >= 0 {
				line, block = block[:k], block[k+1:]
			} else {
				block = nil
			}
			line = bytes.TrimSuffix(line, []byte("\r"))
			for len(line) > 0 && (line[0] == ' ' || line[0] == '\t') {
				line = line[1:]
			}
			switch {
			case bytes.HasPrefix(line, []byte("data:")):
				data++
			case i > 0 || e.Class != replay.ClassComment:
				for _, f := range [][]byte{[]byte("event:"), []byte("id:"), []byte("retry:")} {
					if bytes.HasPrefix(line, f) {
						fields++
					}
				}
			}
		}
		switch {
		case e.Class == replay.ClassComment:
			if data > 0 {
				v.CommentInBlock++
			}
		case fields > 0:
			v.FieldLines++
		case data > 1:
			v.MultiLineData++
		}
	}
	rec.Spec = v
	return rec
}

// RecordWithoutSpecReplay is RecordFromReplays for a request whose body the
// aisbench replay ais found free of the constructs the two framers cut
// differently (ais.SSE), without the sse framer's replay: no construct
// counts, the sse framer's outcome from ais. It reports false when ais did
// not: replay the request with the sse framer then.
func RecordWithoutSpecReplay(ais *replay.Result) (RequestRecord, bool) {
	if ais.SSE == nil {
		return RequestRecord{}, false
	}
	rec := RecordFromReplay(ais)
	rec.Spec = specView(*ais.SSE)
	return rec, true
}

func specView(o replay.Outcome) *SpecView {
	return &SpecView{Success: o.Success, Events: o.Events, FirstNs: o.FirstNs, LastNs: o.LastNs}
}

// bodyRanges reads byte ranges of a request's body (its chunks' bytes, in
// order) without joining the chunks: a range within one chunk is a piece of
// it, and only a range across chunks is copied, into a buffer reused from
// range to range.
type bodyRanges struct {
	chunks []trace.Chunk
	starts []int64 // each chunk's offset in the body, then the body's length
	buf    []byte
}

func newBodyRanges(chunks []trace.Chunk) bodyRanges {
	b := bodyRanges{chunks: chunks, starts: make([]int64, len(chunks)+1)}
	for i, c := range chunks {
		b.starts[i+1] = b.starts[i] + int64(len(c.Data))
	}
	return b
}

func (b *bodyRanges) len() int64 {
	if b.starts == nil {
		return 0
	}
	return b.starts[len(b.starts)-1]
}

// bytes is body[start:end], for 0 <= start <= end <= len(); valid until the
// next call.
func (b *bodyRanges) bytes(start, end int64) []byte {
	if start == end {
		return nil
	}
	// The chunk holding start: the first whose end lies beyond it.
	i := sort.Search(len(b.chunks), func(i int) bool { return b.starts[i+1] > start })
	if end <= b.starts[i+1] {
		return b.chunks[i].Data[start-b.starts[i] : end-b.starts[i]]
	}
	b.buf = b.buf[:0]
	for ; i < len(b.chunks) && b.starts[i] < end; i++ {
		b.buf = append(b.buf, b.chunks[i].Data[max(start, b.starts[i])-b.starts[i]:min(end, b.starts[i+1])-b.starts[i]]...)
	}
	return b.buf
}
