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
