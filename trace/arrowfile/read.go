package arrowfile

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sseaudit/sseaudit/trace"
)

// fileMagic starts and ends an Arrow IPC file (not a stream).
var fileMagic = []byte("ARROW1")

// OpenFile reads a trace stored in the Arrow IPC file format, mapped into
// memory where it can be (see mapping).
func OpenFile(src trace.Source) (trace.Reader, error) {
	return openFile(src, memory.NewGoAllocator(), mapFile(src))
}

// OpenStream reads a trace stored in the Arrow IPC stream format, mapped
// into memory where it can be.
func OpenStream(src trace.Source) (trace.Reader, error) {
	return openStream(src, memory.NewGoAllocator(), mapFile(src))
}

// openFile reads src, mapped as pages, or into the heap if pages is nil.
// The reader closes pages; so does openFile, should it fail.
func openFile(src trace.Source, mem memory.Allocator, pages *mapping) (r trace.Reader, err error) {
	defer func() {
		if err != nil {
			pages.close()
		}
	}()
	defer recoverCorrupt(src.Name, -1, &err)
	blocks, dicts, err := checkFile(src)
	if err != nil {
		return nil, err
	}
	mem = newBoundedAllocator(mem, memoryBudget(src))
	if pages != nil {
		schema, ok, err := mappedSchema(src, pages.data, mem, dicts)
		if err != nil {
			return nil, err
		}
		if ok {
			return openMappedFile(src, mem, pages, schema, dicts, blocks)
		}
		pages.close() // read into the heap
	}
	fr, err := ipc.NewFileReader(src.File, ipcReadOptions(src, mem)...)
	if err != nil {
		return nil, arrowError(src.Name, -1, "cannot read the Arrow IPC file footer and schema (truncated or corrupt file?)", err)
	}
	if fr.NumRecords() != len(blocks) {
		fr.Close()
		return nil, trace.FileError(src.Name, nil, "corrupt Arrow IPC file footer: %d record batches, then %d", len(blocks), fr.NumRecords())
	}
	open := func() (batchSource, error) { return &fileBatches{src: src, fr: fr, blocks: blocks}, nil }
	r, err = newReader(src, "arrow", fr.Schema(), open, nil, fr.Close)
	if err != nil {
		fr.Close()
		return nil, err
	}
	return r, nil
}

// openMappedFile reads a mapped Arrow IPC file through arrow-go's stream
// reader, its messages read in place (see blockMessages).
func openMappedFile(src trace.Source, mem memory.Allocator, pages *mapping, schemaMsg []byte, dicts, blocks []fileBlock) (trace.Reader, error) {
	open := func() (batchSource, error) {
		msgs := newBlockMessages(src, pages.data, schemaMsg, dicts, blocks)
		msgs.mem = mem
		sr, err := ipc.NewReaderFromMessageReader(msgs, ipcReadOptions(src, mem)...)
		if err != nil {
			return nil, arrowError(src.Name, -1, "cannot read the Arrow IPC file's schema", err)
		}
		return &streamBatches{r: sr}, nil
	}
	schema, err := firstSchema(open)
	if err != nil {
		return nil, err
	}
	return newReader(src, "arrow", schema, open, pages, pages.close)
}

// firstSchema opens a pass of a stream reader for its schema.
func firstSchema(open func() (batchSource, error)) (*arrow.Schema, error) {
	first, err := open()
	if err != nil {
		return nil, err
	}
	defer first.close()
	return first.(*streamBatches).r.Schema(), nil
}

