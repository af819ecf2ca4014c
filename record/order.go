package record

import (
	"runtime"

	"github.com/sseaudit/sseaudit/internal/parallel"
	"github.com/sseaudit/sseaudit/trace"
)

// mapOrdered reads every request of r, runs work on each in parallel (one
// work function per worker, from newWork, so each worker keeps its own
// replayers) and hands the results to fn in trace order. The first error in
// trace order, from work or fn, stops the run and is returned; then r.Err().
// With GOMAXPROCS 1 it runs in the calling goroutine, one request at a time.
// The output is the same either way: work must depend on its request only.
// Work must not keep any part of its request once it has returned: the
// request's memory then holds a later request; unless r is a
// trace.MemoryReader, whose requests are handed to work as they are.
func mapOrdered[T any](r trace.Reader, newWork func() func(*trace.Request) (T, error), fn func(T) error) error {
	workers := runtime.GOMAXPROCS(0)
	if workers == 1 {
		work := newWork()
		for r.Scan() {
			v, err := work(r.Request())
			if err != nil {
				return err
			}
			if err := fn(v); err != nil {
				return err
			}
		}
		return r.Err()
	}

	_, inMemory := r.(trace.MemoryReader)
	// A job is one request, or a batch of a memory reader's: its requests
	// need no copy, and a batch costs the channels one hand-over for many.
	batch := 1
	if inMemory {
		batch = memoryBatch
	}
	type job struct {
		in  []*trace.Request
		one [1]*trace.Request // in's memory for a job of one
		req *requestCopy      // in[0]'s copy, unless r holds its requests
		v   []T               // the results, up to the first error
		err error
	}
	// Copies whose work is done, for the reader to fill again; room for
	// every job that can be in flight.
	free := make(chan *requestCopy, parallel.InFlight(workers))
	produce := func(send func(*job) bool) error { // a Request is only valid until the next Scan
		var j *job
		for r.Scan() {
			if j == nil {
				j = &job{}
				j.in = j.one[:0]
				if batch > 1 {
					j.in = make([]*trace.Request, 0, batch)
				}
			}
			in := r.Request()
			if !inMemory {
				var c *requestCopy
				select {
				case c = <-free:
				default:
					c = new(requestCopy)
				}
				c.copyFrom(in)
				in, j.req = &c.req, c
			}
			if j.in = append(j.in, in); len(j.in) == batch {
				if !send(j) {
					return nil
				}
				j = nil
			}
		}
		if j != nil {
			send(j)
		}
		return r.Err()
	}
	newJobWork := func() func(*job) {
		work := newWork()
		return func(j *job) {
			j.v = make([]T, 0, len(j.in))
			for _, in := range j.in {
				v, err := work(in)
				if err != nil {
					j.err = err
					break
				}
				j.v = append(j.v, v)
			}
			j.in = nil
			if j.req != nil && cap(j.req.body) <= maxReusedBody {
				select {
				case free <- j.req:
				default: // not expected: free has room for every copy
				}
			}
			j.req = nil
		}
	}
	return parallel.Ordered(workers, produce, newJobWork, func(j *job) error {
		for _, v := range j.v {
			if err := fn(v); err != nil {
				return err
			}
		}
		return j.err
	})
}

// memoryBatch is how many of a memory reader's requests a worker takes at
// once.
const memoryBatch = 64

// maxReusedBody is the largest body buffer a requestCopy is reused with: a
// rare huge body is not kept in memory until the end of the run.
const maxReusedBody = 4 << 20

// requestCopy is a deep copy of a request, in memory reused from request to
// request: the body's bytes in one buffer, the pointed-to values in the
// copy itself.
type requestCopy struct {
	req                              trace.Request
	chunks                           []trace.Chunk
	body                             []byte
	timePoints                       []float64
	extra                            []trace.Value
	extraBytes                       []byte
	endNs, inputTokens, outputTokens int64
	httpStatus                       int32
	errText                          string
}

// copyFrom makes c.req a deep copy of src (nil slices and pointers stay nil,
// empty ones empty), overwriting the previous request.
func (c *requestCopy) copyFrom(src *trace.Request) {
	c.req = *src
	c.req.EndNs = copyPtr(&c.endNs, src.EndNs)
	c.req.HTTPStatus = copyPtr(&c.httpStatus, src.HTTPStatus)
	c.req.Error = copyPtr(&c.errText, src.Error)
	c.req.InputTokens = copyPtr(&c.inputTokens, src.InputTokens)
	c.req.OutputTokens = copyPtr(&c.outputTokens, src.OutputTokens)
	c.req.TimePointsS = copySlice(&c.timePoints, src.TimePointsS)
	if c.req.Extra = copySlice(&c.extra, src.Extra); src.Extra != nil {
		n := 0
		for _, v := range src.Extra {
			n += len(v.Bytes)
		}
		// Sized first: the values' bytes are pieces of the buffer.
		c.extraBytes = growEmpty(c.extraBytes, n)
		for i, v := range src.Extra {
			if v.Bytes != nil {
				start := len(c.extraBytes)
				c.extraBytes = append(c.extraBytes, v.Bytes...)
				c.extra[i].Bytes = c.extraBytes[start:len(c.extraBytes):len(c.extraBytes)]
			}
		}
	}
	if src.Chunks == nil {
		c.req.Chunks = nil
		return
	}
	c.body = growEmpty(c.body, int(src.BodyBytes()))
	c.chunks = growEmpty(c.chunks, len(src.Chunks))
	for _, ch := range src.Chunks {
		start := len(c.body)
		c.body = append(c.body, ch.Data...)
		c.chunks = append(c.chunks, trace.Chunk{TNs: ch.TNs, Data: c.body[start:len(c.body):len(c.body)]})
	}
	c.req.Chunks = c.chunks
}

// growEmpty is buf emptied, with room for n elements, never nil.
func growEmpty[T any](buf []T, n int) []T {
	if buf == nil || cap(buf) < n {
		return make([]T, 0, n)
	}
	return buf[:0]
}

// copySlice copies src into *buf's memory and returns the copy: nil for nil.
func copySlice[T any](buf *[]T, src []T) []T {
	if src == nil {
		return nil
	}
	*buf = append(growEmpty(*buf, len(src)), src...)
	return *buf
}

// copyPtr copies *src into *dst and returns dst: nil for nil.
func copyPtr[T any](dst *T, src *T) *T {
	if src == nil {
		return nil
	}
	*dst = *src
	return dst
}
