package aisbench

import (
	"errors"
	"sync/atomic"
)

// prefetch reads the first database's arrays while the details are read:
// one after the other, the two took about as long each. Not knowing yet
// which rows the records reference, it decodes every row, keeping each
// row's array or its decoding error in table order; readDatabases then
// places them exactly as it places the rows it reads itself, errors in the
// same order. Past prefetchBudget bytes of arrays it gives up, and the
// database is read again in the usual way.
type prefetch struct {
	name, path string
	stop       atomic.Bool
	done       chan struct{}

	// Set by the reading goroutine, read once done is closed.
	rows      []prefetchedRow
	note      string
	err       error // what ended the read (a whole-database error, say)
	abandoned bool
}

type prefetchedRow struct {
	id  int64
	tp  []float64
	err error // decodeTimePoints'
}

// prefetchBudget bounds what a prefetch holds (arrays, the errors of rows
// that do not decode, the rows): beyond it, rows no record may need (a
// database with rows the details dropped) would cost memory the sequential
// read never spends.
var prefetchBudget int64 = 1 << 30

// prefetchRowBytes is what a prefetched row costs beside its array or error.
const prefetchRowBytes = 64

var (
	errPrefetchStopped = errors.New("prefetch stopped")
	errOverBudget      = errors.New("prefetch over budget")
)

// startPrefetch starts reading database name, if it is there.
func (run *Run) startPrefetch(name string) {
	path := run.dbPath(name)
	pf := &prefetch{name: name, path: path, done: make(chan struct{})}
	run.prefetch = pf
	if !exists(path) {
		pf.abandoned = true
		close(pf.done)
		return
	}
	go func() {
		defer close(pf.done)
		var held int64
		// eachBlob only reads run.Dir-derived paths here: it does not touch
		// the Run the details are being read into.
		pf.note, pf.err = run.eachBlob(path, func(id int64, blob []byte) error {
			if pf.stop.Load() {
				return errPrefetchStopped
			}
			tp, err := decodeOwnedTimePoints(blob)
			// What the row holds: its array, or its error's text, and the row.
			held += 8*int64(len(tp)) + prefetchRowBytes
			if err != nil {
				held += int64(len(err.Error()))
			}
			if held > prefetchBudget {
				return errOverBudget
			}
			pf.rows = append(pf.rows, prefetchedRow{id: id, tp: tp, err: err})
			return nil
		})
		if errors.Is(pf.err, errPrefetchStopped) || errors.Is(pf.err, errOverBudget) {
			pf.abandoned, pf.rows = true, nil
		}
	}()
}

// prefetched is the finished prefetch of database name at path, or nil
// when there is none to use (the database is then read as usual).
func (run *Run) prefetched(name, path string) *prefetch {
	pf := run.prefetch
	if pf == nil || pf.name != name || pf.path != path {
		return nil
	}
	<-pf.done
	run.prefetch = nil
	if pf.abandoned {
		return nil
	}
	return pf
}

// stopPrefetch ends a prefetch still under way and waits for it.
func (run *Run) stopPrefetch() {
	if pf := run.prefetch; pf != nil {
		pf.stop.Store(true)
		<-pf.done
		run.prefetch = nil
	}
}
