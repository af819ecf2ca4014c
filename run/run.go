// Package run keeps the records of one benchmark run (package record), in
// trace order, compactly, for the calculators to read: each request's time
// points in a samples.Store, its events as runs of equal events, its
// events' token counts in a byte each where they fit. What a calculator
// reads comes back exactly as added.
package run

import (
	"iter"
	"slices"

	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/samples"
)

// Run is a run's requests in trace order (AISBench's details order).
type Run struct {
	store    samples.Store
	requests []request
}

// request is a record.Request as a Run keeps it.
type request struct {
	id           string
	success      bool
	ref          samples.Ref // the time points in the store
	inputTokens  *int64
	outputTokens *int64
	events       storedEvents
	tokens       storedTokens // the events' token counts
	spec         *record.SpecView
}

// New returns an empty Run whose time points go into store (a
// samples.NewPacked(samples.DefaultMapAfter) when nil).
func New(store samples.Store) *Run {
	if store == nil {
		store = samples.NewPacked(samples.DefaultMapAfter)
	}
	return &Run{store: store}
}

// Add keeps one request, copied, but for its time points: a record's never
// change once made, so the store may keep them as they are
// (samples.Store.Add). Requests come in trace order.
func (r *Run) Add(rec record.Request) {
	q := request{id: rec.ID, success: rec.Success, ref: r.store.Add(rec.TimePoints),
		events: storeEvents(rec.Events), tokens: storeTokens(rec.Events)}
	if rec.Spec != nil {
		v := *rec.Spec
		q.spec = &v
	}
	if rec.InputTokens != nil {
		v := *rec.InputTokens
		q.inputTokens = &v
	}
	if rec.OutputTokens != nil {
		v := *rec.OutputTokens
		q.outputTokens = &v
	}
	r.requests = append(r.requests, q)
}

// Grow makes room for n more requests: a run that knows how many it will
// keep copies none of them as it grows.
func (r *Run) Grow(n int) { r.requests = slices.Grow(r.requests, n) }

// Release frees the run's memory (the store's mapped slabs, say); the run
// is not read after it.
func (r *Run) Release() {
	r.store.Release()
	r.requests = nil
}

// Len is the number of requests.
func (r *Run) Len() int { return len(r.requests) }

// ID is request i's request_id.
func (r *Run) ID(i int) string { return r.requests[i].id }

// Success is request i's success flag, as recorded (a request with fewer
// than 2 time points may be marked successful).
func (r *Run) Success(i int) bool { return r.requests[i].success }

// InputTokens and OutputTokens are request i's token counts; nil when unknown.
func (r *Run) InputTokens(i int) *int64  { return r.requests[i].inputTokens }
func (r *Run) OutputTokens(i int) *int64 { return r.requests[i].outputTokens }

// Spec is what a spec-compliant SSE client saw in request i's bytes; nil
// when not replayed with the sse framer.
func (r *Run) Spec(i int) *record.SpecView { return r.requests[i].spec }

// Points is the number of request i's time points.
func (r *Run) Points(i int) int { return r.store.Points(r.requests[i].ref) }

// TimePoints are request i's time points as added, decoded into buf's
// memory (reused), as AISBench's arithmetic reads them.
func (r *Run) TimePoints(i int, buf []float64) []float64 {
	return r.store.TimePoints(r.requests[i].ref, buf)
}

// Intervals is every interval of request i, np.diff(tp[1:]) (none for
// fewer than 3 time points), read from the store when read.
func (r *Run) Intervals(i int) samples.Span {
	return samples.ReadSpan(r, i, 0, max(r.Points(i)-2, 0))
}

// Samples reads request key's intervals from..to: a Run is the
// samples.Reader of its Intervals spans.
func (r *Run) Samples(key, from, to int, buf []float64) []float64 {
	return r.store.Intervals(r.requests[key].ref, from, to, buf)
}

// Events are request i's events one each (nil when unknown), decoded into
// *buf's memory when kept as runs; read only.
func (r *Run) Events(i int, buf *[]Event) []Event { return r.requests[i].events.decode(buf) }

// EachEvent is request i's events in order, with their positions, read
// where they are kept (runs are not decoded).
func (r *Run) EachEvent(i int) iter.Seq2[int, Event] { return r.requests[i].events.each }

// EventCount is the number of request i's events (0 when unknown).
func (r *Run) EventCount(i int) int { return r.requests[i].events.len() }

// FirstEvent and LastEvent are request i's first and last events; it must
// have one.
func (r *Run) FirstEvent(i int) Event { return r.requests[i].events.first() }
func (r *Run) LastEvent(i int) Event  { return r.requests[i].events.last() }

// EventTokens is the token count of request i's event e (record.Event.Tokens):
// -1 when unknown.
func (r *Run) EventTokens(i, e int) int64 { return r.requests[i].tokens.at(e) }
