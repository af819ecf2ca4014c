package tables

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"

	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/parquetfile"
)

// readBatch is how many rows are decoded at a time.
const readBatch = 256

// maxPageBytes is the uncompressed size a page of a table may claim however
// small its compressed size: the tables hold no body bytes, but a page up
// to the traces' chunk limit is a cost their reader accepts already.
var maxPageBytes = trace.DefaultLimits.MaxChunkBytes

// Reader reads the tables of one replay back, a request at a time, in
// trace order, with the request's events checked against its row:
//
//	for r.Scan() {
//		use(r.Request(), r.Events())
//	}
//	if err := r.Err(); err != nil { ... }
type Reader struct {
	meta     Meta
	requests *tableReader[RequestRow]
	events   *tableReader[EventRow]
	request  RequestRow
	evRows   []EventRow // the current request's events, reused
	row      int64      // the current request's row in requests.parquet
	err      error
}

// Open opens the tables in dir and checks that both files are replay tables
// of this version, of the same replay.
func Open(dir string) (*Reader, error) {
	var files []*os.File
	sources := make([]source, 2)
	for i, name := range []string{RequestsFile, EventsFile} {
		path := filepath.Join(dir, name)
		f, err := os.Open(path)
		if err != nil {
			for _, f := range files {
				f.Close()
			}
			return nil, trace.FileError(path, err, "cannot open the table (want a directory written by audit replay --format parquet -o DIR)")
		}
		files = append(files, f)
		st, err := f.Stat()
		if err != nil {
			for _, f := range files {
				f.Close()
			}
			return nil, trace.FileError(path, err, "cannot read the table")
		}
		sources[i] = source{name: path, r: f, size: st.Size(), closer: f}
	}
	r, err := newReader(sources[0], sources[1])
	if err != nil {
		for _, f := range files {
			f.Close()
		}
		return nil, err
	}
	return r, nil
}

// source is one table file: its name for errors, its bytes and what closes it.
type source struct {
	name   string
	r      io.ReaderAt
	size   int64
	closer io.Closer // nil for bytes in memory
}

func newReader(requests, events source) (*Reader, error) {
	rt, rmeta, err := openTable[RequestRow](requests, requestsSchema, "requests")
	if err != nil {
		return nil, err
	}
	et, emeta, err := openTable[EventRow](events, eventsSchema, "events")
	if err != nil {
		return nil, err
	}
	if emeta != rmeta {
		return nil, trace.FileError(events.name, nil, "metadata %+v: want the metadata of %s, %+v (both tables of one replay)", emeta, requests.name, rmeta)
	}
	if n := rt.pf.NumRows(); n != rmeta.Requests {
		return nil, trace.FileError(requests.name, nil, "%d rows: the metadata's %s says %d (truncated or corrupt file)", n, KeyRequests, rmeta.Requests)
	}
	if n := et.pf.NumRows(); n != emeta.Events {
		return nil, trace.FileError(events.name, nil, "%d rows: the metadata's %s says %d (truncated or corrupt file)", n, KeyEvents, emeta.Events)
	}
	return &Reader{meta: rmeta, requests: rt, events: et, row: -1}, nil
}

// Meta returns what the tables' metadata say.
func (r *Reader) Meta() Meta { return r.meta }

// RequestsPath is the requests table's path, for messages.
func (r *Reader) RequestsPath() string { return r.requests.name }

// Row is the current request's row in the requests table.
func (r *Reader) Row() int64 { return r.row }

// Request returns the current request's row, valid until the next Scan.
func (r *Reader) Request() RequestRow { return r.request }

// Events returns the current request's events, in order, valid until the
// next Scan.
func (r *Reader) Events() []EventRow { return r.evRows }

// Err returns the error that ended Scan, if any: a *trace.Error for bad
// input.
func (r *Reader) Err() error { return r.err }

// Close closes both files.
func (r *Reader) Close() error {
	return errors.Join(r.requests.close(), r.events.close())
}

// Scan reads the next request and its events.
func (r *Reader) Scan() bool {
	if r.err != nil {
		return false
	}
	row, pos, rg, err := r.requests.next()
	if err != nil {
		r.err = err
		return false
	}
	if row == nil {
		// Every event belongs to a request of the requests table.
		ev, epos, erg, err := r.events.next()
		switch {
		case err != nil:
			r.err = err
		case ev != nil:
			r.err = trace.RowError(r.events.name, erg, epos, "request_seq", "an event of request %q, request_seq %d: want only events of the %d requests of %s",
				ev.RequestID, ev.RequestSeq, r.meta.Requests, r.requests.name)
		}
		return false
	}
	r.row = pos
	if err := r.readRequest(row, rg, pos); err != nil {
		r.err = err
		return false
	}
	return true
}

