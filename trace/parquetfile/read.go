package parquetfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/parquet-go/parquet-go"
	"github.com/sseaudit/sseaudit/trace"
)

// readBufferSize is the read buffer of each column's page reader: a page
// header and a small page in one system call, not the library's 4 KiB.
const readBufferSize = 64 << 10

// file is an open Parquet trace: the parsed footer and the guards' state.
type file struct {
	name   string
	r      io.ReaderAt
	pf     *parquet.File
	schema *fileSchema
	guard  *Guard
}

// open reads and checks the footer and the schema. Every error is a
// *trace.Error.
func open(name string, r io.ReaderAt, size int64, limits trace.Limits) (f *file, info trace.Info, err error) {
	defer recoverCorrupt(name, &err)
	guard, err := NewGuard(r, size, limits.MaxChunkBytes, "--max-chunk-bytes")
	if err != nil {
		return nil, info, trace.FileError(name, nil, "%s", err)
	}
	guard.streamed = true
	pf, err := parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true),
		parquet.OptimisticRead(false), parquet.ReadBufferSize(readBufferSize))
	if err != nil {
		return nil, info, trace.FileError(name, err, "corrupt parquet file")
	}
	kv := metaMap(pf.Metadata().KeyValueMetadata)
	meta := trace.MetaFromMap(kv)
	notes, err := checkVersion(name, meta)
	if err != nil {
		return nil, info, err
	}
	schema, err := analyze(name, pf.Root(), kv)
	if err != nil {
		return nil, info, err
	}
	if n := len(schema.extra); n > 0 {
		if err := trace.CheckExtraColumns(name, limits, n, schema.extra[n-1].Name, trace.Error{RowGroup: -1, Row: -1}); err != nil {
			return nil, info, err
		}
	}
	f = &file{name: name, r: r, pf: pf, schema: schema, guard: guard}
	info = trace.Info{Path: name, Format: "parquet", Layout: schema.layout, Meta: meta, Extra: schema.extra, Notes: notes}
	return f, info, nil
}

// recoverCorrupt turns a panic of the parquet library on a damaged file into
// a *trace.Error: the library indexes by sizes it read from the file.
func recoverCorrupt(name string, err *error) {
	if p := recover(); p != nil {
		*err = trace.FileError(name, nil, "corrupt parquet file (the parquet library failed: %v)", p)
	}
}

// rowGroup checks the sizes row group i claims and returns the pages of
// each of its column chunks.
func (f *file) rowGroup(i int) ([][]pageInfo, error) {
	pages, err := f.guard.checkRowGroup(&f.pf.Metadata().RowGroups[i], true)
	if err != nil {
		e := trace.FileError(f.name, nil, "corrupt parquet file: %s", err)
		e.RowGroup = i
		return nil, e
	}
	return pages, nil
}

// stream is the column stream of leaf j of row group i, whose pages are
// pages.
func (f *file) stream(i, j int, pages []pageInfo) *columnStream {
	return newColumnStream(f.r, &f.schema.leaves[j], f.pf.Metadata().RowGroups[i].Columns[j].MetaData.Codec, pages)
}

// rowCursor reads a file row by row, row group by row group, through a
// column reader for every leaf column of the current row group.
type rowCursor struct {
	f       *file
	rg      int             // current row group, -1 before the first
	columns []*columnReader // by leaf index; nil between row groups
	ops     []columnOp      // the columns read, in leaf order
	rgRows  int64           // rows read from the current row group
	next    int64           // file row of the next row

	// Flat layout: for the next held rows every holdable column holds the
	// value of its marked slot (see columnReader.mark), so the current row
	// (when holding) is read from the other columns, unheld, alone; the
	// holdable columns skip the heldRows rows at once when the hold ends.
	unheld    []columnOp
	held      int
	heldRows  int
	holding   bool
	holdables int
}

// columnOp is a column the reader reads and what it holds.
type columnOp struct {
	leaf     *leaf
	col      *columnReader
	holdable bool // one slot a row, the same on every row of a request
}

