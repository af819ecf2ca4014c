package parquetfile

import (
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
)

// columnReader reads one leaf column of a row group a window at a time (a
// page, or a piece of a large one: see columnStream) and hands out its slots
// (one level pair each, and a value when present) in order. Values are read
// straight from the decoded window: assembling generic rows first cost more
// than decompressing them.
type columnReader struct {
	column string // for errors
	kind   parquet.Kind
	maxRep int
	maxDef int
	src    *windowsAhead
	ended  bool // no window left

	// The current window: levels by slot (nil when the column has no such
	// level), and its present values, by kind, in slot order; byte array
	// value i is data[starts[i]:ends[i]].
	reps, defs   []byte
	slots        int
	ints         []int64
	int32s       []int32
	floats       []float64
	float32s     []float32
	bools        []bool
	data         []byte
	starts, ends []uint32
	slot         int // next slot
	value        int // next present value

	// A dictionary-encoded window: the dictionary index of each present
	// value; the value slices above then hold the dictionary's values.
	indexes []int32
	dict    *dictionary // the dictionary whose values are loaded
	// dictNumber counts the dictionaries loaded, from 1: an int compares
	// faster than the interface.
	dictNumber int
	// The slot of a request's first row (see mark): its definition level
	// (-1 before the first mark) and, when dictionary-encoded, the number
	// of its dictionary (0 when not) and its index there; the slots before
	// runEnd hold the same.
	markedDef   int
	markedDict  int
	markedIndex int32
	runEnd      int
}

// slot is one position of a column: its levels and, when present, the index
// of its value in the current page.
type slot struct {
	rep, def int
	present  bool
	value    int
}

func newColumnReader(s *columnStream, l *leaf) *columnReader {
	return &columnReader{column: l.column, kind: l.kind, maxRep: l.maxRep, maxDef: l.maxDef, markedDef: -1,
		src: readAhead(s)}
}

func (c *columnReader) close() {
	if c.src != nil {
		c.src.close()
		c.src = nil
	}
}

// more reports whether a slot is left, reading the next page if needed.
func (c *columnReader) more() (bool, error) {
	for c.slot >= c.slots {
		if c.ended {
			return false, nil
		}
		if err := c.readPage(); err != nil {
			return false, err
		}
	}
	return true, nil
}

// inRow reports whether another slot of the row being read follows.
func (c *columnReader) inRow() (bool, error) {
	more, err := c.more()
	return more && !c.startsRow(), err
}

// startsRow reports whether the next slot starts a new row; more must have
// returned true.
func (c *columnReader) startsRow() bool {
	return c.reps == nil || c.reps[c.slot] == 0
}

// take returns the next slot; more must have returned true.
func (c *columnReader) take() slot {
	s := slot{def: c.maxDef}
	if c.reps != nil {
		s.rep = int(c.reps[c.slot])
	}
	if c.defs != nil {
		s.def = int(c.defs[c.slot])
	}
	c.slot++
	if s.def == c.maxDef {
		s.present, s.value = true, c.value
		c.value++
	}
	return s
}

// rowBytes is the byte length of the present values of the row starting at
// the next slot, and whether the row ends within the current page (only then
// is the length the row's whole length).
func (c *columnReader) rowBytes() (n int, whole bool) {
	v := c.value
	for i := c.slot; i < c.slots; i++ {
		if i > c.slot && c.reps != nil && c.reps[i] == 0 {
			return n, true
		}
		if c.defs == nil || int(c.defs[i]) == c.maxDef {
			j := c.valueAt(v)
			n += int(c.ends[j] - c.starts[j])
			v++
		}
	}
	return n, false
}

// valueAt maps the index of a present value of the page to its index in the
// value slices.
func (c *columnReader) valueAt(i int) int {
	if c.indexes != nil {
		return int(c.indexes[i])
	}
	return i
}

func (c *columnReader) int64At(i int) int64 {
	i = c.valueAt(i)
	if c.int32s != nil {
		return int64(c.int32s[i])
	}
	return c.ints[i]
}

func (c *columnReader) float64At(i int) float64 {
	i = c.valueAt(i)
	if c.float32s != nil {
		return float64(c.float32s[i])
	}
	return c.floats[i]
}

func (c *columnReader) bytesAt(i int) []byte {
	i = c.valueAt(i)
	return c.data[c.starts[i]:c.ends[i]:c.ends[i]]
}

func (c *columnReader) boolAt(i int) bool { return c.bools[c.valueAt(i)] }

// In the flat layout, a request-level column (one slot a row) repeats its
// value on every row of a request. The reader marks the slot of the
// request's first row, and then takes the slots of the following rows that
// hold the same (a null at the same level, or the same dictionary index)
// without decoding or comparing values. The slots are looked at a run at a
// time, ahead of the rows: one column's levels and indexes in a row cost
// less than the same bytes taken a row at a time across all the columns.

// mark remembers slot s, just taken from a request's first row.
func (c *columnReader) mark(s slot) {
	c.markedDef, c.markedDict = s.def, 0
	if s.present && c.indexes != nil {
		c.markedDict, c.markedIndex = c.dictNumber, c.indexes[s.value]
	}
	c.findRun()
}

// maxRun bounds the slots findRun looks at: a column whose slots are alike
// for far longer than a request is not read ahead further than needed.
const maxRun = 512

