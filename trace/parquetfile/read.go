package parquetfile

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/parquet-go/parquet-go"
	"github.com/sseaudit/sseaudit/trace"
)

// rowBatch is how many rows are read from the library at a time, into a
// buffer reused across batches.
const rowBatch = 64

// file is an open Parquet trace: the parsed footer and the guards' state.
type file struct {
	name    string
	pf      *parquet.File
	dataEnd int64 // where the footer starts
	schema  *fileSchema
	checked []bool // row groups whose sizes were checked
	guard   guard
}

// open reads and checks the footer and the schema. Every error is a
// *trace.Error.
func open(name string, r io.ReaderAt, size int64, limits trace.Limits) (f *file, info trace.Info, err error) {
	defer recoverCorrupt(name, &err)
	footerLen, err := checkFooter(r, size)
	if err != nil {
		return nil, info, trace.FileError(name, nil, "%s", err)
	}
	pf, err := parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true),
		parquet.OptimisticRead(false))
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
	f = &file{name: name, pf: pf, dataEnd: size - 8 - footerLen, schema: schema,
		checked: make([]bool, len(pf.RowGroups())), guard: guard{r: r, maxChunkBytes: limits.MaxChunkBytes}}
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

// rowGroup returns row group i after checking the sizes it claims.
func (f *file) rowGroup(i int) (parquet.RowGroup, error) {
	if !f.checked[i] {
		if err := f.guard.checkRowGroup(f.dataEnd, &f.pf.Metadata().RowGroups[i]); err != nil {
			e := trace.FileError(f.name, nil, "corrupt parquet file: %s", err)
			e.RowGroup = i
			return nil, e
		}
		f.checked[i] = true
	}
	return f.pf.RowGroups()[i], nil
}

// rowCursor reads the rows of a file in order, row group by row group, a
// batch at a time.
type rowCursor struct {
	f        *file
	rg       int // current row group, -1 before the first
	rows     parquet.Rows
	buf      []parquet.Row
	n, i     int
	rgStart  int64 // file row of the current row group's first row
	rgRead   int64 // rows read from the current row group
	next     int64 // file row of the next row returned
	finished bool
}

func newRowCursor(f *file) *rowCursor {
	return &rowCursor{f: f, rg: -1, buf: make([]parquet.Row, rowBatch)}
}

// row returns the next row, its row group and its 0-based row in the file.
// The row is valid until the next call. At the end it returns io.EOF.
func (c *rowCursor) row() (parquet.Row, int, int64, error) {
	for c.i >= c.n {
		if c.finished {
			return nil, 0, 0, io.EOF
		}
		if err := c.fill(); err != nil {
			return nil, 0, 0, err
		}
	}
	row := c.buf[c.i]
	c.i++
	pos := c.next
	c.next++
	return row, c.rg, pos, nil
}

func (c *rowCursor) fill() (err error) {
	defer recoverCorrupt(c.f.name, &err)
	if c.rows == nil {
		c.rg++
		if c.rg >= len(c.f.pf.RowGroups()) {
			c.finished = true
			return nil
		}
		g, err := c.f.rowGroup(c.rg)
		if err != nil {
			return err
		}
		c.rows = g.Rows()
		c.rgStart, c.rgRead = c.next, 0
	}
	n, err := c.rows.ReadRows(c.buf)
	c.n, c.i = n, 0
	c.rgRead += int64(n)
	if err != nil && !errors.Is(err, io.EOF) {
		e := trace.FileError(c.f.name, err, "corrupt parquet file: reading rows")
		e.RowGroup = c.rg
		return e
	}
	if errors.Is(err, io.EOF) || n == 0 {
		want := c.f.pf.RowGroups()[c.rg].NumRows()
		c.rows.Close()
		c.rows = nil
		if c.rgRead != want {
			e := trace.FileError(c.f.name, nil, "corrupt parquet file: row group has %d rows, its metadata claims %d", c.rgRead, want)
			e.RowGroup = c.rg
			return e
		}
	}
	return nil
}