// holdable reports whether a column of the role holds one value (or a
// null) a row, the same on every row of a request.
func (r role) holdable() bool {
	switch r {
	case roleRequestID, roleT0, roleEnd, roleStatus, roleError, roleInputTokens, roleOutputTokens, roleExtra:
		return true
	}
	return false
}

func newRowCursor(f *file) *rowCursor { return &rowCursor{f: f, rg: -1} }

// nextRow moves to the next row and returns its row group and file row, or
// io.EOF at the end. The row's slots are then taken from c.columns.
func (c *rowCursor) nextRow() (int, int64, error) {
	for {
		if c.columns == nil {
			if c.rg+1 >= len(c.f.pf.RowGroups()) {
				return 0, 0, io.EOF
			}
			if err := c.openRowGroup(c.rg + 1); err != nil {
				return 0, 0, err
			}
		}
		c.holding = c.held > 0
		if c.holding {
			c.held--
		} else {
			c.release()
		}
		more, err := c.rowLeft()
		if err != nil {
			return 0, 0, err
		}
		if more {
			if c.holding {
				c.heldRows++
			}
			c.rgRows++
			pos := c.next
			c.next++
			return c.rg, pos, nil
		}
		c.close()
		if want := c.f.pf.RowGroups()[c.rg].NumRows(); c.rgRows != want {
			return 0, 0, c.groupErr("", nil, "corrupt parquet file: row group has %d rows, its metadata claims %d", c.rgRows, want)
		}
	}
}

func (c *rowCursor) openRowGroup(i int) error {
	c.rg, c.rgRows = i, 0
	chunks, err := c.f.rowGroup(i)
	if err != nil {
		return err
	}
	if len(chunks) != len(c.f.schema.leaves) {
		return c.groupErr("", nil, "corrupt parquet file: row group has %d column chunks for %d columns", len(chunks), len(c.f.schema.leaves))
	}
	c.columns = make([]*columnReader, len(chunks))
	c.ops, c.unheld, c.holdables = c.ops[:0], c.unheld[:0], 0
	c.held, c.heldRows, c.holding = 0, 0, false
	for j := range chunks {
		if l := &c.f.schema.leaves[j]; l.role != roleNone {
			c.columns[j] = newColumnReader(c.f.stream(i, j, chunks[j]), l)
			op := columnOp{leaf: l, col: c.columns[j], holdable: l.role.holdable()}
			c.ops = append(c.ops, op)
			if op.holdable {
				c.holdables++
			} else {
				c.unheld = append(c.unheld, op)
			}
		}
	}
	return nil
}

// hold starts holding the holdable columns for as many rows after the
// current one as all of them are known to hold their marked values.
func (c *rowCursor) hold() {
	if c.holding || c.holdables == 0 {
		return // a hold goes on, or there is nothing to hold
	}
	rows := math.MaxInt
	for _, op := range c.ops {
		if op.holdable {
			rows = min(rows, op.col.runEnd-op.col.slot)
		}
	}
	c.held = max(rows, 0)
}

// release makes the holdable columns skip the rows read while they were
// held.
func (c *rowCursor) release() {
	if c.heldRows == 0 {
		return
	}
	for _, op := range c.ops {
		if op.holdable {
			op.col.skipMarked(c.heldRows)
		}
	}
	c.heldRows = 0
}

// rowLeft reports whether the current row group has another row: every
// column must have one, or none.
func (c *rowCursor) rowLeft() (bool, error) {
	ended := 0
	var firstEnded *columnReader
	ops := c.ops
	if c.holding { // the held columns have the row in their current page
		ops = c.unheld
	}
	for _, op := range ops {
		col := op.col
		if col.slot >= col.slots { // else the row is in the current page
			more, err := col.more()
			if err != nil {
				return false, c.columnErr(col, err)
			}
			if !more {
				if ended++; firstEnded == nil {
					firstEnded = col
				}
				continue
			}
		}
		if !col.startsRow() {
			return false, c.groupErr(col.column, nil, "corrupt parquet file: row %d of the row group starts with repetition level %d: want 0", c.rgRows, col.reps[col.slot])
		}
	}
	if ended > 0 && ended < len(c.ops) {
		return false, c.groupErr(firstEnded.column, nil, "corrupt parquet file: the column ends after %d rows of the row group, other columns go on", c.rgRows)
	}
	return ended == 0, nil
}