// openStream reads src, mapped as pages, or from the file if pages is nil.
// The reader closes pages; so does openStream, should it fail.
func openStream(src trace.Source, mem memory.Allocator, pages *mapping) (r trace.Reader, err error) {
	defer func() {
		if err != nil {
			pages.close()
		}
	}()
	defer recoverCorrupt(src.Name, -1, &err)
	var head [len("ARROW1")]byte
	if n, _ := src.File.ReadAt(head[:], 0); n == len(head) && bytes.Equal(head[:], fileMagic) {
		return nil, trace.FileError(src.Name, nil, "is an Arrow IPC file, not a stream: name it .arrow or read it with --in-format arrow")
	}
	mem = newBoundedAllocator(mem, memoryBudget(src))
	noEOS := new(atomic.Bool)
	// Each pass (the flat layout makes two) reads the stream from its start.
	open := func() (batchSource, error) {
		var in io.Reader
		if pages != nil {
			in = &sliceReader{data: pages.data}
		} else {
			if _, err := src.File.Seek(0, io.SeekStart); err != nil {
				return nil, trace.FileError(src.Name, err, "cannot seek to the start of the stream")
			}
			in = bufio.NewReaderSize(src.File, 64<<10)
		}
		msgs := &messageReader{r: in, mem: mem, size: src.Size, noEOS: noEOS}
		msgs.refs.Store(1)
		sr, err := ipc.NewReaderFromMessageReader(msgs, ipcReadOptions(src, mem)...)
		if err != nil {
			return nil, arrowError(src.Name, -1, "cannot read the Arrow IPC stream schema: want an Arrow IPC stream (.arrows)", err)
		}
		return &streamBatches{r: sr}, nil
	}
	schema, err := firstSchema(open)
	if err != nil {
		return nil, err
	}
	noEOS.Store(false) // known once a pass reaches the end
	var closeFile func() error
	if pages != nil {
		closeFile = pages.close
	}
	r, err = newReader(src, "arrows", schema, open, pages, closeFile)
	if err != nil {
		return nil, err
	}
	return &eosReader{Reader: r, noEOS: noEOS}, nil
}

func ipcReadOptions(src trace.Source, mem memory.Allocator) []ipc.Option {
	// No message of a well-formed file is larger than the file.
	limit := max(src.Size, 1)
	return []ipc.Option{ipc.WithAllocator(mem), ipc.WithBodySizeLimit(limit), ipc.WithMetadataSizeLimit(limit)}
}

// checkFile checks the magic and the footer of an Arrow file before
// arrow-go reads them, and returns the footer's record batch blocks.
func checkFile(src trace.Source) (blocks, dicts []fileBlock, err error) {
	const (
		tailLen = 4 + 6 // footer length, magic
		minSize = 8 + tailLen
	)
	if src.Size < minSize {
		return nil, nil, trace.FileError(src.Name, nil, "is %d bytes long, too short for an Arrow IPC file (truncated?)", src.Size)
	}
	var head [len("ARROW1")]byte
	var tail [tailLen]byte
	if _, err := src.File.ReadAt(head[:], 0); err != nil {
		return nil, nil, trace.FileError(src.Name, err, "cannot read the file")
	}
	if !bytes.Equal(head[:], fileMagic) {
		return nil, nil, trace.FileError(src.Name, nil, "does not start with the Arrow IPC file magic %q: want an Arrow IPC file (an Arrow IPC stream is read as .arrows, or with --in-format arrows)", fileMagic)
	}
	if _, err := src.File.ReadAt(tail[:], src.Size-tailLen); err != nil {
		return nil, nil, trace.FileError(src.Name, err, "cannot read the file")
	}
	if !bytes.Equal(tail[4:], fileMagic) {
		return nil, nil, trace.FileError(src.Name, nil, "does not end with the Arrow IPC file magic %q: the file is truncated or was not finished", fileMagic)
	}
	footerLen := int64(binary.LittleEndian.Uint32(tail[:4]))
	if footerLen == 0 || footerLen > src.Size-minSize {
		return nil, nil, trace.FileError(src.Name, nil, "corrupt Arrow IPC file footer: length %d in a %d-byte file", footerLen, src.Size)
	}
	footer := make([]byte, footerLen)
	if _, err := src.File.ReadAt(footer, src.Size-tailLen-footerLen); err != nil {
		return nil, nil, trace.FileError(src.Name, err, "cannot read the file footer")
	}
	blocks, dicts, err = checkFooter(footer)
	if err != nil {
		return nil, nil, trace.FileError(src.Name, err, "corrupt Arrow IPC file footer")
	}
	// arrow-go reads the dictionaries as it opens the file.
	for i, blk := range dicts {
		if err := checkBlock(src, blk, fbHeaderDictionary); err != nil {
			return nil, nil, trace.FileError(src.Name, err, "corrupt Arrow IPC file: dictionary %d", i)
		}
	}
	return blocks, dicts, nil
}

