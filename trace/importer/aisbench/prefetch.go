package aisbench

import (
	"errors"
	"iter"
	"sync/atomic"

	"github.com/sseaudit/sseaudit/trace"
)

// A prefetcher reads the databases' arrays while the details are read: one
// after the other, the two took about as long each. A worker reads the
// databases one at a time, in the order the details name them (the order
// readDatabases reads them in). Not knowing yet which rows the records
// reference, it decodes every row, keeping each row's array or its
// decoding error in table order; readDatabases then places them exactly as
// it places the rows it reads itself, errors in the same order. Past
// prefetchBudget bytes, over all databases, it gives up, and the databases
// it did not finish are read again in the usual way.
//
// It reads a database through SQLite's own interface (rawScan), copying
// each array out of SQLite's memory into a slab; a database with a pending
// journal, or one rawScan cannot read, is read through database/sql as
// readDatabases reads it, or left to readDatabases.
type prefetcher struct {
	byName map[string]*prefetch
	queue  chan *prefetch
	stop   atomic.Bool
	held   atomic.Int64
	done   chan struct{} // the worker has ended
}

// prefetch is one database's.
type prefetch struct {
	name, path string
	done       chan struct{}

	// Set by the worker, read once done is closed.
	rows      rowChunks
	note      string
	err       error // what ended the read (a whole-database error, say)
	abandoned bool
}

// rowChunks are a prefetch's rows in chunks of rowChunk, in table order: a
// slice grown row by row copied 100,000 rows (4.8 MB holding pointers) as
// it grew, on the prefetcher's path.
type rowChunks [][]prefetchedRow

const rowChunk = 4096

func (c *rowChunks) add(r prefetchedRow) {
	if n := len(*c); n == 0 || len((*c)[n-1]) == rowChunk {
		*c = append(*c, make([]prefetchedRow, 0, rowChunk))
	}
	last := &(*c)[len(*c)-1]
	*last = append(*last, r)
}

// all is every row, in table order.
func (c rowChunks) all() iter.Seq[prefetchedRow] {
	return func(yield func(prefetchedRow) bool) {
		for _, chunk := range c {
			for _, r := range chunk {
				if !yield(r) {
					return
				}
			}
		}
	}
}

type prefetchedRow struct {
	id  int64
	tp  []float64
	err error // decodeOwnedTimePoints'
	bad error // trace.CheckTimePoints' of tp
}

// prefetchBudget bounds what the prefetches hold together (arrays, the
// errors of rows that do not decode, the rows): beyond it, rows no record
// may need (a database with rows the details dropped) would cost memory the
// sequential read never spends.
var prefetchBudget int64 = 1 << 30

// prefetchRowBytes is what a prefetched row costs beside its array or error.
const prefetchRowBytes = 64

// prefetchQueue is how many databases may wait for the worker; one named
// when the queue is full is read in the usual way.
const prefetchQueue = 64

var (
	errPrefetchStopped = errors.New("prefetch stopped")
	errOverBudget      = errors.New("prefetch over budget")
)

// startPrefetch queues database name for the worker (started with the
// first), unless it is queued already or not there.
func (run *Run) startPrefetch(name string) {
	p := run.prefetcher
	if p == nil {
		p = &prefetcher{byName: map[string]*prefetch{}, queue: make(chan *prefetch, prefetchQueue), done: make(chan struct{})}
		run.prefetcher = p
		go p.work(run)
	}
	if _, seen := p.byName[name]; seen {
		return
	}
	pf := &prefetch{name: name, path: run.dbPath(name), done: make(chan struct{})}
	p.byName[name] = pf
	if !exists(pf.path) {
		pf.abandoned = true
		close(pf.done)
		return
	}
	select {
	case p.queue <- pf:
	default:
		pf.abandoned = true
		close(pf.done)
	}
}

// work reads the queued databases until the queue is closed.
func (p *prefetcher) work(run *Run) {
	defer close(p.done)
	for pf := range p.queue {
		p.read(run, pf)
		close(pf.done)
	}
}

func (p *prefetcher) read(run *Run, pf *prefetch) {
	if p.stop.Load() {
		pf.abandoned = true
		return
	}
	sl := newSlab(storedBytes(pf.path))
	keep := func(id int64, blob []byte) error {
		if p.stop.Load() {
			return errPrefetchStopped
		}
		tp, err := decodeOwnedTimePoints(blob)
		var bad error
		if err == nil {
			tp = sl.copyOf(tp) // blob is SQLite's memory, or the driver's let go
			bad = trace.CheckTimePoints(tp)
		}
		// What the row holds: its array, or its error's text, and the row.
		held := 8*int64(len(tp)) + prefetchRowBytes
		if err != nil {
			held += int64(len(err.Error()))
		}
		if bad != nil {
			held += int64(len(bad.Error()))
		}
		if p.held.Add(held) > prefetchBudget {
			p.stop.Store(true) // the databases after this one are read as usual
			return errOverBudget
		}
		pf.rows.add(prefetchedRow{id: id, tp: tp, err: err, bad: bad})
		return nil
	}
	if pendingJournal(pf.path) == "" && storeReadable(pf.path) {
		pf.err = rawScan(pf.path, keep)
		if errors.Is(pf.err, errRawScan) {
			pf.abandoned, pf.rows = true, nil // read as usual, which says why
			return
		}
	} else {
		// eachBlob reads only run.Dir-derived paths here: it does not
		// touch the Run the details are being read into.
		pf.note, pf.err = run.eachBlob(pf.path, keep)
	}
	if errors.Is(pf.err, errPrefetchStopped) || errors.Is(pf.err, errOverBudget) {
		pf.abandoned, pf.rows = true, nil
	}
}

// prefetched is the finished prefetch of database name at path, or nil
// when there is none to use (the database is then read as usual). The
// rows are the caller's: the prefetch lets go of them.
func (run *Run) prefetched(name, path string) *prefetch {
	p := run.prefetcher
	if p == nil {
		return nil
	}
	pf := p.byName[name]
	if pf == nil || pf.path != path {
		return nil
	}
	<-pf.done
	delete(p.byName, name)
	if pf.abandoned {
		return nil
	}
	run.prefetchedDBs++
	return pf
}

// stopPrefetch ends the prefetches still under way and waits for them.
func (run *Run) stopPrefetch() {
	if p := run.prefetcher; p != nil {
		p.stop.Store(true)
		close(p.queue)
		<-p.done
		run.prefetcher = nil
	}
}
