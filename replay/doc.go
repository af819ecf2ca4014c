// Package replay turns the recorded bytes of one streamed response into
// events, classes and time points, the way AISBench's client would have seen
// them, or the way a standard server-sent-events parser does.
//
// The pipeline, for one trace.Request:
//
//  1. Bytes. The chunks are concatenated once into a body buffer; each chunk
//     keeps its arrival time (t_ns), and the time of any body offset is the
//     time of the read that delivered it. What is still open at the end of
//     the body is delivered at end_ns (else the last chunk's time).
//
//  2. Lines. The aisbench framer delivers the body as aiohttp's readline
//     does: a line ends with its '\n', at the read that brought it. The sse
//     framer cuts lines at CRLF, LF or CR, as the WHATWG algorithm does.
//
//  3. Blocks and events. aisbench: AISBench's iter_lines, literally — each
//     line is joined onto `pending`, \r\n\r\n and \r\r are rewritten to
//     \n\n, the text is split on \n\n, and the last piece is held back when
//     its last byte equals the line's last byte. Each piece is stripped; a
//     piece starting with ':' is a comment (its data lines too); "data:" is
//     removed and the rest stripped again (Python's str.strip); "[DONE]"
//     stops the client. sse: fields are collected until a blank line, which
//     dispatches the event if it has data.
//
//  4. Classes. The payload of each event is classified (classify.go:
//     content > reasoning > tool_call > finish > role > usage_only >
//     metadata_only for JSON objects, plus done, comment, after_done,
//     malformed and error), and every body byte is assigned to one bucket:
//     a class's payload, framing or ignored. The buckets must add up to the
//     body size; Replay checks it. A content payload that differs from the
//     last one parsed only in its text is classified without parsing
//     (template.go): most of a stream.
//
//  5. Time points. aisbench: t0, then one time point per event the client
//     parsed, taken before json.loads, at the time of the read that
//     completed the event. An exception (bad JSON, a payload
//     parse_stream_response chokes on, invalid UTF-8, a transport error)
//     fails the attempt; the retry sees the same body, so the request fails
//     with its time points cleared. A status other than 200 fails with [t0];
//     a success with fewer than two time points fails with "chunk size is
//     less than 2" (RequestOutput.get_metrics). Seconds are float64(ns)/1e9,
//     the value time.perf_counter() would have returned. sse: t0 plus one
//     time point per dispatched data event before [DONE].
//
// Token counts follow AISBench: every truthy usage overwrites both counts, so
// the last one wins; a count left at 0 falls back to the trace's
// input_tokens/output_tokens columns.
//
// An aisbench replay also gives the sse framer's outcome (Result.SSE) when
// the body holds none of the constructs the two framers cut differently
// (agree.go lists them), so that the sse replay is needed only then.
//
// Three more framers cut the body as other tools' clients do and hand on
// their Messages (clients.go): vllm (vllm bench serve: each read stripped,
// then StreamedResponseHandler's buffer, vllm.go), sglang (SGLang's
// bench_serving: aiohttp's lines, each stripped, sglang.go) and evalscope
// (EvalScope perf: each read decoded, CRLF made LF, blocks' data lines
// joined, evalscope.go). With
// Options.Messages the aisbench framer hands on the payloads its client
// parsed too. What a message means (timed, counted, failing the request)
// is the tool's request function's, in its calculator (calc/vllm,
// calc/sglang, calc/evalscope).
//
// A Replayer reuses its body buffer and JSON parser from one request to the
// next; Replay is the one-off convenience.
package replay