// batchSource yields the record batches of one pass over a file; the caller
// releases each batch. next returns nil, nil at the end.
type batchSource interface {
	next() (arrow.RecordBatch, error)
	close()
}

type fileBatches struct {
	src    trace.Source
	fr     *ipc.FileReader
	blocks []fileBlock
	i      int
}

func (b *fileBatches) next() (arrow.RecordBatch, error) {
	if b.i >= len(b.blocks) {
		return nil, nil
	}
	if err := checkBlock(b.src, b.blocks[b.i], fbHeaderRecordBatch); err != nil {
		return nil, err
	}
	rec, err := b.fr.RecordBatchAt(b.i)
	b.i++
	return rec, err
}

// checkBlock checks the message metadata of a block of an Arrow file (a
// record batch or a dictionary, kind) before arrow-go decodes it, and that
// its body lies within the file.
func checkBlock(src trace.Source, blk fileBlock, kind byte) error {
	if blk.offset < 0 || blk.metaLen < 8 || blk.offset > src.Size-int64(blk.metaLen) {
		return fmt.Errorf("block at offset %d with %d bytes of metadata: out of the %d-byte file", blk.offset, blk.metaLen, src.Size)
	}
	if blk.bodyLen < 0 || blk.bodyLen > src.Size-blk.offset-int64(blk.metaLen) {
		return fmt.Errorf("block at offset %d claims a body of %d bytes: out of the %d-byte file", blk.offset, blk.bodyLen, src.Size)
	}
	meta := make([]byte, blk.metaLen)
	if _, err := src.File.ReadAt(meta, blk.offset); err != nil {
		return fmt.Errorf("reading block metadata: %w", err)
	}
	fb, err := messageFlatbuffer(meta)
	if err != nil {
		return err
	}
	got, _, err := checkMessage(fb)
	if err != nil {
		return err
	}
	if got != kind {
		return fmt.Errorf("message of type %d where the footer lists one of type %d", got, kind)
	}
	return nil
}

func (b *fileBatches) close() {}

type streamBatches struct{ r *ipc.Reader }

func (b *streamBatches) next() (arrow.RecordBatch, error) {
	if !b.r.Next() {
		return nil, b.r.Err()
	}
	rec := b.r.RecordBatch()
	rec.Retain()
	return rec, nil
}

func (b *streamBatches) close() { b.r.Release() }

// newReader maps the schema and returns the reader of its layout.
// pages is the mapped file, or nil.
func newReader(src trace.Source, format string, schema *arrow.Schema, open func() (batchSource, error), pages *mapping, closeFile func() error) (trace.Reader, error) {
	m, err := mapSchema(src.Name, schema)
	if err != nil {
		return nil, err
	}
	if n := len(m.extra); n > 0 {
		if err := trace.CheckExtraColumns(src.Name, src.Limits, n, m.extra[n-1].col.Name, trace.Error{RowGroup: -1, Row: -1}); err != nil {
			return nil, err
		}
	}
	info := trace.Info{Path: src.Name, Format: format, Layout: m.layout}
	info.Meta = trace.MetaFromMap(schema.Metadata().ToMap())
	// The extra kinds are in info.Extra; keeping them in the metadata too
	// would make a writer's extra columns and metadata disagree.
	for _, kv := range append(trace.Meta(nil), info.Meta...) {
		if strings.HasPrefix(kv.Key, trace.KeyExtraKindPrefix) {
			info.Meta.Delete(kv.Key)
		}
	}
	switch v, ok := info.Meta.Get(trace.KeySchemaVersion); {
	case !ok:
		info.Notes = append(info.Notes, "no "+trace.KeySchemaVersion+": read as version "+trace.SchemaVersion)
	case strings.TrimSpace(v) != trace.SchemaVersion:
		return nil, trace.FileError(src.Name, nil, "metadata %s = %q: want %q (this build reads trace schema version %s only)", trace.KeySchemaVersion, v, trace.SchemaVersion, trace.SchemaVersion)
	}
	for _, x := range m.extra {
		info.Extra = append(info.Extra, x.col)
	}
	limits := src.Limits
	if limits == (trace.Limits{}) {
		limits = trace.DefaultLimits
	}

	if m.layout == trace.Nested {
		batches, err := open()
		if err != nil {
			return nil, err
		}
		cur := &cursor{file: src.Name, m: m, src: batches, batch: -1, pages: pages}
		closer := func() error {
			cur.close()
			if closeFile != nil {
				return closeFile()
			}
			return nil
		}
		return &nestedReader{cur: cur, info: info, check: trace.NewChecker(src.Name, limits), closer: closer}, nil
	}

	passes := &flatPasses{file: src.Name, m: m, open: open, pages: pages}
	closer := func() error {
		passes.close()
		if closeFile != nil {
			return closeFile()
		}
		return nil
	}
	contiguous, err := trace.Contiguous(passes)
	if err != nil {
		return nil, err
	}
	if !contiguous {
		r := trace.NewGroupingFlatReader(passes, info, limits, closer)
		if pages != nil {
			// The grouper copies the chunk bytes it keeps out of the
			// mapping itself, outside flatRows.Next's guard.
			r = &faultReader{Reader: r, file: src.Name}
		}
		return r, nil
	}
	// Streamed requests get copies: one is valid until the next Scan only,
	// but a copy is what the nested layout gives too, and a request's
	// bytes never fault when the file is cut afterwards.
	rows, err := passes.rows(false)
	if err != nil {
		return nil, err
	}
	return trace.NewFlatReader(rows, info, limits, closer), nil
}

