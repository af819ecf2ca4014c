package tables

import (
	"fmt"
	"path/filepath"

	"github.com/parquet-go/parquet-go"
	"github.com/sseaudit/sseaudit/internal/atomicfile"
)

// Row group bounds, in rows: a row group is what a writer holds in memory
// and what a reader decodes at once.
const (
	RequestRowGroupRows = 4096
	EventRowGroupRows   = 64 * 1024
)

// Writer writes the two tables of one replay into a directory, each to a
// temporary file renamed into place by Close: a reader never sees half a
// table.
type Writer struct {
	meta     Meta
	requests *tableWriter[RequestRow]
	events   *tableWriter[EventRow]
	reqRow   []RequestRow // one row, reused
	err      error
}

// tableWriter is one table's temporary file and its Parquet writer.
type tableWriter[T any] struct {
	file *atomicfile.File
	pw   *parquet.GenericWriter[T]
}

func newTableWriter[T any](dir, name string, rowGroupRows int64) (*tableWriter[T], error) {
	file, err := atomicfile.Create(filepath.Join(dir, name))
	if err != nil {
		return nil, err
	}
	pw := parquet.NewGenericWriter[T](file, parquet.Compression(&parquet.Zstd),
		parquet.CreatedBy("sseaudit", SchemaVersion, ""), parquet.MaxRowsPerRowGroup(rowGroupRows))
	return &tableWriter[T]{file: file, pw: pw}, nil
}

// close finishes the file with its metadata and renames it into place.
func (t *tableWriter[T]) close(kv [][2]string) error {
	for _, e := range kv {
		t.pw.SetKeyValueMetadata(e[0], e[1])
	}
	err := t.pw.Close()
	if err != nil {
		t.file.Abort()
	} else {
		err = t.file.Commit()
	}
	if err != nil {
		return fmt.Errorf("%s: %w", t.file.Path(), err)
	}
	return nil
}

func (t *tableWriter[T]) abort() { t.file.Abort() }

// Create starts the tables of a replay in dir, which must exist. meta's
// Requests and Events are counted by the Writer.
func Create(dir string, meta Meta) (*Writer, error) {
	return create(dir, meta, RequestRowGroupRows, EventRowGroupRows)
}

// create is Create with row group bounds (tests cross row groups with small
// ones).
func create(dir string, meta Meta, requestRows, eventRows int64) (*Writer, error) {
	if meta.Framer != FramerAISBench && meta.Framer != FramerSSE {
		return nil, fmt.Errorf("tables: framer %q: want %s or %s", meta.Framer, FramerAISBench, FramerSSE)
	}
	requests, err := newTableWriter[RequestRow](dir, RequestsFile, requestRows)
	if err != nil {
		return nil, err
	}
	events, err := newTableWriter[EventRow](dir, EventsFile, eventRows)
	if err != nil {
		requests.abort()
		return nil, err
	}
	meta.Requests, meta.Events = 0, 0
	return &Writer{meta: meta, requests: requests, events: events, reqRow: make([]RequestRow, 1)}, nil
}

// Write adds the next request of the trace and its events, in order. It
// fills in the keys that tie the rows together: request's seq (its place in
// the trace) and each event's request_id, request_seq and seq, in events
// itself. It keeps no row: the caller may reuse events.
func (w *Writer) Write(request RequestRow, events []EventRow) error {
	if w.err != nil {
		return w.err
	}
	request.Seq = w.meta.Requests
	w.reqRow[0] = request
	for i := range events {
		e := &events[i]
		e.RequestID, e.RequestSeq, e.Seq = request.RequestID, request.Seq, int64(i)
	}
	if _, err := w.requests.pw.Write(w.reqRow); err != nil {
		w.err = fmt.Errorf("%s: request %q: %w", w.requests.file.Path(), request.RequestID, err)
		return w.err
	}
	if _, err := w.events.pw.Write(events); err != nil {
		w.err = fmt.Errorf("%s: request %q: %w", w.events.file.Path(), request.RequestID, err)
		return w.err
	}
	w.meta.Requests++
	w.meta.Events += int64(len(events))
	return nil
}

// Close finishes both tables and moves them into place; after an error
// from Write it drops them instead and returns that error.
func (w *Writer) Close() error {
	if w.err != nil {
		w.Abort()
		return w.err
	}
	if err := w.events.close(w.meta.keyValues("events")); err != nil {
		w.requests.abort()
		return err
	}
	return w.requests.close(w.meta.keyValues("requests"))
}

// Abort drops what was written; files already in dir are left untouched.
func (w *Writer) Abort() {
	w.requests.abort()
	w.events.abort()
}
