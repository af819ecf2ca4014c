package run

import (
	"encoding/binary"
	"math"
	"slices"

	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/replay"
)

// Event is what the calculators read of a record.Event besides its token
// count: its class and whether it has content or text; 2 bytes against 40
// (the arrival time and the byte counts are not read).
type Event struct {
	Class replay.Class
	flags uint8
}

const (
	eventHasContent uint8 = 1 << iota // ContentBytes > 0
	eventHasText                      // ContentBytes > 0 || ReasoningBytes > 0
)

// HasContent reports whether the event carries non-empty content.
func (e Event) HasContent() bool { return e.flags&eventHasContent != 0 }

// HasText reports whether the event carries content or reasoning text.
func (e Event) HasText() bool { return e.flags&eventHasText != 0 }

// eventOf keeps what the calculators read of e.
func eventOf(e record.Event) Event {
	st := Event{Class: e.Class}
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
// keeps a handful of runs, and a run's memory is its time points'.
type storedEvents struct {
	plain []Event    // an event each; nil when runs hold them
	runs  []eventRun // nil when plain holds them
}

// eventRun is count equal events in a row.
type eventRun struct {
	event Event
	count uint16
}

// storeEvents keeps events; nil events (unknown) stay unknown. One pass
// makes the runs; when they come to as much room as an event each, the
// events are kept one each instead.
func storeEvents(events []record.Event) storedEvents {
	if events == nil {
		return storedEvents{}
	}
	var runs []eventRun
	for _, e := range events {
		st := eventOf(e)
		if last := len(runs) - 1; last >= 0 && runs[last].event == st && runs[last].count < math.MaxUint16 {
			runs[last].count++
			continue
		}
		if 2*(len(runs)+1) >= len(events) { // as large as an event each, or larger
			plain := make([]Event, len(events))
			for k, e := range events {
				plain[k] = eventOf(e)
			}
			return storedEvents{plain: plain}
		}
		if runs == nil {
			runs = make([]eventRun, 0, 8)
		}
		runs = append(runs, eventRun{event: st, count: 1})
	}
	if runs == nil { // no events
		return storedEvents{plain: []Event{}}
	}
	return storedEvents{runs: slices.Clip(runs)}
}

// decode returns the events one each, or nil when unknown; read only.
// Events kept as runs are written in *buf's memory, which is reused.
func (s *storedEvents) decode(buf *[]Event) []Event {
	if s.runs == nil {
		return s.plain
	}
	out := (*buf)[:0]
	for _, r := range s.runs { // at least one: no events are kept plain
		for range r.count {
			out = append(out, r.event)
		}
	}
	*buf = out
	return out
}

// each yields the events one each, with their positions.
func (s *storedEvents) each(yield func(int, Event) bool) {
	if s.runs == nil {
		for k, e := range s.plain {
			if !yield(k, e) {
				return
			}
		}
		return
	}
	k := 0
	for _, r := range s.runs {
		for range r.count {
			if !yield(k, r.event) {
				return
			}
			k++
		}
	}
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
func (s *storedEvents) first() Event {
	if s.runs == nil {
		return s.plain[0]
	}
	return s.runs[0].event
}

func (s *storedEvents) last() Event {
	if s.runs == nil {
		return s.plain[len(s.plain)-1]
	}
	return s.runs[len(s.runs)-1].event
}

// storedTokens are a request's events' token counts (record.Event.Tokens,
// -1 for unknown) in one slice: a byte each, count + 1, when every count is
// below 254 (one to a few tokens an event, as streams have them), else
// wideTokens and then 8 bytes each, little-endian; none when every count is
// unknown, as on traces without continuous usage or logprobs.
type storedTokens []byte

// wideTokens starts a storedTokens of 8 bytes a count: no byte-wide one
// starts with it (count + 1 is at most 254).
const wideTokens = math.MaxUint8

func storeTokens(events []record.Event) storedTokens {
	small := true
	known := false
	for _, e := range events {
		if e.Tokens != -1 {
			known = true
		}
		if e.Tokens < -1 || e.Tokens >= wideTokens-1 {
			small = false
		}
	}
	switch {
	case !known:
		return nil
	case small:
		out := make(storedTokens, len(events))
		for i, e := range events {
			out[i] = uint8(e.Tokens + 1)
		}
		return out
	}
	out := make(storedTokens, 1, 1+8*len(events))
	out[0] = wideTokens
	for _, e := range events {
		out = binary.LittleEndian.AppendUint64(out, uint64(e.Tokens))
	}
	return out
}

// at is the token count of event i, -1 when unknown.
func (t storedTokens) at(i int) int64 {
	switch {
	case len(t) == 0:
		return -1
	case t[0] == wideTokens:
		return int64(binary.LittleEndian.Uint64(t[1+8*i:]))
	}
	return int64(t[i]) - 1
}