// faultReader ends a read in an error naming the file when reading a
// mapped page faults (the file was cut short meanwhile) in code outside
// this package's guards; other panics go on.
type faultReader struct {
	trace.Reader
	file string
	err  error
}

func (r *faultReader) Scan() (ok bool) {
	if r.err != nil {
		return false
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			if _, fault := p.(interface{ Addr() uintptr }); !fault {
				panic(p)
			}
			r.err, ok = corruptError(r.file, -1, panicError(p)), false
		}
	}()
	return r.Reader.Scan()
}

func (r *faultReader) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.Reader.Err()
}

// flatPasses are the passes over a flat file: request_id alone, to find
// whether each request's rows are contiguous (and, if not, to count them
// for trace's grouping reader), and over every row.
type flatPasses struct {
	file  string
	m     *schemaMap
	open  func() (batchSource, error)
	pages *mapping
	pass  *flatRows // the pass over the rows under way
}

func (p *flatPasses) IDs(add func(id string) error) (err error) {
	batches, err := p.open()
	if err != nil {
		return err
	}
	cur := &cursor{file: p.file, m: p.m, src: batches, batch: -1, idOnly: true, pages: p.pages}
	defer cur.close()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true)) // a mapped file cut meanwhile
	defer recoverCorrupt(p.file, -1, &err)
	for {
		i, err := cur.nextRow()
		if err != nil || i < 0 {
			return err
		}
		id := ""
		if !cur.cols.requestID.IsNull(i) {
			id = cur.cols.requestID.Value(i)
		}
		if err := add(id); err != nil { // copies the id it keeps: Arrow strings point into the batch
			return err
		}
		p.pages.consumed(len(id) + 8)
	}
}

// Rows is a pass for trace's grouping reader, which copies the chunk
// bytes it keeps: they are handed out in place.
func (p *flatPasses) Rows() (trace.FlatRows, error) { return p.rows(true) }

// rows starts a pass over every row; with view, the chunk bytes are the
// batch's, not copies.
func (p *flatPasses) rows(view bool) (trace.FlatRows, error) {
	p.close()
	batches, err := p.open()
	if err != nil {
		return nil, err
	}
	p.pass = &flatRows{cur: &cursor{file: p.file, m: p.m, src: batches, batch: -1, pages: p.pages}, view: view}
	return p.pass, nil
}

func (p *flatPasses) close() {
	if p.pass != nil {
		p.pass.cur.close()
		p.pass = nil
	}
}

