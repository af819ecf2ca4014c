package tables

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/replay"
)

// Row group bounds, in rows: a row group is what a writer holds in memory
// and what a reader decodes at once.
const (
	RequestRowGroupRows = 4096
	EventRowGroupRows   = 64 * 1024
)

// Replayed is one request as the tables take it: the trace's t0, what the
// framer replayed and the record audit.Builder takes (audit.RecordFromReplays
// of the same replay).
type Replayed struct {
	T0Ns   int64
	Result *replay.Result
	Record audit.RequestRecord
}

// Writer writes the two tables of one replay into a directory, each to a
// temporary file renamed into place by Close: a reader never sees half a
// table.
type Writer struct {
	meta     Meta
	requests *tableWriter[RequestRow]
	events   *tableWriter[EventRow]
	reqRow   []RequestRow // one row, reused
	evRows   []EventRow   // one request's events, reused
	err      error
}

// tableWriter is one table's temporary file and its Parquet writer.
type tableWriter[T any] struct {
	path string
	tmp  *os.File
	pw   *parquet.GenericWriter[T]
}

func newTableWriter[T any](dir, name string, rowGroupRows int64) (*tableWriter[T], error) {
	path := filepath.Join(dir, name)
	tmp, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return nil, err
	}
	pw := parquet.NewGenericWriter[T](tmp, parquet.Compression(&parquet.Zstd),
		parquet.CreatedBy("sseaudit", SchemaVersion, ""), parquet.MaxRowsPerRowGroup(rowGroupRows))
	return &tableWriter[T]{path: path, tmp: tmp, pw: pw}, nil
}

// close finishes the file with its metadata and renames it into place.
func (t *tableWriter[T]) close(kv [][2]string) error {
	for _, e := range kv {
		t.pw.SetKeyValueMetadata(e[0], e[1])
	}
	err := t.pw.Close()
	if err == nil {
		err = t.tmp.Sync()
	}
	if err == nil {
		err = t.tmp.Chmod(0o644) // CreateTemp makes it private; a table is an ordinary file
	}
	if cerr := t.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(t.tmp.Name(), t.path)
	}
	if err != nil {
		os.Remove(t.tmp.Name())
		return fmt.Errorf("%s: %w", t.path, err)
	}
	return nil
}

func (t *tableWriter[T]) abort() {
	t.tmp.Close()
	os.Remove(t.tmp.Name())
}

// Create starts the tables of a replay in dir, which must exist. meta's
// Requests and Events are counted by the Writer.
func Create(dir string, meta Meta) (*Writer, error) {
	return create(dir, meta, RequestRowGroupRows, EventRowGroupRows)
}

// create is Create with row group bounds (tests cross row groups with small
// ones).
func create(dir string, meta Meta, requestRows, eventRows int64) (*Writer, error) {
	if meta.Framer != replay.AISBench && meta.Framer != replay.SSE {
		return nil, fmt.Errorf("tables: framer %q: want %s or %s", meta.Framer, replay.AISBench, replay.SSE)
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

// Write adds the next request of the trace and its events.
func (w *Writer) Write(r Replayed) error {
	if w.err != nil {
		return w.err
	}
	seq := w.meta.Requests
	w.reqRow[0] = requestRow(seq, r)
	w.evRows = appendEventRows(w.evRows[:0], seq, r)
	if _, err := w.requests.pw.Write(w.reqRow); err != nil {
		w.err = fmt.Errorf("%s: request %q: %w", w.requests.path, r.Record.ID, err)
		return w.err
	}
	if _, err := w.events.pw.Write(w.evRows); err != nil {
		w.err = fmt.Errorf("%s: request %q: %w", w.events.path, r.Record.ID, err)
		return w.err
	}
	w.meta.Requests++
	w.meta.Events += int64(len(w.evRows))
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

// requestRow is the requests row of r, the seq-th request of the trace.
func requestRow(seq int64, r Replayed) RequestRow {
	rec, res := &r.Record, r.Result
	row := RequestRow{
		RequestID: rec.ID, Seq: seq, Success: rec.Success, T0Ns: r.T0Ns,
		TimePointsS: rec.TimePoints, InputTokens: rec.InputTokens, OutputTokens: rec.OutputTokens,
		TokenSource: res.TokenSource, EventRecords: rec.Events != nil, BodyBytes: res.Bytes.Sum(),
	}
	if res.ErrorInfo != "" {
		row.Error = &res.ErrorInfo
	}
	// What AISBench's _calc_perf_data computes for a request it counts as
	// successful (two time points at least).
	if tp := rec.TimePoints; rec.Success && len(tp) >= 2 {
		e2el, ttft := tp[len(tp)-1]-tp[0], tp[1]-tp[0]
		row.E2ELS, row.TTFTS = &e2el, &ttft
		row.ITLIntervals = int64(len(tp) - 2)
		if out := rec.OutputTokens; out != nil && *out > 0 {
			tpot := 0.0
			if *out > 1 {
				tpot = (e2el - ttft) / float64(*out-1)
			}
			row.TPOTS = &tpot
		}
	}
	for i, n := range row.classCounts() {
		*n = int64(res.Counts[replay.Classes[i]])
	}
	if v := rec.Spec; v != nil {
		row.SpecSuccess = &v.Success
		row.SpecEvents, row.SpecFirstNs, row.SpecLastNs = ptr(int64(v.Events)), &v.FirstNs, &v.LastNs
		row.CommentInBlock, row.FieldLines, row.MultiLineData = ptr(int64(v.CommentInBlock)), ptr(int64(v.FieldLines)), ptr(int64(v.MultiLineData))
	}
	return row
}

// appendEventRows appends the events rows of r, the seq-th request. The
// record's time point and token count go to the recorded events when the
// record holds them.
func appendEventRows(dst []EventRow, seq int64, r Replayed) []EventRow {
	rec := &r.Record
	k := 0 // recorded events so far
	for i, e := range r.Result.Events {
		row := EventRow{
			RequestID: rec.ID, RequestSeq: seq, Seq: int64(i), Class: e.Class.String(), TNs: e.TNs,
			Recorded: e.Recorded, PayloadBytes: e.End - e.Start,
			ContentBytes: int64(e.ContentBytes), ReasoningBytes: int64(e.ReasoningBytes),
		}
		if e.Recorded && rec.Events != nil {
			row.TimeS = &rec.TimePoints[k+1]
			if t := rec.Events[k].Tokens; t != -1 {
				row.Tokens = &rec.Events[k].Tokens
			}
			k++
		}
		dst = append(dst, row)
	}
	return dst
}

func ptr[T any](v T) *T { return &v }
