package record

import (
	"github.com/sseaudit/sseaudit/replay"
)

// Request is one request as AISBench's summarizer sees it.
type Request struct {
	ID           string
	Success      bool
	TimePoints   []float64 // seconds, t0 first (AISBench's time_points); never changed once made, so it may be shared
	InputTokens  *int64    // nil = unknown
	OutputTokens *int64    // nil = unknown
	// Events are the recorded events behind TimePoints[1:], one each; nil
	// when unknown (traces of time_points_s, failed requests).
	Events []Event
	// Spec is what a spec-compliant SSE client saw in the same bytes, and the
	// framing constructs AISBench's client mishandles; nil when not replayed
	// with the sse framer (FromReplays sets it).
	Spec *SpecView
}

// Event is one recorded event: the event behind one of a request's time
// points after t0 (Request.TimePoints[i+1] belongs to Events[i]).
type Event struct {
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
func (e Event) HasContent() bool { return e.ContentBytes > 0 }

// HasText reports whether the event carries content or reasoning text.
func (e Event) HasText() bool { return e.ContentBytes > 0 || e.ReasoningBytes > 0 }

// FromReplay turns what the aisbench framer replayed into the record
// AISBench's summarizer sees, with the recorded events alongside.
func FromReplay(res *replay.Result) Request {
	rec := Request{
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
	rec.Events = make([]Event, 0, recorded)
	var lastUsage int64 = -1
	for _, e := range res.Events {
		if !e.Recorded {
			continue
		}
		er := Event{Class: e.Class, TNs: e.TNs, Tokens: -1, ContentBytes: e.ContentBytes, ReasoningBytes: e.ReasoningBytes}
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
