// Package tap is a recording reverse proxy: it stands between any benchmark
// client and the server it measures, forwards every request and answer
// unchanged, and records what went over the wire into a trace.
//
// The path of one exchange:
//
//  1. The request's body is read whole (it is recorded, and its prompt
//     read); t0 is the moment its last byte reached the tap.
//  2. The request goes to the upstream through net/http/httputil's
//     ReverseProxy with FlushInterval -1: method, path, query, headers less
//     the hop-by-hop ones, body. No X-Forwarded header is added.
//  3. The answer's status and headers go back as they came; its body is
//     read a read at a time, and each read is written to the client and
//     flushed before the next: no buffering, no re-chunking. A gzip (or any
//     other) Content-Encoding passes through untouched.
//  4. Each read of the answer's body is recorded with its arrival time, on
//     the tap's monotonic clock (ns since the tap started). When the
//     exchange ends (the body's end, an upstream reset, the client gone) it
//     is handed to the writer, which writes exchanges in the order they end
//     into a crash-safe Arrow IPC stream (capture.File): a record batch
//     every few exchanges and every second.
//
// What the trace holds of an exchange (see Extra): the status, the reads,
// the error, the request's prompt (for serve --match) and whole body, the
// answer's Content-Type and Content-Encoding (the body is kept as received;
// trace readers decode it, see package contentcoding), the streams in
// flight when it started. Never a header of the request: an API key in
// Authorization, api-key or any other header cannot reach the file, nor
// the query string (only the path is kept).
package tap
