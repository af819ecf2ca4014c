package main

import (
	"runtime"
	"sync"

	"github.com/sseaudit/sseaudit/trace"
)

// mapOrdered reads every request of r, runs work on each in parallel (one
// work function per worker, from newWork, so each worker keeps its own
// replayers) and hands the results to fn in trace order. The first error in
// trace order, from work or fn, stops the run and is returned; then r.Err().
// With GOMAXPROCS 1 it runs in the calling goroutine, one request at a time.
// The output is the same either way: work must depend on its request only.
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

	type job struct {
		req  *trace.Request
		v    T
		err  error
		done chan struct{}
	}
	jobs := make(chan *job, 2*workers)  // to the workers
	order := make(chan *job, 4*workers) // to this goroutine, in trace order
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the reader: a Request is only valid until the next Scan
		defer wg.Done()
		defer close(jobs)
		defer close(order)
		for r.Scan() {
			j := &job{req: cloneRequest(r.Request()), done: make(chan struct{})}
			select {
			case order <- j:
			case <-stop:
				return
			}
			jobs <- j
		}
	}()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work := newWork()
			for j := range jobs {
				j.v, j.err = work(j.req)
				j.req = nil
				close(j.done)
			}
		}()
	}
	var err error
	for j := range order {
		<-j.done
		if err = j.err; err == nil {
			err = fn(j.v)
		}
		if err != nil {
			close(stop)
			for range order { // let the reader finish its send and stop
			}
			break
		}
	}
	wg.Wait()
	if err != nil {
		return err
	}
	return r.Err()
}

// cloneRequest is a deep copy of req, its chunks' bytes in one allocation.
func cloneRequest(req *trace.Request) *trace.Request {
	c := *req
	c.EndNs = clonePtr(req.EndNs)
	c.HTTPStatus = clonePtr(req.HTTPStatus)
	c.Error = clonePtr(req.Error)
	c.InputTokens = clonePtr(req.InputTokens)
	c.OutputTokens = clonePtr(req.OutputTokens)
	if req.TimePointsS != nil {
		c.TimePointsS = append([]float64{}, req.TimePointsS...)
	}
	if req.Extra != nil {
		c.Extra = append([]trace.Value{}, req.Extra...)
		for i := range c.Extra {
			if b := c.Extra[i].Bytes; b != nil {
				c.Extra[i].Bytes = append([]byte{}, b...)
			}
		}
	}
	if req.Chunks != nil {
		buf := make([]byte, 0, req.BodyBytes())
		c.Chunks = make([]trace.Chunk, len(req.Chunks))
		for i, ch := range req.Chunks {
			start := len(buf)
			buf = append(buf, ch.Data...)
			c.Chunks[i] = trace.Chunk{TNs: ch.TNs, Data: buf[start:len(buf):len(buf)]}
		}
	}
	return &c
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