func (c *rowCursor) groupErr(column string, err error, format string, args ...any) *trace.Error {
	e := trace.FileError(c.f.name, err, format, args...)
	e.RowGroup, e.Column = c.rg, column
	return e
}

// columnErr is an error reading a column's pages.
func (c *rowCursor) columnErr(col *columnReader, err error) *trace.Error {
	return c.groupErr(col.column, err, "corrupt parquet file: reading column %s", col.column)
}

func (c *rowCursor) close() {
	for _, col := range c.columns {
		if col != nil {
			col.close()
		}
	}
	c.columns = nil
}

// cellError is a bad value in one column of a row; the caller adds the
// position.
type cellError struct {
	column, msg string
}

func (e *cellError) Error() string { return e.column + ": " + e.msg }

func cellErr(column, format string, args ...any) *cellError {
	return &cellError{column: column, msg: fmt.Sprintf(format, args...)}
}

// flatSlabSize is the size of the blocks flat rows' chunk bytes are copied
// into: an allocation per chunk cost more than reading it.
const flatSlabSize = 256 << 10

// decoder turns rows into requests (nested) or flat rows, reusing scratch
// buffers across rows.
type decoder struct {
	s     *fileSchema
	cur   *rowCursor
	times []int64
	ends  []int // end offset of each chunk's data in the request's arena

	// Flat layout: a row whose request_id is the previous row's belongs to
	// the same request, so its request-level columns (checked against the
	// request's first row, then dropped) share the first row's values where
	// equal instead of allocating their own. A column whose slot holds the
	// first row's dictionary index (or the same null) is not even decoded
	// (columnReader.mark).
	same         bool
	first        trace.Request // request-level columns of the current request's first row
	haveFirst    bool
	extraScratch []trace.Value // Extra of a later row whose extra values differ from the first's
	slab         []byte
	// recycleSlabs is set when the grouper streams (rows contiguous): at a
	// request's first row the slab holding the request before the last
	// one, no longer valid after the Scan that follows its own, is reused
	// (spareSlab). A grouper holding every request keeps every slab.
	recycleSlabs bool
	spareSlab    []byte
	// viewChunks hands out a flat row's chunk bytes in the page, valid
	// until the next row, for trace's grouping reader, which copies what
	// it keeps: a slab would be kept whole by the few rows kept of it.
	viewChunks bool

	// Nested layout: a request's chunk bytes and chunk list, reused from
	// one request to the next (a Request is valid until the next Scan), so
	// that a gigabyte of bodies is not a gigabyte of garbage.
	arena  []byte
	chunks []trace.Chunk
}

// read moves to the next row and decodes it into req (and, in the flat
// layout, the chunk columns of fr). Every byte slice and string is copied
// out of the pages; the nested layout's chunks reuse the previous request's
// buffers. At the end it returns io.EOF.
func (d *decoder) read(req *trace.Request, fr *trace.FlatRow) (rg int, pos int64, err error) {
	defer recoverCorrupt(d.cur.f.name, &err)
	rg, pos, err = d.cur.nextRow()
	if err != nil {
		return rg, pos, err
	}
	if err := d.decode(req, fr); err != nil {
		if cerr, ok := err.(*cellError); ok {
			e := trace.RowError(d.cur.f.name, rg, pos, cerr.column, "%s", cerr.msg)
			e.RequestID = req.RequestID
			return rg, pos, e
		}
		return rg, pos, err
	}
	return rg, pos, nil
}

