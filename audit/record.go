package audit

import (
	"bytes"

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
	v := &SpecView{Success: spec.Success}
	for _, e := range spec.Events {
		if !e.Recorded {
			continue
		}
		if v.Events == 0 {
			v.FirstNs = e.TNs
		}
		v.Events++
		v.LastNs = e.TNs
	}
	var body []byte
	if req != nil {
		body = make([]byte, 0, req.BodyBytes())
		for _, c := range req.Chunks {
			body = append(body, c.Data...)
		}
	}
	for _, e := range ais.Events {
		if e.Class == replay.ClassAfterDone || e.Start < 0 || e.End > int64(len(body)) || e.Start > e.End {
			continue // AISBench stops reading at [DONE]
		}
		block := body[e.Start:e.End]
		data, fields := 0, 0
		i := 0
		for line := range bytes.Lines(block) {
			line = bytes.TrimLeft(bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r")), " \t")
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
			i++
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