// cursor walks the rows of a pass, one record batch in memory at a time.
type cursor struct {
	file    string
	m       *schemaMap
	src     batchSource
	idOnly  bool // bind the request_id column only
	rec     arrow.RecordBatch
	cols    *batchColumns
	batch   int   // index of rec
	rowBase int64 // file row of rec's first row
	pos, n  int   // next row in rec, rows in rec
	done    bool
	pages   *mapping // the mapped file, or nil
}

// nextRow moves to the next row and returns its index in cur.rec, or -1 at
// the end.
func (c *cursor) nextRow() (int, error) {
	for c.rec == nil || c.pos >= c.n {
		if c.done {
			return -1, nil
		}
		if c.rec != nil {
			c.rowBase += int64(c.n)
			c.rec.Release()
			c.rec, c.cols = nil, nil
		}
		c.batch++
		rec, err := c.src.next()
		if err != nil {
			c.done = true
			return -1, arrowError(c.file, c.batch, "cannot read record batch", err)
		}
		if rec == nil {
			c.done = true
			return -1, nil
		}
		c.rec, c.pos, c.n = rec, 0, int(rec.NumRows())
		if c.cols, err = bindColumns(c.file, c.batch, c.m, rec, c.idOnly); err != nil {
			c.done = true
			return -1, err
		}
	}
	c.pos++
	return c.pos - 1, nil
}

func (c *cursor) row(i int) int64 { return c.rowBase + int64(i) }

func (c *cursor) close() {
	if c.rec != nil {
		c.rec.Release()
		c.rec, c.cols = nil, nil
	}
	if c.src != nil {
		c.src.close()
		c.src = nil
	}
	c.done = true
}

type nestedReader struct {
	cur    *cursor
	info   trace.Info
	check  *trace.Checker
	closer func() error
	req    *trace.Request
	err    error
	closed bool
}

func (r *nestedReader) Info() trace.Info        { return r.info }
func (r *nestedReader) Request() *trace.Request { return r.req }
func (r *nestedReader) Err() error              { return r.err }

func (r *nestedReader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	return r.closer()
}

func (r *nestedReader) Scan() (ok bool) {
	r.req = nil
	if r.err != nil || r.closed {
		return false
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true)) // a mapped file cut meanwhile
	defer func() {
		if p := recover(); p != nil {
			r.err = corruptError(r.cur.file, r.cur.batch, panicError(p))
			r.cur.close()
			ok = false
		}
	}()
	i, err := r.cur.nextRow()
	if err != nil {
		r.err = err
		return false
	}
	if i < 0 {
		return false
	}
	req := &trace.Request{}
	if err := r.cur.cols.decodeRequest(i, r.cur.row(i), req); err != nil {
		r.err = err
		return false
	}
	if err := r.check.Check(req, trace.Error{RowGroup: r.cur.batch, Row: r.cur.row(i)}); err != nil {
		r.err = err
		return false
	}
	r.cur.pages.consumed(requestBytes(req))
	r.req = req
	return true
}

// flatRows feeds the rows of a flat file to the grouping reader of package
// trace.
type flatRows struct {
	cur  *cursor
	err  error
	view bool // chunk bytes are the batch's (see decodeFlatRow)
}

func (f *flatRows) Err() error { return f.err }

func (f *flatRows) Next(row *trace.FlatRow) (ok bool) {
	if f.err != nil {
		return false
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true)) // a mapped file cut meanwhile
	defer func() {
		if p := recover(); p != nil {
			f.err = corruptError(f.cur.file, f.cur.batch, panicError(p))
			f.cur.close()
			ok = false
		}
	}()
	i, err := f.cur.nextRow()
	if err != nil {
		f.err = err
		return false
	}
	if i < 0 {
		return false
	}
	*row = trace.FlatRow{RowGroup: f.cur.batch, Row: f.cur.row(i)}
	if err := f.cur.cols.decodeFlatRow(i, row, f.view); err != nil {
		f.err = err
		return false
	}
	f.cur.pages.consumed(len(row.Chunk.Data) + 16)
	return true
}

// requestBytes is about what decoding req read of its record batch.
func requestBytes(req *trace.Request) int {
	n := 64 + len(req.RequestID) + 8*len(req.TimePointsS)
	for _, c := range req.Chunks {
		n += 16 + len(c.Data)
	}
	return n
}