// findRun sets runEnd past the next slots of the page that hold what the
// marked slot held.
func (c *columnReader) findRun() {
	i, end := c.slot, min(c.slots, c.slot+maxRun)
	switch {
	case c.markedDef != c.maxDef: // a null
		for i < end && int(c.defs[i]) == c.markedDef {
			i++
		}
	case c.indexes != nil && c.markedDict == c.dictNumber:
		for v := c.value; i < end && (c.defs == nil || c.defs[i] == byte(c.maxDef)) && c.indexes[v] == c.markedIndex; v++ {
			i++
		}
	}
	c.runEnd = i
}

// takeMarked takes the next slot if it holds what the marked slot held, as
// far as the run found tells, and reports whether it did. False says
// nothing: take the slot and compare.
func (c *columnReader) takeMarked() bool {
	if c.slot >= c.runEnd {
		return false
	}
	c.slot++
	if c.markedDef == c.maxDef {
		c.value++
	}
	return true
}

// skipMarked takes n slots that hold what the marked slot held (the run
// found tells so).
func (c *columnReader) skipMarked(n int) {
	c.slot += n
	if c.markedDef == c.maxDef {
		c.value += n
	}
}

// sameAsMarked reports whether slot s, just taken, holds what the marked
// slot held, and if so looks for the run that follows it. False says
// nothing (another dictionary, a plain page, a dictionary holding a value
// twice): compare the values.
func (c *columnReader) sameAsMarked(s slot) bool {
	if s.def != c.markedDef {
		return false
	}
	if s.present && (c.indexes == nil || c.markedDict != c.dictNumber || c.indexes[s.value] != c.markedIndex) {
		return false
	}
	c.findRun()
	return true
}

// readPage makes the next window of the column current.
func (c *columnReader) readPage() error {
	c.reps, c.defs, c.slots, c.slot, c.value, c.indexes, c.runEnd = nil, nil, 0, 0, 0, nil, 0
	w, err := c.src.read()
	if errors.Is(err, io.EOF) {
		c.ended = true
		return nil
	}
	if err != nil {
		return err
	}
	c.reps, c.defs = w.reps, w.defs
	values := w
	if d := w.dict; d != nil {
		// The windows of a column chunk share one dictionary: its values
		// are loaded once, and the windows hold indexes into them.
		if d != c.dict {
			c.dict = d
			c.dictNumber++
			c.ints, c.int32s, c.floats, c.float32s, c.bools = d.ints, d.int32s, d.floats, d.float32s, d.bools
			c.data, c.starts, c.ends = d.data, d.starts, d.ends
		}
		c.indexes = w.indexes
		for i, x := range c.indexes {
			if x < 0 || int(x) >= d.n {
				return fmt.Errorf("value %d of the page is dictionary index %d: want one below the dictionary's %d values", i, x, d.n)
			}
		}
		values = nil
	} else {
		c.dict = nil
	}
	if values != nil {
		c.ints, c.int32s, c.floats, c.float32s, c.bools = w.ints, w.int32s, w.floats, w.float32s, w.bools
		c.data, c.starts, c.ends = w.data, w.starts, w.ends
	}
	c.slots = w.slots
	return nil
}

// windowsAhead reads the windows of a column chunk in a goroutine of its own,
// up to two windows ahead of the reader (one waiting, one being read), so
// that decompressing and decoding them overlaps with the rows being put
// together. The windows still come in order, one column chunk to a
// goroutine: nothing but the timing changes. Three windows go round: the
// reader's, the one waiting, the one being filled.
type windowsAhead struct {
	stream   *columnStream
	next     chan windowRead
	free     chan *window
	stop     chan struct{}
	cur      *window // the reader's
	panicked bool    // the decoder panicked: its state is not to be trusted
}

// windowRead is what one fill gave, or the panic it raised, to raise again in
// the reader's goroutine where it is recovered.
type windowRead struct {
	w         *window
	err       error
	panicked  bool
	panicWith any
}

const windowsInFlight = 3

func readAhead(s *columnStream) *windowsAhead {
	a := &windowsAhead{stream: s, next: make(chan windowRead, 1), free: make(chan *window, windowsInFlight), stop: make(chan struct{})}
	for range windowsInFlight {
		a.free <- &window{}
	}
	go a.run()
	return a
}

func (a *windowsAhead) run() {
	defer close(a.next)
	for {
		var w *window
		select {
		case w = <-a.free:
		case <-a.stop:
			return
		}
		r := a.fill(w)
		select {
		case a.next <- r:
		case <-a.stop:
			return
		}
		if r.err != nil || r.panicked {
			return
		}
	}
}

func (a *windowsAhead) fill(w *window) (r windowRead) {
	defer func() {
		if p := recover(); p != nil {
			r = windowRead{panicked: true, panicWith: p}
		}
	}()
	return windowRead{w: w, err: a.stream.fill(w)}
}

// read returns the next window, or io.EOF after the last; the window read
// before it goes back to be filled again.
func (a *windowsAhead) read() (*window, error) {
	if a.cur != nil {
		a.free <- a.cur
		a.cur = nil
	}
	r, ok := <-a.next
	if !ok {
		return nil, io.EOF
	}
	if r.panicked {
		a.panicked = true
		panic(r.panicWith)
	}
	if r.err != nil {
		return nil, r.err
	}
	a.cur = r.w
	return r.w, nil
}

// close stops the goroutine and lets go of the stream once it has.
func (a *windowsAhead) close() {
	close(a.stop)
	for range a.next {
	}
	if !a.panicked {
		a.stream.close()
	}
}
