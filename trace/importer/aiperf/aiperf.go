// Package aiperf reads AIPerf's per-request exports into trace requests.
//
// AIPerf writes two, both one JSON object a request (read by package
// sourcefile, so a pretty-printed object reads too):
//
//   - the records export, profile_export.jsonl, written by default: each
//     request's metadata and the metrics AIPerf computed for it. Two schemas
//     are in use. Up to 0.2: metadata.timestamp_ns, credit_phase,
//     metrics.ttft, metrics.inter_chunk_latency, errors {code, type,
//     message}. In 2026: metadata.request_start_ns, request_ack_ns,
//     request_end_ns, benchmark_phase, metrics.time_to_first_token, errors
//     that may have no code, timeout records without request_ack_ns. Each
//     success becomes time points: the start, start + TTFT, then each next
//     response (+ each inter-chunk latency) — TTFT plus the chunk latencies
//     is the request latency, which is checked. A failure keeps its start
//     and its error. Warm-up records are left out, as AIPerf's summary
//     leaves them out. What it loses: every body byte (no events, classes
//     or read boundaries), the HTTP status (an error's code is kept in its
//     text), the request's prompt.
//
//   - the raw export, profile_export_raw.jsonl (--export-level raw): each
//     SSE message AIPerf parsed, with its time. Each message is
//     re-serialised as SSE text, one chunk a message: one line a packet
//     ("name: value", ": value" for a comment, "name" for a packet without
//     value), the message ended by a blank line. What it loses: the original
//     read boundaries (several messages in one read become chunks with the
//     same time; a message split over reads becomes one chunk at the time
//     AIPerf parsed it), the original line endings (CRLF, CR) and spacing,
//     and the bytes of anything AIPerf did not keep as a packet.
//
// Requests are put in start order (the order they were sent). AIPerf's own
// summary, profile_export_aiperf.json, sits beside the records: Check
// reproduces it from the imported requests.
package aiperf

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/importer/crosscheck"
	"github.com/sseaudit/sseaudit/trace/importer/sourcefile"
)

// Options select what to read.
type Options struct {
	// MaxRequests bounds the requests read (trace.DefaultLimits when 0).
	MaxRequests int64
	// Summary is AIPerf's profile_export_aiperf.json to check the records
	// against and to take the load settings from; nil for none.
	Summary *Summary
}

// Export kinds.
const (
	ExportRecords = "records"
	ExportRaw     = "raw"
)

// item is one request of either export.
type item struct {
	line    int
	startNs int64
	raw     *Record
	rec     *MetricRecord
}

// Reader yields the requests of an export in send order. It reads the
// whole file first to sort it.
type Reader struct {
	name    string
	export  string
	schema  string
	items   []item
	skipped map[string]int // records left out, by phase
	offset  int64
	summary *Summary
	tally   tally
	i       int
	cur     trace.Request
	err     error
	chk     *trace.Checker
}

