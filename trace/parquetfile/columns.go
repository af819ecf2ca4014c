package parquetfile

import (
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding"
)

// columnReader reads one leaf column of a row group a page at a time and
// hands out its slots (one level pair each, and a value when present) in
// order. Values are read straight from the decoded page: assembling generic
// rows first cost more than decompressing them.
type columnReader struct {
	column string // for errors
	kind   parquet.Kind
	maxRep int
	maxDef int
	pages  *pagesAhead
	page   parquet.Page // the current page, released when the next is read
	ended  bool         // no page left

	// The current page: levels by slot (nil when the column has no such
	// level), and its present values, by kind, in slot order.
	reps, defs []byte
	slots      int
	ints       []int64
	int32s     []int32
	floats     []float64
	float32s   []float32
	bools      []bool
	data       []byte
	offsets    []uint32
	slot       int // next slot
	value      int // next present value

	// A dictionary-encoded page: the dictionary index of each present
	// value; the value slices above then hold the dictionary's values.
	indexes []int32
	dict    parquet.Dictionary // the dictionary whose values are loaded
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

	// Boolean pages are read value by value into these.
	generic          []parquet.Value
	ownReps, ownDefs []byte
	ownBools         []bool
}

// slot is one position of a column: its levels and, when present, the index
// of its value in the current page.
type slot struct {
	rep, def int
	present  bool
	value    int
}

func newColumnReader(chunk parquet.ColumnChunk, l *leaf) *columnReader {
	return &columnReader{column: l.column, kind: l.kind, maxRep: l.maxRep, maxDef: l.maxDef, markedDef: -1,
		pages: readAhead(chunk.Pages())}
}