// rowState is what decode gathers from a row's cells before it finishes
// the request.
type rowState struct {
	arena                   []byte // the request's chunk bytes, in one allocation of their size
	chunksNull, chunksEmpty bool
	tps                     []float64 // nil unless the row has a non-null list
	flatT, flatData         bool
	flatTNs                 int64
	flatBytes               []byte
	// sharingExtra: a row continuing its request shares the first row's
	// extra values until one differs; only then does it get values of its own.
	sharingExtra bool
}

// decode decodes the current row into req (and fr, flat).
func (d *decoder) decode(req *trace.Request, fr *trace.FlatRow) error {
	if err := d.beginRow(req); err != nil {
		return err
	}
	s, flat := d.s, d.s.layout == trace.Flat
	ops := d.cur.ops
	if d.cur.holding { // the row continues its request in every holdable column
		ops = d.cur.unheld
	}
	rs := rowState{sharingExtra: d.same && len(s.extra) > 0}
	switch {
	case rs.sharingExtra:
		if len(req.Extra) != len(d.first.Extra) || &req.Extra[0] != &d.first.Extra[0] {
			req.Extra = d.first.Extra
		}
	case len(s.extra) > 0:
		req.Extra = make([]trace.Value, len(s.extra))
		if d.extraScratch == nil && flat {
			d.extraScratch = make([]trace.Value, len(s.extra))
		}
	}
	for _, op := range ops {
		l, c := op.leaf, op.col
		// A request-level column with one value a row: its slot is taken
		// here, and a continuing row's value known to be the first row's
		// (see mark) is already in req.
		var st slot
		if op.holdable && l.role != roleRequestID {
			if d.same && c.takeMarked() {
				continue
			}
			st = c.take()
			switch {
			case !flat:
			case !d.same:
				c.mark(st)
			case c.sameAsMarked(st):
				continue
			}
		}
		if err := d.decodeCell(l, c, st, req, &rs); err != nil {
			return err
		}
	}
	if d.same && trace.SameFloatBits(rs.tps, d.first.TimePointsS) {
		rs.tps = d.first.TimePointsS
	}
	if rs.tps != nil {
		req.TimePointsS = rs.tps
	}
	if flat {
		return d.finishFlat(req, fr, &rs)
	}
	return d.finishNested(req, &rs)
}

// beginRow reads the row's request_id, says whether the row continues the
// request of the rows before (d.same) and sets req's request-level fields
// to that request's, or to none.
func (d *decoder) beginRow(req *trace.Request) error {
	s, cols := d.s, d.cur.columns
	d.times, d.ends = d.times[:0], d.ends[:0]
	idColumn := cols[s.idColumn]
	flat := s.layout == trace.Flat
	d.same = d.cur.holding || (flat && d.haveFirst && idColumn.takeMarked())
	var idBytes []byte
	if !d.same {
		id := idColumn.take()
		if !id.present {
			req.RequestID = "" // not the previous row's, in the error
			return cellErr(s.leaves[s.idColumn].column, "null request_id: want a non-empty id")
		}
		d.same = d.haveFirst && idColumn.sameAsMarked(id)
		if !d.same {
			idBytes = idColumn.bytesAt(id.value)
			d.same = d.haveFirst && string(idBytes) == d.first.RequestID
		}
		if flat && !d.same {
			idColumn.mark(id)
			if d.recycleSlabs {
				d.slab, d.spareSlab = d.spareSlab[:0], d.slab
			}
		}
	}
	// Every field is set, not the whole struct cleared first: the flat
	// layout reuses one row, and clearing it was a cost of its own. A row
	// continuing its request starts from the first row's values, which the
	// columns holding them by dictionary index then leave alone. The row
	// mostly holds them already (the previous row was of the same
	// request): they are written only when not, as writing a pointer costs
	// a write barrier while the GC runs.
	if d.same {
		set(&req.RequestID, d.first.RequestID)
		set(&req.T0Ns, d.first.T0Ns)
		set(&req.EndNs, d.first.EndNs)
		set(&req.HTTPStatus, d.first.HTTPStatus)
		set(&req.Error, d.first.Error)
		set(&req.InputTokens, d.first.InputTokens)
		set(&req.OutputTokens, d.first.OutputTokens)
	} else {
		req.RequestID, req.T0Ns, req.EndNs, req.HTTPStatus = string(idBytes), 0, nil, nil
		req.Error, req.InputTokens, req.OutputTokens = nil, nil, nil
	}
	if req.Chunks != nil || req.TimePointsS != nil { // set by decode for the rows that have them
		req.Chunks, req.TimePointsS = nil, nil
	}
	return nil
}

