package aisbench

import (
	"errors"
	"runtime"
	"sync"
)

// eachParsed is eachLine with parse run on the lines in parallel: the
// lines are read in batches, each batch parsed by a worker, and fn is
// handed every line's number, length and parse in file order, as eachLine
// would have. The first error in file order, from fn or from reading, ends
// it: the lines before a read error all reach fn first. parse must not
// keep b. With GOMAXPROCS 1 it is eachLine, one line at a time.
func eachParsed[T any](path string, maxLine int, parse func(line int, b []byte) T, fn func(line, n int, v T) error) error {
	workers := runtime.GOMAXPROCS(0)
	if workers == 1 {
		return eachLine(path, maxLine, func(line int, b []byte) error { return fn(line, len(b), parse(line, b)) })
	}
	type batch struct {
		buf   []byte // the lines, one after the other
		ends  []int  // where each ends in buf
		first int    // the first line's number
		out   []T
		done  chan struct{}
	}
	jobs := make(chan *batch, workers)    // to the workers
	order := make(chan *batch, 2*workers) // to fn, in file order
	free := make(chan *batch, cap(jobs)+cap(order)+workers+1)
	stop := make(chan struct{})
	var readErr error // eachLine's, once order is closed
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(jobs)
		defer close(order)
		send := func(b *batch) bool {
			select {
			case order <- b:
			case <-stop:
				return false
			}
			jobs <- b
			return true
		}
		var cur *batch
		err := eachLine(path, maxLine, func(line int, b []byte) error {
			if cur == nil {
				select {
				case cur = <-free:
					cur.buf, cur.ends, cur.out = cur.buf[:0], cur.ends[:0], cur.out[:0]
				default:
					cur = &batch{buf: make([]byte, 0, batchBytes)}
				}
				cur.first, cur.done = line, make(chan struct{})
			}
			cur.buf = append(cur.buf, b...)
			cur.ends = append(cur.ends, len(cur.buf))
			if len(cur.buf) >= batchBytes || len(cur.ends) >= batchLines {
				if !send(cur) {
					return errBatchStopped
				}
				cur = nil
			}
			return nil
		})
		if cur != nil && !errors.Is(err, errBatchStopped) && !send(cur) {
			return
		}
		readErr = err
	}()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range jobs {
				start := 0
				for k, end := range b.ends {
					b.out = append(b.out, parse(b.first+k, b.buf[start:end]))
					start = end
				}
				close(b.done)
			}
		}()
	}
	var err error
	for b := range order {
		<-b.done
		start := 0
		for k, v := range b.out {
			if err = fn(b.first+k, b.ends[k]-start, v); err != nil {
				break
			}
			start = b.ends[k]
		}
		if err != nil {
			close(stop)
			for range order { // let the reader finish its send and stop
			}
			break
		}
		clear(b.out) // let go of what the parses point to
		if cap(b.buf) > maxReusedBatch {
			continue // a huge line's batch is not kept to the end
		}
		select {
		case free <- b:
		default:
		}
	}
	wg.Wait()
	if err != nil {
		return err
	}
	return readErr
}

// A batch of eachParsed holds about batchBytes of lines, or batchLines;
// one that grew past maxReusedBatch (a line of megabytes) is not reused.
const (
	batchBytes     = 256 << 10
	batchLines     = 1024
	maxReusedBatch = 4 * batchBytes
)

var errBatchStopped = errors.New("stopped")