func (c *columnReader) close() {
	if c.page != nil {
		parquet.Release(c.page)
		c.page = nil
	}
	if c.pages != nil {
		c.pages.close()
		c.pages = nil
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
			n += int(c.offsets[v+1] - c.offsets[v])
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
	return c.data[c.offsets[i]:c.offsets[i+1]:c.offsets[i+1]]
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

// readPage makes the next page of the column current.
func (c *columnReader) readPage() error {
	if c.page != nil {
		parquet.Release(c.page)
		c.page = nil
	}
	c.reps, c.defs, c.slots, c.slot, c.value, c.indexes, c.runEnd = nil, nil, 0, 0, 0, nil, 0
	page, err := c.pages.read()
	if errors.Is(err, io.EOF) {
		c.ended = true
		return nil
	}
	if err != nil {
		return err
	}
	c.page = page
	if c.kind == parquet.Boolean {
		c.dict = nil
		return c.readBooleans(page)
	}
	if c.maxRep > 0 {
		c.reps = page.RepetitionLevels()
	}
	if c.maxDef > 0 {
		c.defs = page.DefinitionLevels()
	}
	dict := page.Dictionary()
	if dict == nil {
		c.dict = nil
		values := page.Data()
		nValues, err := c.setValues(&values)
		if err != nil {
			return err
		}
		return c.setSlots(nValues)
	}
	// The pages of a column chunk share one dictionary: its values are
	// loaded once, and the pages hold indexes into them.
	if dict != c.dict {
		c.dict = nil
		values := dict.Page().Data()
		n, err := c.setValues(&values)
		if err != nil {
			return fmt.Errorf("dictionary: %w", err)
		}
		if n != dict.Len() {
			return fmt.Errorf("dictionary of %d values holds %d", dict.Len(), n)
		}
		c.dict = dict
		c.dictNumber++
	}
	indexes := page.Data()
	c.indexes = indexes.Int32()
	n := dict.Len()
	for i, x := range c.indexes {
		if x < 0 || int(x) >= n {
			return fmt.Errorf("value %d of the page is dictionary index %d: want one below the dictionary's %d values", i, x, n)
		}
	}
	return c.setSlots(len(c.indexes))
}

// setValues makes values the page's or the dictionary's value slices and
// returns how many there are.
func (c *columnReader) setValues(values *encoding.Values) (nValues int, err error) {
	c.ints, c.int32s, c.floats, c.float32s, c.bools, c.data, c.offsets = nil, nil, nil, nil, nil, nil, nil
	switch c.kind {
	case parquet.Int64:
		c.ints = values.Int64()
		nValues = len(c.ints)
	case parquet.Int32:
		c.int32s = values.Int32()
		nValues = len(c.int32s)
	case parquet.Double:
		c.floats = values.Double()
		nValues = len(c.floats)
	case parquet.Float:
		c.float32s = values.Float()
		nValues = len(c.float32s)
	case parquet.ByteArray:
		c.data, c.offsets = values.ByteArray()
		if len(c.offsets) > 0 {
			nValues = len(c.offsets) - 1
		}
		for i := 1; i < len(c.offsets); i++ {
			if c.offsets[i] < c.offsets[i-1] || int(c.offsets[i]) > len(c.data) {
				return 0, fmt.Errorf("value %d of the page lies outside its data", i-1)
			}
		}
	default:
		return 0, fmt.Errorf("values of type %s", c.kind)
	}
	return nValues, nil
}

// setSlots works out the page's slot count from its levels and checks that
// the levels and the values agree.
func (c *columnReader) setSlots(nValues int) error {
	switch {
	case c.defs != nil:
		c.slots = len(c.defs)
	case c.reps != nil:
		c.slots = len(c.reps)
	default:
		c.slots = nValues
	}
	if c.maxRep > 0 && len(c.reps) != c.slots {
		return fmt.Errorf("%d repetition levels for %d values", len(c.reps), c.slots)
	}
	if c.maxDef > 0 && len(c.defs) != c.slots {
		return fmt.Errorf("%d definition levels for %d values", len(c.defs), c.slots)
	}
	present := c.slots
	if c.defs != nil {
		present = 0
		for _, d := range c.defs {
			if int(d) == c.maxDef {
				present++
			}
		}
	}
	if present != nValues {
		return fmt.Errorf("%d values present by their levels, %d in the page", present, nValues)
	}
	return nil
}

// readBooleans reads a page of a boolean column value by value (the page
// holds them a bit each, or in a dictionary) into the reader's own buffers.
func (c *columnReader) readBooleans(page parquet.Page) error {
	if c.generic == nil {
		c.generic = make([]parquet.Value, 1024)
	}
	c.ownReps, c.ownDefs, c.ownBools = c.ownReps[:0], c.ownDefs[:0], c.ownBools[:0]
	values := page.Values()
	for {
		n, err := values.ReadValues(c.generic)
		for _, v := range c.generic[:n] {
			c.ownReps = append(c.ownReps, byte(v.RepetitionLevel()))
			c.ownDefs = append(c.ownDefs, byte(v.DefinitionLevel()))
			if v.DefinitionLevel() == c.maxDef && !v.IsNull() {
				c.ownBools = append(c.ownBools, v.Boolean())
			}
		}
		if errors.Is(err, io.EOF) || (err == nil && n == 0) {
			break
		}
		if err != nil {
			return err
		}
	}
	if c.maxRep > 0 {
		c.reps = c.ownReps
	}
	if c.maxDef > 0 {
		c.defs = c.ownDefs
	}
	c.bools = c.ownBools
	return c.setSlots(len(c.bools))
}

// pagesAhead reads the pages of a column chunk in a goroutine of its own, up
// to two pages ahead of the reader (one waiting, one being read: measurably
// faster than one), so that decompressing and decoding them overlaps with
// the rows being put together. The pages still come in order, one column
// chunk to a goroutine: nothing but the timing changes.
type pagesAhead struct {
	pages    parquet.Pages
	next     chan pageRead
	stop     chan struct{}
	panicked bool // the library panicked: its state is not to be trusted
}

// pageRead is what one ReadPage gave, or the panic it raised (the parquet
// library panics on some damaged files), to raise again in the reader's
// goroutine where it is recovered.
type pageRead struct {
	page      parquet.Page
	err       error
	panicked  bool
	panicWith any
}

func readAhead(pages parquet.Pages) *pagesAhead {
	a := &pagesAhead{pages: pages, next: make(chan pageRead, 1), stop: make(chan struct{})}
	go a.run()
	return a
}

func (a *pagesAhead) run() {
	defer close(a.next)
	for {
		r := a.readPage()
		select {
		case a.next <- r:
		case <-a.stop:
			if r.page != nil {
				parquet.Release(r.page)
			}
			return
		}
		if r.err != nil || r.panicked {
			return
		}
	}
}

func (a *pagesAhead) readPage() (r pageRead) {
	defer func() {
		if p := recover(); p != nil {
			r = pageRead{panicked: true, panicWith: p}
		}
	}()
	r.page, r.err = a.pages.ReadPage()
	return r
}

// read returns the next page, or io.EOF after the last.
func (a *pagesAhead) read() (parquet.Page, error) {
	r, ok := <-a.next
	if !ok {
		return nil, io.EOF
	}
	if r.panicked {
		a.panicked = true
		panic(r.panicWith)
	}
	return r.page, r.err
}

// close stops the goroutine and closes the pages once it has let go of them.
func (a *pagesAhead) close() {
	close(a.stop)
	for r := range a.next {
		if r.page != nil {
			parquet.Release(r.page)
		}
	}
	if !a.panicked {
		a.pages.Close()
	}
}
