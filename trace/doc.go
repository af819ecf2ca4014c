// Package trace is sseaudit's input: for every streamed request, the client's
// send time and every read of the response body, byte for byte, with its
// arrival time (schema v1, schemas/trace-v1.md).
//
// The pipeline starts here and flows one way: trace → replay → audit.
//
//	r, err := trace.Open("run.parquet", trace.OpenOptions{})
//	defer r.Close()
//	for r.Scan() {
//		req := r.Request() // valid until the next Scan
//		...
//	}
//	if err := r.Err(); err != nil { ... } // a *trace.Error naming file, row, request, column
//
// Formats register themselves: JSONL is built in; Parquet lives in
// trace/parquetfile and Arrow IPC in trace/arrowfile, the only packages that
// know those libraries. A program imports the formats it wants for their side
// effect, as image decoders are imported. Every reader runs its requests
// through a Checker, so every format enforces the same rules with the same
// messages; the flat layout (one row a chunk) is grouped into requests by
// NewFlatReader for every format alike.
//
// Writers go through Create, which writes to a temporary file beside the
// target and renames it into place on Close, so a failed write leaves nothing
// half-written.
package trace
