package parquetfile

import (
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
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

	// Pages the fast path cannot read (dictionary-encoded, boolean) are
	// read value by value into these.
	generic          []parquet.Value
	ownReps, ownDefs []byte
	ownInts          []int64
	ownFloats        []float64
	ownBools         []bool
	ownData          []byte
	ownOffsets       []uint32
}

// slot is one position of a column: its levels and, when present, the index
// of its value in the current page.
type slot struct {
	rep, def int
	present  bool
	value    int
}

func newColumnReader(chunk parquet.ColumnChunk, l *leaf) *columnReader {
	return &columnReader{column: l.column, kind: l.kind, maxRep: l.maxRep, maxDef: l.maxDef, pages: readAhead(chunk.Pages())}
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

func (c *columnReader) int64At(i int) int64 {
	if c.int32s != nil {
		return int64(c.int32s[i])
	}
	return c.ints[i]
}

func (c *columnReader) float64At(i int) float64 {
	if c.float32s != nil {
		return float64(c.float32s[i])
	}
	return c.floats[i]
}

func (c *columnReader) bytesAt(i int) []byte {
	return c.data[c.offsets[i]:c.offsets[i+1]:c.offsets[i+1]]
}

func (c *columnReader) boolAt(i int) bool { return c.bools[i] }

// readPage makes the next page of the column current.
func (c *columnReader) readPage() error {
	if c.page != nil {
		parquet.Release(c.page)
		c.page = nil
	}
	c.reps, c.defs, c.slots, c.slot, c.value = nil, nil, 0, 0, 0
	c.ints, c.int32s, c.floats, c.float32s, c.bools, c.data, c.offsets = nil, nil, nil, nil, nil, nil, nil
	page, err := c.pages.read()
	if errors.Is(err, io.EOF) {
		c.ended = true
		return nil
	}
	if err != nil {
		return err
	}
	c.page = page
	if page.Dictionary() != nil || c.kind == parquet.Boolean {
		return c.readGeneric(page)
	}
	if c.maxRep > 0 {
		c.reps = page.RepetitionLevels()
	}
	if c.maxDef > 0 {
		c.defs = page.DefinitionLevels()
	}
	values := page.Data()
	nValues := 0
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
				return fmt.Errorf("value %d of the page lies outside its data", i-1)
			}
		}
	default:
		return fmt.Errorf("values of type %s", c.kind)
	}
	return c.setSlots(nValues)
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

// readGeneric reads a page the fast path cannot, value by value, into the
// reader's own buffers.
func (c *columnReader) readGeneric(page parquet.Page) error {
	if c.generic == nil {
		c.generic = make([]parquet.Value, 1024)
	}
	c.ownReps, c.ownDefs = c.ownReps[:0], c.ownDefs[:0]
	c.ownInts, c.ownFloats, c.ownBools = c.ownInts[:0], c.ownFloats[:0], c.ownBools[:0]
	c.ownData, c.ownOffsets = c.ownData[:0], append(c.ownOffsets[:0], 0)
	nValues := 0
	values := page.Values()
	for {
		n, err := values.ReadValues(c.generic)
		for _, v := range c.generic[:n] {
			c.ownReps = append(c.ownReps, byte(v.RepetitionLevel()))
			c.ownDefs = append(c.ownDefs, byte(v.DefinitionLevel()))
			if v.DefinitionLevel() != c.maxDef || v.IsNull() {
				continue
			}
			nValues++
			switch c.kind {
			case parquet.Int64, parquet.Int32:
				if v.Kind() == parquet.Int32 {
					c.ownInts = append(c.ownInts, int64(v.Int32()))
				} else {
					c.ownInts = append(c.ownInts, v.Int64())
				}
			case parquet.Double, parquet.Float:
				if v.Kind() == parquet.Float {
					c.ownFloats = append(c.ownFloats, float64(v.Float()))
				} else {
					c.ownFloats = append(c.ownFloats, v.Double())
				}
			case parquet.Boolean:
				c.ownBools = append(c.ownBools, v.Boolean())
			case parquet.ByteArray:
				c.ownData = append(c.ownData, v.ByteArray()...)
				c.ownOffsets = append(c.ownOffsets, uint32(len(c.ownData)))
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
	switch c.kind {
	case parquet.Int64, parquet.Int32:
		c.ints = c.ownInts
	case parquet.Double, parquet.Float:
		c.floats = c.ownFloats
	case parquet.Boolean:
		c.bools = c.ownBools
	case parquet.ByteArray:
		c.data, c.offsets = c.ownData, c.ownOffsets
	}
	return c.setSlots(nValues)
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