// readRequest reads the events of row, the pos-th of the requests table,
// and checks them against it.
func (r *Reader) readRequest(row *RequestRow, rg int, pos int64) error {
	fail := func(column, format string, args ...any) error {
		e := trace.RowError(r.requests.name, rg, pos, column, format, args...)
		e.RequestID = row.RequestID
		return e
	}
	switch {
	case row.Seq != pos:
		return fail("seq", "seq %d: want %d, the row's position (rows in trace order)", row.Seq, pos)
	case row.RequestID == "" || !utf8.ValidString(row.RequestID):
		return fail("request_id", "request_id %q: want non-empty utf8 text", row.RequestID)
	}
	spec := []bool{row.SpecSuccess != nil, row.SpecEvents != nil, row.SpecFirstNs != nil, row.SpecLastNs != nil,
		row.CommentInBlock != nil, row.FieldLines != nil, row.MultiLineData != nil}
	if slices.Contains(spec, false) && slices.Contains(spec, true) {
		return fail("spec_success", "some spec_* columns are null and some are not: want all null (no sse replay) or none")
	}
	if row.EventRecords && len(row.TimePointsS) < 1 {
		return fail("event_records", "event_records is true with no time points: want a time point for t0 and one for each recorded event")
	}
	r.evRows = r.evRows[:0]
	recorded := 0 // events behind time points, when row.EventRecords
	counts := make([]int64, len(ClassNames))
	for k := int64(0); ; k++ {
		ev, epos, erg, err := r.events.peek()
		if err != nil {
			return err
		}
		if ev == nil || ev.RequestSeq > pos {
			break
		}
		efail := func(column, format string, args ...any) error {
			e := trace.RowError(r.events.name, erg, epos, column, format, args...)
			e.RequestID = ev.RequestID
			return e
		}
		if ev.RequestSeq < pos || ev.RequestID != row.RequestID || ev.Seq != k {
			return efail("request_seq", "request_seq %d, request_id %q, seq %d: want request_seq %d, request_id %q, seq %d (the events of %s row %d, in order)",
				ev.RequestSeq, ev.RequestID, ev.Seq, pos, row.RequestID, k, r.requests.name, pos)
		}
		class, ok := classIndex[ev.Class]
		if !ok {
			return efail("class", "class %q: want one of the classes of schemas/replay-tables-v1.md", ev.Class)
		}
		if ev.ContentBytes < 0 || ev.ReasoningBytes < 0 || ev.ContentBytes > math.MaxInt32 || ev.ReasoningBytes > math.MaxInt32 {
			return efail("content_bytes", "content_bytes %d, reasoning_bytes %d: want byte counts", ev.ContentBytes, ev.ReasoningBytes)
		}
		counts[class]++
		switch {
		case ev.Recorded && row.EventRecords:
			i := recorded + 1
			if i >= len(row.TimePointsS) {
				return efail("recorded", "recorded event %d of a request with %d time points: want one time point after t0 for each recorded event", i, len(row.TimePointsS))
			}
			if ev.TimeS == nil || math.Float64bits(*ev.TimeS) != math.Float64bits(row.TimePointsS[i]) {
				return efail("time_s", "time_s %v: want time_points_s[%d] of %s row %d, %v", deref(ev.TimeS), i, r.requests.name, pos, row.TimePointsS[i])
			}
			recorded++
		case ev.TimeS != nil || ev.Tokens != nil:
			return efail("time_s", "time_s or tokens set on an event outside the record: want null unless recorded and event_records")
		}
		r.evRows = append(r.evRows, *ev)
		r.events.advance()
	}
	for i, n := range row.ClassCounts() {
		if *n != counts[i] {
			name := ClassNames[i]
			return fail("events_"+name, "%d: want %d, the %s events of this request in %s", *n, counts[i], name, r.events.name)
		}
	}
	if row.EventRecords && recorded != len(row.TimePointsS)-1 {
		return fail("event_records", "%d recorded events for %d time points: want one recorded event for each time point after t0", recorded, len(row.TimePointsS))
	}
	r.request = *row
	return nil
}

func deref(p *float64) any {
	if p == nil {
		return "null"
	}
	return *p
}

