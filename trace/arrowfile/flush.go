package arrowfile

import "fmt"

// Flush writes the requests buffered so far as one record batch, at once,
// whatever WriteOptions.RowGroupRequests says. A stream (.arrows) cut short
// after a flushed batch still reads up to that batch, since the stream
// reader takes a missing end-of-stream marker at a message boundary as the
// end: `audit capture` flushes every few requests and every second so that
// a crash loses only what was not flushed.
//
// (Added by the capture work, issue 6; the writers' other behaviour is
// unchanged.)
func (w *writer) Flush() error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return fmt.Errorf("arrow writer: Flush after Close")
	}
	return w.flush()
}

// Start writes the stream's schema now, with an empty record batch (arrow-go
// writes the schema with the first batch), unless something was written
// already: a stream cut after it reads as a valid trace of no request.
// `audit capture` starts its file so, so that a capture killed before its
// first batch leaves a trace, not an empty file.
//
// (Added for issue 21.)
func (w *writer) Start() error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return fmt.Errorf("arrow writer: Start after Close")
	}
	if w.started {
		return nil
	}
	rec := w.b.NewRecordBatch()
	defer rec.Release()
	if err := w.out.Write(rec); err != nil {
		w.err = fmt.Errorf("arrow writer: %w", err)
		return w.err
	}
	w.started = true
	return nil
}