// Read reads an export, records or raw, whichever it is.
func Read(r io.Reader, name string, opts Options) (*Reader, error) {
	limits := trace.DefaultLimits
	if opts.MaxRequests > 0 {
		limits.MaxRequests = opts.MaxRequests
	}
	rd := &Reader{name: name, chk: trace.NewChecker(name, limits), skipped: map[string]int{}, summary: opts.Summary}
	s := sourcefile.NewScanner(r, name, sourcefile.Limits{})
	for s.Scan() {
		v := s.Value()
		if rd.export == "" {
			rd.export = exportOf(v.Data)
			if rd.export == "" {
				return nil, sourcefile.Errorf(name, v.Line, "%s: want %s, or %s", foreign(v.Data), wantRecords, wantRaw)
			}
		}
		if int64(len(rd.items)) >= limits.MaxRequests {
			return nil, fmt.Errorf("%s: more than %d records: %w", name, limits.MaxRequests, trace.ErrLimit)
		}
		it := item{line: v.Line}
		if rd.export == ExportRaw {
			rec, err := ParseRecord(v.Data)
			if err != nil {
				return nil, sourcefile.Errorf(name, v.Line, "%v: want %s", err, wantRaw)
			}
			rec.Line = v.Line
			it.raw, it.startNs = &rec, rec.StartPerfNs
		} else {
			rec, err := ParseMetricRecord(v.Data)
			if err != nil {
				where := ""
				if rec.ID != "" {
					where = fmt.Sprintf("request %q: ", rec.ID)
				}
				return nil, sourcefile.Errorf(name, v.Line, "%s%v: want %s", where, err, wantRecords)
			}
			rec.Line = v.Line
			if rec.Phase != "" && rec.Phase != "profiling" {
				rd.skipped[rec.Phase]++
				continue
			}
			if rd.schema == "" {
				rd.schema = rec.Schema
			}
			it.rec, it.startNs = &rec, rec.StartNs
		}
		rd.items = append(rd.items, it)
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	if len(rd.items) == 0 {
		if n := len(rd.skipped); n > 0 {
			return nil, sourcefile.Errorf(name, 0, "no profiling records (only %s): want AIPerf's profiling phase", rd.skippedText())
		}
		return nil, sourcefile.Errorf(name, 0, "no records: want %s, or %s", wantRecords, wantRaw)
	}
	sort.SliceStable(rd.items, func(a, b int) bool { return rd.items[a].startNs < rd.items[b].startNs })
	if rd.export == ExportRecords {
		// AIPerf's times are on the epoch: keep nanosecond resolution in
		// float seconds (AISBench's arithmetic) by moving the origin.
		rd.offset = sourcefile.EpochOffset(rd.items[0].startNs)
		rd.tally.offset = rd.offset
	}
	return rd, nil
}

// exportOf tells the export from a first record's keys; "" when neither.
func exportOf(b []byte) string {
	var top map[string]json.RawMessage
	if json.Unmarshal(b, &top) != nil {
		return ""
	}
	switch {
	case top["start_perf_ns"] != nil || top["responses"] != nil:
		return ExportRaw
	case top["metadata"] != nil && (top["metrics"] != nil || top["error"] != nil):
		return ExportRecords
	}
	return ""
}

// foreign says what a first value looks like when it is no AIPerf export.
func foreign(b []byte) string {
	var top map[string]json.RawMessage
	if json.Unmarshal(sourcefile.PythonJSON(b), &top) != nil {
		return "not a JSON object"
	}
	switch {
	case top["experiments"] != nil:
		return `GenAI-Perf's or perf_analyzer's profile export ("experiments"; import it with --from genai-perf)`
	case top["ttfts"] != nil && top["start_times"] != nil:
		return `a vllm bench serve result ("ttfts", "start_times"; import it with --from vllm)`
	case top["ttfts"] != nil:
		return `a vllm bench serve or sglang.bench_serving result ("ttfts"; import it with --from vllm or --from sglang)`
	case top["records"] != nil || top["request_throughput"] != nil:
		return "AIPerf's summary (profile_export_aiperf.json), which has no per-request records"
	}
	keys := make([]string, 0, len(top))
	for k := range top {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) > 6 {
		keys = append(keys[:6], "...")
	}
	return fmt.Sprintf("an object with keys %s", strings.Join(keys, ", "))
}

func (rd *Reader) skippedText() string {
	var parts []string
	for p, n := range rd.skipped {
		parts = append(parts, fmt.Sprintf("%d %s", n, p))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// Export is ExportRecords or ExportRaw.
func (rd *Reader) Export() string { return rd.export }

// Extra is the extra columns of the imported trace: the prompt for the raw
// export (which keeps the payload), none for the records.
func (rd *Reader) Extra() []trace.ExtraColumn {
	if rd.export == ExportRaw {
		return Extra
	}
	return nil
}

// Lost says what the export does not hold that a trace can.
func (rd *Reader) Lost() string {
	if rd.export == ExportRaw {
		return "read boundaries (one chunk a parsed SSE message), original line endings and spacing, bytes AIPerf kept no packet for"
	}
	return "body bytes (no events, event classes or read boundaries: time points only), HTTP status (error codes kept in the error text), prompts"
}

// Meta is the run metadata.
func (rd *Reader) Meta() trace.Meta {
	var m trace.Meta
	m.Set(trace.KeySource, "import aiperf")
	m.Set(trace.KeyRunPrefix+"export", rd.export)
	m.Set(trace.KeyRunPrefix+"lost", rd.Lost())
	if rd.schema != "" {
		m.Set(trace.KeyRunPrefix+"schema", rd.schema)
	}
	if rd.offset != 0 {
		m.Set(trace.KeyRunPrefix+"clock_offset_ns", strconv.FormatInt(rd.offset, 10))
	}
	if len(rd.skipped) > 0 {
		m.Set(trace.KeyRunPrefix+"skipped", rd.skippedText())
	}
	if s := rd.summary; s != nil {
		if s.Concurrency > 0 {
			m.Set(trace.KeyMaxConcurrency, strconv.Itoa(s.Concurrency))
		}
		if s.RequestRate > 0 {
			m.Set(trace.KeyRequestRate, strconv.FormatFloat(s.RequestRate, 'g', -1, 64))
		}
	}
	return m
}

// Notes say what the reader did that a reader of the trace should know.
func (rd *Reader) Notes() []string {
	var n []string
	if rd.export == ExportRecords {
		n = append(n, fmt.Sprintf("%s: AIPerf's records export, schema %s: time points rebuilt from TTFT and the inter-chunk latencies; lost: %s", rd.name, rd.schema, rd.Lost()))
	} else {
		n = append(n, fmt.Sprintf("%s: AIPerf's raw export: each SSE message re-serialised as SSE text; lost: %s", rd.name, rd.Lost()))
	}
	if len(rd.skipped) > 0 {
		n = append(n, fmt.Sprintf("%s: left out %s records (AIPerf's summary counts the profiling phase only)", rd.name, rd.skippedText()))
	}
	return n
}

// Scan moves to the next request.
func (rd *Reader) Scan() bool {
	if rd.err != nil || rd.i >= len(rd.items) {
		return false
	}
	it := &rd.items[rd.i]
	var req trace.Request
	if it.raw != nil {
		id := it.raw.ID
		if id == "" {
			id = fmt.Sprintf("line-%06d", it.line)
		}
		req = it.raw.Request(id)
	} else {
		id := it.rec.ID
		if id == "" {
			id = fmt.Sprintf("line-%06d", it.line)
		}
		req = it.rec.Request(id, rd.offset)
		rd.tally.add(&req)
	}
	rd.chk.File = fmt.Sprintf("%s: line %d", rd.name, it.line)
	if err := rd.chk.Check(&req, trace.Error{RowGroup: -1, Row: -1}); err != nil {
		rd.err = err
		return false
	}
	rd.cur = req
	rd.i++
	return true
}

// Request is the current request, valid until the next Scan.
func (rd *Reader) Request() *trace.Request { return &rd.cur }

// Err is the error that ended the scan, if any.
func (rd *Reader) Err() error { return rd.err }

// Len is the number of requests.
func (rd *Reader) Len() int { return len(rd.items) }

// Check is AIPerf's summary beside the same figures from the requests
// scanned so far (call it after the last Scan); nil when no summary was
// given or the export is the raw one.
func (rd *Reader) Check() *crosscheck.Comparison {
	if rd.summary == nil || rd.export != ExportRecords {
		return nil
	}
	return rd.tally.compare(rd.summary)
}