// decodeCell decodes column c's cell of the row (leaf l; st its slot when
// the column holds one value a row) into req or rs.
func (d *decoder) decodeCell(l *leaf, c *columnReader, st slot, req *trace.Request, rs *rowState) error {
	switch l.role {
	case roleT0:
		if !st.present {
			return cellErr(l.column, "null t0_ns: want the send time in ns")
		}
		t, err := nanos(l, c.int64At(st.value))
		if err != nil {
			return err
		}
		req.T0Ns = t
	case roleEnd:
		if l.scale == 1 || !st.present {
			req.EndNs = d.int64Ptr(c, st, d.first.EndNs)
			break
		}
		t, err := nanos(l, c.int64At(st.value))
		if err != nil {
			return err
		}
		req.EndNs = &t
	case roleInputTokens:
		req.InputTokens = d.int64Ptr(c, st, d.first.InputTokens)
	case roleOutputTokens:
		req.OutputTokens = d.int64Ptr(c, st, d.first.OutputTokens)
	case roleStatus:
		req.HTTPStatus = nil
		if st.present {
			x := c.int64At(st.value)
			if x < math.MinInt32 || x > math.MaxInt32 {
				return cellErr(l.column, "http_status %d is out of the int32 range", x)
			}
			if d.same && d.first.HTTPStatus != nil && int64(*d.first.HTTPStatus) == x {
				req.HTTPStatus = d.first.HTTPStatus
			} else {
				status := int32(x)
				req.HTTPStatus = &status
			}
		}
	case roleError:
		req.Error = nil
		if st.present {
			b := c.bytesAt(st.value)
			if d.same && d.first.Error != nil && *d.first.Error == string(b) {
				req.Error = d.first.Error
			} else {
				e := string(b)
				req.Error = &e
			}
		}
	case roleChunkT, roleChunkData:
		return d.decodeChunks(l, c, rs)
	case roleTimePoint:
		for more := true; more; {
			st := c.take()
			switch {
			case st.def < l.nonNullDef:
				// null list: tps stays nil
			case st.def < l.elemDef:
				rs.tps = []float64{}
			case !st.present:
				return cellErr(l.column, "time point %d is null: want a number of seconds", len(rs.tps))
			default:
				rs.tps = append(rs.tps, c.float64At(st.value))
			}
			var err error
			if more, err = c.inRow(); err != nil {
				return d.cur.columnErr(c, err)
			}
		}
	case roleFlatT:
		if st := c.take(); st.present {
			t, err := nanos(l, c.int64At(st.value))
			if err != nil {
				return err
			}
			rs.flatT, rs.flatTNs = true, t
		}
	case roleFlatData:
		if st := c.take(); st.present {
			rs.flatData = true
			rs.flatBytes = d.copyChunk(c.bytesAt(st.value))
		}
	case roleExtra:
		kind := d.s.extra[l.extra].Kind
		if rs.sharingExtra {
			if d.sameExtra(c, st, kind, l.extra) {
				break
			}
			rs.sharingExtra = false
			req.Extra = d.extraScratch
			copy(req.Extra, d.first.Extra)
		}
		req.Extra[l.extra] = d.extraValue(c, st, kind, l.extra)
	}
	return nil
}

