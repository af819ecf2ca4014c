package replay

import (
	"bytes"

	"github.com/sseaudit/sseaudit/trace"
)

// Outcome sums up a replay: whether the request succeeded, how many events
// got a time point after t0, and when the first and the last of them
// arrived (0 when none did).
type Outcome struct {
	Success         bool
	Events          int
	FirstNs, LastNs int64
}

// Outcome sums up r.
func (r *Result) Outcome() Outcome {
	o := Outcome{Success: r.Success}
	for _, e := range r.Events {
		if !e.Recorded {
			continue
		}
		if o.Events == 0 {
			o.FirstNs = e.TNs
		}
		o.Events++
		o.LastNs = e.TNs
	}
	return o
}

// sseAgreement follows, as the aisbench framer reads a body, whether the body
// holds only what the sse framer cuts into the same events. The constructs
// on which the two framers can differ, each ruled out by one condition:
//
//   - a CR anywhere: the sse framer ends lines at CR and CRLF, iter_lines
//     rewrites \r\n\r\n and \r\r, and aiohttp delivers a line at its LF only
//     (other events, other times);
//   - a line that is neither blank ("\n") nor starts with "data: ": a BOM
//     (dropped by the sse framer), a comment ':' (AISBench skips its whole
//     block), event:, id:, retry: or any other field line (AISBench parses
//     them as payload), "data:" without its space, whitespace lines;
//   - a data line not followed by a blank line: several data lines in one
//     block (joined by the sse framer, parsed whole by AISBench), a block
//     still open at the end of the body (iter_lines yields it, the sse
//     framer discards it);
//   - bytes after the last LF: an unterminated line (the same);
//   - a payload that is not exactly the line after "data: ": whitespace
//     Python's strip takes and the sse framer keeps (a second leading space,
//     trailing or Unicode spaces), on which the two would classify different
//     bytes and see [DONE] differently;
//   - invalid UTF-8 in a payload: the sse framer classifies it with U+FFFD
//     in place of each bad byte, a longer payload that --max-event-bytes may
//     refuse.
//
// Without them every block is one data line closed by a blank line: both
// framers cut the same events with the same payloads (so the same [DONE],
// the same events over the size limit), at the read that delivered the
// blank line's LF. Time points then differ only by the sse framer's rules
// (sse.go): it records every data event before [DONE], whatever its JSON.
type sseAgreement struct {
	ok       bool // nothing seen so far on which the framers differ
	openData bool // the last line was a data line, its block not yet closed
}

var dataSpace = []byte("data: ")

// line takes the next line of the body, with its LF.
func (g *sseAgreement) line(ln []byte) {
	switch {
	case len(ln) == 1:
		g.openData = false
	case !g.openData && bytes.HasPrefix(ln, dataSpace):
		g.openData = true
	default:
		g.ok = false
	}
}

// end takes the end of the body, with the length of its unterminated last
// line.
func (g *sseAgreement) end(leftover int) {
	if g.openData || leftover > 0 {
		g.ok = false
	}
}

// sseOutcome is the sse framer's Outcome on a body it cuts into the events
// the aisbench framer cut: sse.go's rules on them. Its data events up to
// [DONE] get time points, kept unless the response was not a 200; a
// transport error fails the request.
func sseOutcome(req *trace.Request, events []Event) Outcome {
	if req.HTTPStatus == nil || *req.HTTPStatus != 200 {
		return Outcome{}
	}
	n := len(events)
	for i, e := range events {
		if e.Class == ClassDone {
			n = i
			break
		}
	}
	o := Outcome{Success: req.Error == nil && n > 0, Events: n}
	if n > 0 {
		o.FirstNs, o.LastNs = events[0].TNs, events[n-1].TNs
	}
	return o
}
