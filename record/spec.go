package record

import (
	"bytes"
	"sort"

	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/trace"
)

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

// FromReplays is FromReplay with what the sse framer saw in the
// same request's bytes (spec, replayed with replay.SSE) and the framing
// constructs found in req's body at the events AISBench's client cut (none
// when req is nil).
func FromReplays(req *trace.Request, ais, spec *replay.Result) Request {
	rec := FromReplay(ais)
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

// WithoutSpecReplay is FromReplays for a request whose body the
// aisbench replay ais found free of the constructs the two framers cut
// differently (ais.SSE), without the sse framer's replay: no construct
// counts, the sse framer's outcome from ais. It reports false when ais did
// not: replay the request with the sse framer then.
func WithoutSpecReplay(ais *replay.Result) (Request, bool) {
	if ais.SSE == nil {
		return Request{}, false
	}
	rec := FromReplay(ais)
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