// decodeChunks decodes the row's list of chunk times or chunk bytes (the
// nested layout's chunks column, one leaf at a time).
func (d *decoder) decodeChunks(l *leaf, c *columnReader, rs *rowState) error {
	if l.role == roleChunkData {
		n, _ := c.rowBytes()
		rs.arena = slices.Grow(d.arena[:0], n)
	}
	for more := true; more; {
		st := c.take()
		switch {
		case st.def < l.nonNullDef:
			rs.chunksNull = true
		case st.def < l.elemDef:
			rs.chunksEmpty = true
		case !st.present:
			field, n := "t_ns", len(d.times)
			if l.role == roleChunkData {
				field, n = "data", len(d.ends)
			}
			return cellErr(l.column, "chunk %d has a null %s: want both t_ns and data in every chunk", n, field)
		case l.role == roleChunkT:
			t := c.int64At(st.value)
			if l.scale != 1 {
				var err error
				if t, err = nanos(l, t); err != nil {
					return err
				}
			}
			d.times = append(d.times, t)
		default:
			rs.arena = append(rs.arena, c.bytesAt(st.value)...)
			d.ends = append(d.ends, len(rs.arena))
		}
		var err error
		if more, err = c.inRow(); err != nil {
			return d.cur.columnErr(c, err)
		}
	}
	return nil
}

// finishFlat ends a flat row: the request's first row is kept, and fr gets
// the row's chunk.
func (d *decoder) finishFlat(req *trace.Request, fr *trace.FlatRow, rs *rowState) error {
	if !d.same {
		d.first, d.haveFirst = *req, true
	}
	fr.SameAsPrevious = d.cur.holding
	switch {
	case rs.flatT && rs.flatData:
		fr.ChunkNull, fr.Chunk = false, trace.Chunk{TNs: rs.flatTNs, Data: rs.flatBytes}
	case !rs.flatT && !rs.flatData:
		fr.ChunkNull, fr.Chunk = true, trace.Chunk{}
	case !rs.flatT:
		return cellErr("t_ns", "t_ns is null but data is not: want both null (a request without chunks) or both set")
	default:
		return cellErr("data", "data is null but t_ns is not: want both null (a request without chunks) or both set")
	}
	d.cur.hold()
	return nil
}

// finishNested ends a nested row: its chunks, cut from one arena.
func (d *decoder) finishNested(req *trace.Request, rs *rowState) error {
	if len(d.times) != len(d.ends) {
		return cellErr("chunks", "%d t_ns values and %d data values: want one of each per chunk", len(d.times), len(d.ends))
	}
	switch {
	case rs.chunksNull && len(d.times) == 0:
		req.Chunks = nil
	case rs.chunksEmpty && len(d.times) == 0:
		req.Chunks = []trace.Chunk{}
	default:
		arena := rs.arena
		if arena == nil {
			arena = []byte{} // chunk data is never nil
		}
		d.arena = arena
		d.chunks = slices.Grow(d.chunks[:0], len(d.times))[:len(d.times)]
		req.Chunks = d.chunks
		start := 0
		for i, t := range d.times {
			end := d.ends[i]
			req.Chunks[i] = trace.Chunk{TNs: t, Data: arena[start:end:end]}
			start = end
		}
	}
	return nil
}

// nanos is the value v of time column l in nanoseconds (see leaf.scale).
func nanos(l *leaf, v int64) (int64, error) {
	if l.scale == 1 {
		return v, nil
	}
	if v > math.MaxInt64/l.scale || v < math.MinInt64/l.scale {
		return 0, cellErr(l.column, "%d units of %d ns is out of the int64 range of nanoseconds", v, l.scale)
	}
	return v * l.scale, nil
}

// set assigns v to *p unless *p is v already.
func set[T comparable](p *T, v T) {
	if *p != v {
		*p = v
	}
}

// int64Ptr is the value of slot st of an optional INT64 column; first is
// the value of the request's first row, shared when this row continues the
// request.
func (d *decoder) int64Ptr(c *columnReader, st slot, first *int64) *int64 {
	if !st.present {
		return nil
	}
	x := c.int64At(st.value)
	if d.same && first != nil && *first == x {
		return first
	}
	p := new(int64) // not &x: x would then be allocated on every call
	*p = x
	return p
}

