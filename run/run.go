// Package run keeps the records of one benchmark run (package record), in
// trace order, compactly, for the calculators to read: each request's time
// points in a samples.Store, its events as runs of equal events, its
// events' token counts in a byte each where they fit. What a calculator
// reads comes back exactly as added.
package run

import (
	"fmt"
	"iter"

	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/samples"
)

// Run is a run's requests in trace order (AISBench's details order).
type Run struct {
	store samples.Store
	// blocks hold the requests, requestBlock a block: a run grows a block
	// at a time, so that adding a request never copies the others, nor
	// holds two arrays of them while it does. The first grows as a slice.
	blocks [][]request
	n      int
}

// requestBlock is the requests a block holds (about 500 KB of them).
const requestBlock = 4096

// request is a record.Request as a Run keeps it, in 120 bytes.
type request struct {
	id      string
	success bool
	// hasInput and hasOutput say whether the token counts are known.
	hasInput, hasOutput bool
	ref                 samples.Ref // the time points in the store
	inputTokens         int64
	outputTokens        int64
	events              storedEvents
	tokens              storedTokens // the events' token counts
	spec                *record.SpecView
}

// at is request i.
func (r *Run) at(i int) *request {
	if i < 0 || i >= r.n {
		panic(fmt.Sprintf("run: request %d of %d", i, r.n))
	}
	return &r.blocks[i/requestBlock][i%requestBlock]
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
		q.hasInput, q.inputTokens = true, *rec.InputTokens
	}
	if rec.OutputTokens != nil {
		q.hasOutput, q.outputTokens = true, *rec.OutputTokens
	}
	last := len(r.blocks) - 1
	if last < 0 || len(r.blocks[last]) == requestBlock {
		var b []request
		if last >= 0 {
			b = make([]request, 0, requestBlock)
		}
		r.blocks = append(r.blocks, b)
		last++
	}
	r.blocks[last] = append(r.blocks[last], q)
	r.n++
}

// Release frees the run's memory (the store's mapped slabs, say); the run
// is not read after it.
func (r *Run) Release() {
	r.store.Release()
	r.blocks, r.n = nil, 0
}

// Len is the number of requests.
func (r *Run) Len() int { return r.n }

// ID is request i's request_id.
func (r *Run) ID(i int) string { return r.at(i).id }

// Success is request i's success flag, as recorded (a request with fewer
// than 2 time points may be marked successful).
func (r *Run) Success(i int) bool { return r.at(i).success }

// InputTokens and OutputTokens are request i's token counts; nil when
// unknown. Read only, and read at once: the pointer is into the run's
// memory, which may move while requests are added.
func (r *Run) InputTokens(i int) *int64 {
	if q := r.at(i); q.hasInput {
		return &q.inputTokens
	}
	return nil
}

func (r *Run) OutputTokens(i int) *int64 {
	if q := r.at(i); q.hasOutput {
		return &q.outputTokens
	}
	return nil
}

// Spec is what a spec-compliant SSE client saw in request i's bytes; nil
// when not replayed with the sse framer.
func (r *Run) Spec(i int) *record.SpecView { return r.at(i).spec }

// Points is the number of request i's time points.
func (r *Run) Points(i int) int { return r.store.Points(r.at(i).ref) }

// TimePoints are request i's time points as added, decoded into buf's
// memory (reused), as AISBench's arithmetic reads them.
func (r *Run) TimePoints(i int, buf []float64) []float64 {
	return r.store.TimePoints(r.at(i).ref, buf)
}

// Intervals is every interval of request i, np.diff(tp[1:]) (none for
// fewer than 3 time points), read from the store when read.
func (r *Run) Intervals(i int) samples.Span {
	return samples.ReadSpan(r, i, 0, max(r.Points(i)-2, 0))
}

// Samples reads request key's intervals from..to: a Run is the
// samples.Reader of its Intervals spans.
func (r *Run) Samples(key, from, to int, buf []float64) []float64 {
	return r.store.Intervals(r.at(key).ref, from, to, buf)
}

// Events are request i's events one each (nil when unknown), decoded into
// *buf's memory when kept as runs; read only.
func (r *Run) Events(i int, buf *[]Event) []Event { return r.at(i).events.decode(buf) }

// EachEvent is request i's events in order, with their positions, read
// where they are kept (runs are not decoded).
func (r *Run) EachEvent(i int) iter.Seq2[int, Event] { return r.at(i).events.each }

// EventCount is the number of request i's events (0 when unknown).
func (r *Run) EventCount(i int) int { return r.at(i).events.len() }

// FirstEvent and LastEvent are request i's first and last events; it must
// have one.
func (r *Run) FirstEvent(i int) Event { return r.at(i).events.first() }
func (r *Run) LastEvent(i int) Event  { return r.at(i).events.last() }

// EventTokens is the token count of request i's event e (record.Event.Tokens):
// -1 when unknown.
func (r *Run) EventTokens(i, e int) int64 { return r.at(i).tokens.at(e) }