// tableReader reads one table's rows in order, a row group and a batch at a
// time, with one row of look-ahead.
type tableReader[T any] struct {
	name     string
	closer   io.Closer
	pf       *parquet.File
	guard    *parquetfile.Guard
	rg       int // current row group, -1 before the first
	rows     *parquet.GenericReader[T]
	buf      []T
	n, i     int
	rgRead   int64 // rows read from the current row group
	pos      int64 // file row of buf[i]
	finished bool
}

// openTable opens src, checks its footer, metadata and schema.
func openTable[T any](src source, want *parquet.Schema, table string) (t *tableReader[T], meta Meta, err error) {
	defer recoverCorrupt(src.name, &err)
	guard, err := parquetfile.NewGuard(src.r, src.size, maxPageBytes, fmt.Sprintf("the tables' page limit, %d MiB", maxPageBytes>>20))
	if err != nil {
		return nil, meta, trace.FileError(src.name, nil, "%s", err)
	}
	pf, err := parquet.OpenFile(src.r, src.size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true), parquet.OptimisticRead(false))
	if err != nil {
		return nil, meta, trace.FileError(src.name, err, "corrupt parquet file")
	}
	kv := map[string]string{}
	for _, e := range pf.Metadata().KeyValueMetadata {
		kv[e.Key] = e.Value
	}
	if meta, err = metaFrom(kv, table); err != nil {
		return nil, meta, trace.FileError(src.name, nil, "%s", err)
	}
	if err := checkSchema(pf.Schema(), want); err != nil {
		return nil, meta, trace.FileError(src.name, nil, "%s", err)
	}
	return &tableReader[T]{name: src.name, closer: src.closer, pf: pf, guard: guard, rg: -1,
		buf: make([]T, readBatch)}, meta, nil
}

// recoverCorrupt turns a panic of the parquet library on a damaged file into
// a *trace.Error: the library indexes by sizes it read from the file.
func recoverCorrupt(name string, err *error) {
	if p := recover(); p != nil {
		*err = trace.FileError(name, nil, "corrupt parquet file (the parquet library failed: %v)", p)
	}
}

// peek returns the next row without consuming it (nil at the end), its file
// row and row group.
func (t *tableReader[T]) peek() (*T, int64, int, error) {
	for t.i >= t.n {
		if t.finished {
			return nil, t.pos, t.rg, nil
		}
		if err := t.fill(); err != nil {
			t.finished, t.n, t.i = true, 0, 0
			return nil, t.pos, t.rg, err
		}
	}
	return &t.buf[t.i], t.pos, t.rg, nil
}

// advance consumes the row peek returned.
func (t *tableReader[T]) advance() {
	t.i++
	t.pos++
}

// next is peek and advance.
func (t *tableReader[T]) next() (*T, int64, int, error) {
	row, pos, rg, err := t.peek()
	if row != nil {
		t.advance()
	}
	return row, pos, rg, err
}

func (t *tableReader[T]) fill() (err error) {
	defer recoverCorrupt(t.name, &err)
	if t.rows == nil {
		t.rg++
		if t.rg >= len(t.pf.RowGroups()) {
			t.finished = true
			return nil
		}
		if err := t.guard.CheckRowGroup(&t.pf.Metadata().RowGroups[t.rg]); err != nil {
			e := trace.FileError(t.name, nil, "corrupt parquet file: %s", err)
			e.RowGroup = t.rg
			return e
		}
		t.rows = parquet.NewGenericRowGroupReader[T](t.pf.RowGroups()[t.rg])
		t.rgRead = 0
	}
	clear(t.buf) // the library appends into slices it finds
	n, err := t.rows.Read(t.buf)
	t.n, t.i = n, 0
	t.rgRead += int64(n)
	if err != nil && !errors.Is(err, io.EOF) {
		e := trace.FileError(t.name, err, "corrupt parquet file: reading rows")
		e.RowGroup = t.rg
		return e
	}
	if errors.Is(err, io.EOF) || n == 0 {
		want := t.pf.RowGroups()[t.rg].NumRows()
		t.rows.Close()
		t.rows = nil
		if t.rgRead != want {
			e := trace.FileError(t.name, nil, "corrupt parquet file: row group has %d rows, its metadata claims %d", t.rgRead, want)
			e.RowGroup = t.rg
			return e
		}
	}
	return nil
}

func (t *tableReader[T]) close() error {
	if t.rows != nil {
		t.rows.Close()
		t.rows = nil
	}
	if t.closer == nil {
		return nil
	}
	return t.closer.Close()
}
