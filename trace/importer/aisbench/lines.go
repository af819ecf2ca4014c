package aisbench

import (
	"errors"
	"runtime"

	"github.com/sseaudit/sseaudit/internal/parallel"
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
	}
	free := make(chan *batch, parallel.InFlight(workers))
	produce := func(send func(*batch) bool) error {
		var cur *batch
		err := eachLine(path, maxLine, func(line int, b []byte) error {
			if cur == nil {
				select {
				case cur = <-free:
					cur.buf, cur.ends, cur.out = cur.buf[:0], cur.ends[:0], cur.out[:0]
				default:
					cur = &batch{buf: make([]byte, 0, batchBytes)}
				}
				cur.first = line
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
		if cur != nil && !errors.Is(err, errBatchStopped) {
			send(cur) // the lines before a read error go first
		}
		return err
	}
	newWork := func() func(*batch) {
		return func(b *batch) {
			start := 0
			for k, end := range b.ends {
				b.out = append(b.out, parse(b.first+k, b.buf[start:end]))
				start = end
			}
		}
	}
	return parallel.Ordered(workers, produce, newWork, func(b *batch) error {
		start := 0
		for k, v := range b.out {
			if err := fn(b.first+k, b.ends[k]-start, v); err != nil {
				return err
			}
			start = b.ends[k]
		}
		// Let go of what the parses point to; a huge line's batch is not
		// kept to the end.
		clear(b.out)
		if cap(b.buf) <= maxReusedBatch {
			select {
			case free <- b:
			default:
			}
		}
		return nil
	})
}

// A batch of eachParsed holds about batchBytes of lines, or batchLines;
// one that grew past maxReusedBatch (a line of megabytes) is not reused.
const (
	batchBytes     = 256 << 10
	batchLines     = 1024
	maxReusedBatch = 4 * batchBytes
)

var errBatchStopped = errors.New("stopped")
