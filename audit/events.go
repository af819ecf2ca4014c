package audit

import (
	"math"

	"github.com/sseaudit/sseaudit/replay"
)

// storedEvent is what Finalize reads of an EventRecord besides its token
// count: its class and whether it has content or text; 2 bytes against 40
// (the arrival time and the byte counts are not read).
type storedEvent struct {
	Class replay.Class
	flags uint8
}

const (
	eventHasContent uint8 = 1 << iota // ContentBytes > 0
	eventHasText                      // ContentBytes > 0 || ReasoningBytes > 0
)

func (e storedEvent) HasContent() bool { return e.flags&eventHasContent != 0 }
func (e storedEvent) HasText() bool    { return e.flags&eventHasText != 0 }

func storedEventOf(e EventRecord) storedEvent {
	st := storedEvent{Class: e.Class}
	if e.HasContent() {
		st.flags |= eventHasContent
	}
	if e.HasText() {
		st.flags |= eventHasText
	}
	return st
}

// storedEvents are a request's stored events as runs of equal events when
// that takes less room than an event each: a stream's chunks are mostly
// alike (content after content), so that a request of hundreds of events
// keeps a handful of runs, and the Builder's memory is its time points'.
type storedEvents struct {
	plain []storedEvent // an event each; nil when runs hold them
	runs  []eventRun    // nil when plain holds them
}

// eventRun is count equal events in a row.
type eventRun struct {
	event storedEvent
	count uint16
}

// storeEvents keeps events; nil events (unknown) stay unknown.
func storeEvents(events []EventRecord) storedEvents {
	if events == nil {
		return storedEvents{}
	}
	runs := 0
	for i, e := range events {
		if i == 0 || storedEventOf(e) != storedEventOf(events[i-1]) {
			runs++
		}
	}
	if runs*2 >= len(events) { // as large as an event each, or larger
		plain := make([]storedEvent, len(events))
		for i, e := range events {
			plain[i] = storedEventOf(e)
		}
		return storedEvents{plain: plain}
	}
	out := make([]eventRun, 0, runs+len(events)/math.MaxUint16)
	for _, e := range events {
		st := storedEventOf(e)
		if last := len(out) - 1; last >= 0 && out[last].event == st && out[last].count < math.MaxUint16 {
			out[last].count++
			continue
		}
		out = append(out, eventRun{event: st, count: 1})
	}
	return storedEvents{runs: out}
}

// decode returns the events one each, or nil when unknown; read only.
// Events kept as runs are written in *buf's memory, which is reused.
func (s *storedEvents) decode(buf *[]storedEvent) []storedEvent {
	if s.runs == nil {
		return s.plain
	}
	out := (*buf)[:0]
	for _, r := range s.runs {
		for range r.count {
			out = append(out, r.event)
		}
	}
	if out == nil {
		out = []storedEvent{}
	}
	*buf = out
	return out
}

// len is the number of events (0 when unknown).
func (s *storedEvents) len() int {
	if s.runs == nil {
		return len(s.plain)
	}
	n := 0
	for _, r := range s.runs {
		n += int(r.count)
	}
	return n
}

// first and last are the first and the last event; there must be one.
func (s *storedEvents) first() storedEvent {
	if s.runs == nil {
		return s.plain[0]
	}
	return s.runs[0].event
}

func (s *storedEvents) last() storedEvent {
	if s.runs == nil {
		return s.plain[len(s.plain)-1]
	}
	return s.runs[len(s.runs)-1].event
}