func (c *rowCursor) close() {
	if c.rows != nil {
		c.rows.Close()
		c.rows = nil
	}
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

// decoder turns rows into requests (nested) or flat rows, reusing scratch
// buffers across rows.
type decoder struct {
	s     *fileSchema
	times []int64
	datas []int // end offset of each chunk's data in the request's arena
}

// decode fills req (and, in the flat layout, the chunk columns of fr) from
// one row. Every byte slice and string is copied out of the row.
func (d *decoder) decode(row parquet.Row, req *trace.Request, fr *trace.FlatRow) *cellError {
	s := d.s
	d.times, d.datas = d.times[:0], d.datas[:0]
	// The request's bytes go straight into one allocation of their size: a
	// scratch buffer copied out afterwards would hold a second copy of the
	// largest request for as long as the reader lives.
	var arena []byte
	if s.layout == trace.Nested {
		n := 0
		for _, v := range row {
			if col := v.Column(); col >= 0 && col < len(s.leaves) && s.leaves[col].role == roleChunkData &&
				v.DefinitionLevel() == s.leaves[col].maxDef && !v.IsNull() {
				n += len(v.ByteArray())
			}
		}
		arena = make([]byte, 0, n)
	}
	chunksNull, chunksEmpty := false, false
	var tps []float64 // nil unless the row has a non-null list
	flatT, flatData := false, false
	var flatTNs int64
	var flatBytes []byte
	if len(s.extra) > 0 {
		req.Extra = make([]trace.Value, len(s.extra))
	}
	for _, v := range row {
		col := v.Column()
		if col < 0 || col >= len(s.leaves) {
			return cellErr("", "value of unknown leaf column %d", col)
		}
		l := &s.leaves[col]
		def := v.DefinitionLevel()
		present := def == l.maxDef && !v.IsNull()
		switch l.role {
		case roleRequestID:
			if !present {
				return cellErr(l.column, "null request_id: want a non-empty id")
			}
			req.RequestID = string(v.ByteArray())
		case roleT0:
			if !present {
				return cellErr(l.column, "null t0_ns: want the send time in ns")
			}
			req.T0Ns = v.Int64()
		case roleEnd:
			req.EndNs = int64Ptr(v, present)
		case roleInputTokens:
			req.InputTokens = int64Ptr(v, present)
		case roleOutputTokens:
			req.OutputTokens = int64Ptr(v, present)
		case roleStatus:
			if present {
				var st int32
				if l.kind == parquet.Int64 {
					x := v.Int64()
					if x < math.MinInt32 || x > math.MaxInt32 {
						return cellErr(l.column, "http_status %d is out of the int32 range", x)
					}
					st = int32(x)
				} else {
					st = v.Int32()
				}
				req.HTTPStatus = &st
			}
		case roleError:
			if present {
				e := string(v.ByteArray())
				req.Error = &e
			}
		case roleChunkT, roleChunkData:
			switch {
			case def < l.nonNullDef:
				chunksNull = true
			case def < l.elemDef:
				chunksEmpty = true
			case !present:
				field := "t_ns"
				if l.role == roleChunkData {
					field = "data"
				}
				n := len(d.times)
				if l.role == roleChunkData {
					n = len(d.datas)
				}
				return cellErr(l.column, "chunk %d has a null %s: want both t_ns and data in every chunk", n, field)
			case l.role == roleChunkT:
				d.times = append(d.times, v.Int64())
			default:
				arena = append(arena, v.ByteArray()...)
				d.datas = append(d.datas, len(arena))
			}
		case roleTimePoint:
			switch {
			case def < l.nonNullDef:
				// null list: tps stays nil
			case def < l.elemDef:
				tps = []float64{}
			case !present:
				return cellErr(l.column, "time point %d is null: want a number of seconds", len(tps))
			default:
				x := v.Double()
				if l.kind == parquet.Float {
					x = float64(v.Float())
				}
				tps = append(tps, x)
			}
		case roleFlatT:
			if present {
				flatT, flatTNs = true, v.Int64()
			}
		case roleFlatData:
			if present {
				flatData = true
				flatBytes = append([]byte{}, v.ByteArray()...)
			}
		case roleExtra:
			req.Extra[l.extra] = extraValue(v, present, s.extra[l.extra].Kind)
		}
	}
	req.TimePointsS = tps
	if s.layout == trace.Flat {
		switch {
		case flatT && flatData:
			fr.Chunk = trace.Chunk{TNs: flatTNs, Data: flatBytes}
		case !flatT && !flatData:
			fr.ChunkNull = true
		case !flatT:
			return cellErr("t_ns", "t_ns is null but data is not: want both null (a request without chunks) or both set")
		default:
			return cellErr("data", "data is null but t_ns is not: want both null (a request without chunks) or both set")
		}
		return nil
	}
	if len(d.times) != len(d.datas) {
		return cellErr("chunks", "%d t_ns values and %d data values: want one of each per chunk", len(d.times), len(d.datas))
	}
	switch {
	case chunksNull && len(d.times) == 0:
		req.Chunks = nil
	case chunksEmpty && len(d.times) == 0:
		req.Chunks = []trace.Chunk{}
	default:
		if arena == nil {
			arena = []byte{} // chunk data is never nil
		}
		req.Chunks = make([]trace.Chunk, len(d.times))
		start := 0
		for i, t := range d.times {
			end := d.datas[i]
			req.Chunks[i] = trace.Chunk{TNs: t, Data: arena[start:end:end]}
			start = end
		}
	}
	return nil
}

func int64Ptr(v parquet.Value, present bool) *int64 {
	if !present {
		return nil
	}
	x := v.Int64()
	return &x
}

func extraValue(v parquet.Value, present bool, kind trace.ExtraKind) trace.Value {
	if !present {
		return trace.Value{Null: true}
	}
	switch kind {
	case trace.ExtraString, trace.ExtraJSON:
		return trace.Value{Str: string(v.ByteArray())}
	case trace.ExtraBinary:
		return trace.Value{Bytes: append([]byte{}, v.ByteArray()...)}
	case trace.ExtraInt64:
		if v.Kind() == parquet.Int32 {
			return trace.Value{Int: int64(v.Int32())}
		}
		return trace.Value{Int: v.Int64()}
	case trace.ExtraFloat64:
		if v.Kind() == parquet.Float {
			return trace.Value{Float: float64(v.Float())}
		}
		return trace.Value{Float: v.Double()}
	case trace.ExtraBool:
		return trace.Value{Bool: v.Boolean()}
	}
	return trace.Value{Null: true}
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
	row, rg, pos, err := r.cur.row()
	if err != nil {
		if !errors.Is(err, io.EOF) {
			r.err = err
		}
		r.req = nil
		return false
	}
	req := &trace.Request{}
	if cerr := r.dec.decode(row, req, nil); cerr != nil {
		e := trace.RowError(r.f.name, rg, pos, cerr.column, "%s", cerr.msg)
		e.RequestID = req.RequestID
		r.err = e
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
	f   *file
	cur *rowCursor
	dec decoder
	err error
}

func (fr *flatRows) Err() error { return fr.err }

func (fr *flatRows) Next(out *trace.FlatRow) bool {
	if fr.err != nil {
		return false
	}
	row, rg, pos, err := fr.cur.row()
	if err != nil {
		if !errors.Is(err, io.EOF) {
			fr.err = err
		}
		return false
	}
	*out = trace.FlatRow{RowGroup: rg, Row: pos}
	if cerr := fr.dec.decode(row, &out.Req, out); cerr != nil {
		e := trace.RowError(fr.f.name, rg, pos, cerr.column, "%s", cerr.msg)
		e.RequestID = out.Req.RequestID
		fr.err = e
		return false
	}
	return true
}

// contiguous reads the request_id column alone and reports whether the rows
// of every request are contiguous.
func (f *file) contiguous() (ok bool, err error) {
	defer recoverCorrupt(f.name, &err)
	var c trace.Contiguity
	values := make([]parquet.Value, 1024)
	var last []byte
	haveLast := false
	for i := range f.pf.RowGroups() {
		g, err := f.rowGroup(i)
		if err != nil {
			return false, err
		}
		pages := g.ColumnChunks()[f.schema.idColumn].Pages()
		for {
			page, err := pages.ReadPage()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				pages.Close()
				e := trace.FileError(f.name, err, "corrupt parquet file: reading column request_id")
				e.RowGroup, e.Column = i, "request_id"
				return false, e
			}
			vr := page.Values()
			for {
				n, err := vr.ReadValues(values)
				for _, v := range values[:n] {
					id := v.ByteArray()
					if v.IsNull() {
						id = nil
					}
					if haveLast && string(id) == string(last) {
						continue
					}
					c.Add(string(id))
					last, haveLast = append(last[:0], id...), true
				}
				if errors.Is(err, io.EOF) || (err == nil && n == 0) {
					break
				}
				if err != nil {
					parquet.Release(page)
					pages.Close()
					e := trace.FileError(f.name, err, "corrupt parquet file: reading column request_id")
					e.RowGroup, e.Column = i, "request_id"
					return false, e
				}
			}
			parquet.Release(page)
			if !c.Contiguous() {
				pages.Close()
				return false, nil
			}
		}
		pages.Close()
	}
	return c.Contiguous(), nil
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
		return &nestedReader{f: f, info: info, cur: newRowCursor(f), dec: decoder{s: f.schema},
			check: trace.NewChecker(name, limits), closer: closer}, nil
	}
	ok, err := f.contiguous()
	if err != nil {
		return nil, err
	}
	rows := &flatRows{f: f, cur: newRowCursor(f), dec: decoder{s: f.schema}}
	closeAll := func() error {
		rows.cur.close()
		if closer != nil {
			return closer()
		}
		return nil
	}
	if ok {
		return trace.NewFlatReader(rows, info, limits, closeAll), nil
	}
	return trace.NewGroupingFlatReader(rows, info, limits, closeAll), nil
}