func (d *decoder) extraValue(c *columnReader, st slot, kind trace.ExtraKind, i int) trace.Value {
	if !st.present {
		return trace.Value{Null: true}
	}
	var first trace.Value
	if d.same && i < len(d.first.Extra) {
		first = d.first.Extra[i]
	}
	switch kind {
	case trace.ExtraString, trace.ExtraJSON:
		b := c.bytesAt(st.value)
		if d.same && !first.Null && first.Str == string(b) {
			return trace.Value{Str: first.Str}
		}
		return trace.Value{Str: string(b)}
	case trace.ExtraBinary:
		b := c.bytesAt(st.value)
		if d.same && !first.Null && first.Bytes != nil && bytes.Equal(first.Bytes, b) {
			return trace.Value{Bytes: first.Bytes}
		}
		return trace.Value{Bytes: append([]byte{}, b...)}
	case trace.ExtraInt64:
		return trace.Value{Int: c.int64At(st.value)}
	case trace.ExtraFloat64:
		return trace.Value{Float: c.float64At(st.value)}
	case trace.ExtraBool:
		return trace.Value{Bool: c.boolAt(st.value)}
	}
	return trace.Value{Null: true}
}

// sameExtra reports whether the extra value in slot st is the one extraValue
// would make equal to the request's first row's.
func (d *decoder) sameExtra(c *columnReader, st slot, kind trace.ExtraKind, i int) bool {
	first := d.first.Extra[i]
	if !st.present || first.Null {
		return !st.present && first.Null
	}
	switch kind {
	case trace.ExtraString, trace.ExtraJSON:
		return first.Str == string(c.bytesAt(st.value))
	case trace.ExtraBinary:
		return bytes.Equal(first.Bytes, c.bytesAt(st.value))
	case trace.ExtraInt64:
		return first.Int == c.int64At(st.value)
	case trace.ExtraFloat64:
		return math.Float64bits(first.Float) == math.Float64bits(c.float64At(st.value))
	case trace.ExtraBool:
		return first.Bool == c.boolAt(st.value)
	}
	return false
}

// copyChunk copies a flat row's chunk bytes into the current slab; chunks
// too large for it get their own allocation.
func (d *decoder) copyChunk(b []byte) []byte {
	if d.viewChunks {
		return b
	}
	if len(b) > flatSlabSize/4 {
		return append([]byte{}, b...)
	}
	if d.slab == nil || cap(d.slab)-len(d.slab) < len(b) {
		d.slab = make([]byte, 0, flatSlabSize)
	}
	start := len(d.slab)
	d.slab = append(d.slab, b...)
	return d.slab[start:len(d.slab):len(d.slab)]
}

// nestedReader reads the nested layout: one request a row.
type nestedReader struct {
	f      *file
	info   trace.Info
	cur    *rowCursor
	dec    decoder
	check  *trace.Checker
	req    *trace.Request
	err    error
	closer func() error
}

func (r *nestedReader) Info() trace.Info        { return r.info }
func (r *nestedReader) Request() *trace.Request { return r.req }
func (r *nestedReader) Err() error              { return r.err }

func (r *nestedReader) Close() error {
	r.cur.close()
	if r.closer != nil {
		return r.closer()
	}
	return nil
}

func (r *nestedReader) Scan() bool {
	if r.err != nil {
		return false
	}
	req := &trace.Request{}
	rg, pos, err := r.dec.read(req, nil)
	if err != nil {
		if !errors.Is(err, io.EOF) {
			r.err = err
		}
		r.req = nil
		return false
	}
	if err := r.check.Check(req, trace.Error{RowGroup: rg, Row: pos}); err != nil {
		r.err = err
		return false
	}
	r.req = req
	return true
}

// flatRows feeds the rows of a flat file to trace's grouping reader.
type flatRows struct {
	cur *rowCursor
	dec decoder
	err error
}

func (fr *flatRows) Err() error { return fr.err }

func (fr *flatRows) Next(out *trace.FlatRow) bool {
	if fr.err != nil {
		return false
	}
	rg, pos, err := fr.dec.read(&out.Req, out)
	out.RowGroup, out.Row = rg, pos
	if err != nil {
		if !errors.Is(err, io.EOF) {
			fr.err = err
		}
		return false
	}
	return true
}

