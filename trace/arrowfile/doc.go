// Package arrowfile reads and writes sseaudit traces (schemas/trace-v1.md) in
// the Arrow IPC file format (.arrow, .feather; format "arrow") and stream
// format (.arrows; format "arrows"), in both the nested and the flat layout.
//
// Readers go one record batch at a time and copy every value out of the
// Arrow buffers, so that a Request outlives the batch it came from. Every
// request goes through a trace.Checker; flat files are grouped by package
// trace after a first pass over their request_id column.
//
// Hostile input: the IPC metadata is checked before arrow-go decodes it
// (fbcheck.go), message lengths are bounded by the file size, decoded
// buffers by a memory budget (alloc.go), and array offsets and bitmaps are
// validated before any value is read (decode.go). Arrow-go may still panic
// on corrupt input; the readers recover at their boundary and report a
// *trace.Error "corrupt Arrow IPC data".
//
// Writers write the canonical types of the schema, zstd-compressed, in
// record batches of at most WriteOptions.RowGroupRequests requests (1024 by
// default) or 64 MiB of body bytes.
package arrowfile