// ids reads the request_id column alone and hands add every row's id (a
// null one as empty), with same set when it is known to be the previous
// row's (by its dictionary index, or compared); id is valid for the call.
func (f *file) ids(add func(id []byte, same bool) error) (err error) {
	defer recoverCorrupt(f.name, &err)
	var last []byte // the previous row's id
	haveLast := false
	for i := range f.pf.RowGroups() {
		chunks, err := f.rowGroup(i)
		if err != nil {
			return err
		}
		id := f.schema.idColumn
		ids := newColumnReader(f.stream(i, id, chunks[id]), &f.schema.leaves[id])
		var stop error
		err = func() error {
			defer ids.close()
			for {
				more, err := ids.more()
				if err != nil || !more {
					return err
				}
				// A dictionary-encoded id is the previous row's by its index.
				if haveLast && ids.takeMarked() {
					if stop = add(last, true); stop != nil {
						return nil
					}
					continue
				}
				s := ids.take()
				if haveLast && ids.sameAsMarked(s) {
					if stop = add(last, true); stop != nil {
						return nil
					}
					continue
				}
				var id []byte
				if s.present {
					id = ids.bytesAt(s.value)
				}
				same := haveLast && string(id) == string(last)
				last, haveLast = append(last[:0], id...), true
				ids.mark(s)
				if stop = add(last, same); stop != nil {
					return nil
				}
			}
		}()
		if err != nil {
			e := trace.FileError(f.name, err, "corrupt parquet file: reading column request_id")
			e.RowGroup, e.Column = i, "request_id"
			return e
		}
		if stop != nil {
			return stop
		}
	}
	return nil
}

// flatPasses are the passes of trace's grouping reader over a flat file.
type flatPasses struct {
	f    *file
	rows *flatRows // the pass over the rows under way
}

func (p *flatPasses) IDs(add func(id string) error) error {
	var lastID string
	return p.f.ids(func(id []byte, same bool) error {
		if !same {
			lastID = string(id)
		}
		return add(lastID)
	})
}

func (p *flatPasses) Rows() (trace.FlatRows, error) {
	p.close()
	cur := newRowCursor(p.f)
	p.rows = &flatRows{cur: cur, dec: decoder{s: p.f.schema, cur: cur, viewChunks: true}}
	return p.rows, nil
}

func (p *flatPasses) close() {
	if p.rows != nil {
		p.rows.cur.close()
		p.rows = nil
	}
}

// Open reads a Parquet trace from src.
func Open(src trace.Source) (trace.Reader, error) {
	return openReader(src.Name, src.File, src.Size, src.Limits, nil)
}

func openReader(name string, r io.ReaderAt, size int64, limits trace.Limits, closer func() error) (trace.Reader, error) {
	if limits == (trace.Limits{}) {
		limits = trace.DefaultLimits
	}
	f, info, err := open(name, r, size, limits)
	if err != nil {
		return nil, err
	}
	if f.schema.layout == trace.Nested {
		cur := newRowCursor(f)
		return &nestedReader{f: f, info: info, cur: cur, dec: decoder{s: f.schema, cur: cur},
			check: trace.NewChecker(name, limits), closer: closer}, nil
	}
	passes := &flatPasses{f: f}
	ok, err := trace.Contiguous(passes)
	if err != nil {
		return nil, err
	}
	if !ok {
		closeAll := func() error {
			passes.close()
			if closer != nil {
				return closer()
			}
			return nil
		}
		return trace.NewGroupingFlatReader(passes, info, limits, closeAll), nil
	}
	cur := newRowCursor(f)
	rows := &flatRows{cur: cur, dec: decoder{s: f.schema, cur: cur, recycleSlabs: true}}
	closeAll := func() error {
		rows.cur.close()
		if closer != nil {
			return closer()
		}
		return nil
	}
	return trace.NewFlatReader(rows, info, limits, closeAll), nil
}
