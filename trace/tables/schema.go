package tables

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/sseaudit/sseaudit/trace"
)

// SchemaVersion is the version of schemas/replay-tables-v1.md this package
// writes and the only one it reads.
const SchemaVersion = "1"

// The file names inside a tables directory.
const (
	RequestsFile = "requests.parquet"
	EventsFile   = "events.parquet"
)

// Metadata keys of both files.
const (
	KeySchemaVersion = "sseaudit.tables.schema_version"
	KeyTable         = "sseaudit.tables.table" // "requests" or "events": the two files cannot be swapped
	KeyFramer        = "sseaudit.tables.framer"
	KeySourceTrace   = "sseaudit.tables.source_trace"
	KeyWriter        = "sseaudit.tables.writer"
	KeyRequests      = "sseaudit.tables.requests" // rows of requests.parquet, in both files: they pair up
	KeyEvents        = "sseaudit.tables.events"   // rows of events.parquet, in both files
	// KeyMaxConcurrency is the trace's own key: C travels unchanged.
	KeyMaxConcurrency = trace.KeyMaxConcurrency
)

// The framers a replay may have used: the values of KeyFramer, spelled as
// package replay spells its framers (audit's TestTableNames checks).
const (
	FramerAISBench = "aisbench"
	FramerSSE      = "sse"
)

// ClassNames are the event classes of the schema: the values of
// EventRow.Class and the events_<class> columns, in replay.Classes' order
// and spelling (audit's TestTableNames checks).
var ClassNames = []string{
	"role", "reasoning", "content", "tool_call", "finish", "usage_only",
	"metadata_only", "done", "comment", "after_done", "malformed", "error",
}

// RequestRow is one row of requests.parquet. Column order, names and types
// are the schema; schemas/replay-tables-v1.md defines each.
type RequestRow struct {
	RequestID    string    `parquet:"request_id"`
	Seq          int64     `parquet:"seq"`
	Success      bool      `parquet:"success"`
	Error        *string   `parquet:"error"`
	T0Ns         int64     `parquet:"t0_ns"`
	TimePointsS  []float64 `parquet:"time_points_s,list"`
	InputTokens  *int64    `parquet:"input_tokens"`
	OutputTokens *int64    `parquet:"output_tokens"`
	TokenSource  string    `parquet:"token_source"`
	TTFTS        *float64  `parquet:"ttft_s"`
	E2ELS        *float64  `parquet:"e2el_s"`
	TPOTS        *float64  `parquet:"tpot_s"`
	ITLIntervals int64     `parquet:"itl_intervals"`
	EventRecords bool      `parquet:"event_records"`
	BodyBytes    int64     `parquet:"body_bytes"`

	EventsRole         int64 `parquet:"events_role"`
	EventsReasoning    int64 `parquet:"events_reasoning"`
	EventsContent      int64 `parquet:"events_content"`
	EventsToolCall     int64 `parquet:"events_tool_call"`
	EventsFinish       int64 `parquet:"events_finish"`
	EventsUsageOnly    int64 `parquet:"events_usage_only"`
	EventsMetadataOnly int64 `parquet:"events_metadata_only"`
	EventsDone         int64 `parquet:"events_done"`
	EventsComment      int64 `parquet:"events_comment"`
	EventsAfterDone    int64 `parquet:"events_after_done"`
	EventsMalformed    int64 `parquet:"events_malformed"`
	EventsError        int64 `parquet:"events_error"`

	SpecSuccess    *bool  `parquet:"spec_success"`
	SpecEvents     *int64 `parquet:"spec_events"`
	SpecFirstNs    *int64 `parquet:"spec_first_ns"`
	SpecLastNs     *int64 `parquet:"spec_last_ns"`
	CommentInBlock *int64 `parquet:"comment_in_block"`
	FieldLines     *int64 `parquet:"field_lines"`
	MultiLineData  *int64 `parquet:"multi_line_data"`
}

// ClassCounts are the events_<class> columns of r, in ClassNames order.
func (r *RequestRow) ClassCounts() []*int64 {
	return []*int64{&r.EventsRole, &r.EventsReasoning, &r.EventsContent, &r.EventsToolCall, &r.EventsFinish,
		&r.EventsUsageOnly, &r.EventsMetadataOnly, &r.EventsDone, &r.EventsComment, &r.EventsAfterDone,
		&r.EventsMalformed, &r.EventsError}
}

// EventRow is one row of events.parquet: one event as the framer cut it.
type EventRow struct {
	RequestID      string   `parquet:"request_id"`
	RequestSeq     int64    `parquet:"request_seq"`
	Seq            int64    `parquet:"seq"`
	Class          string   `parquet:"class"`
	TNs            int64    `parquet:"t_ns"`
	TimeS          *float64 `parquet:"time_s"`
	Recorded       bool     `parquet:"recorded"`
	PayloadBytes   int64    `parquet:"payload_bytes"`
	ContentBytes   int64    `parquet:"content_bytes"`
	ReasoningBytes int64    `parquet:"reasoning_bytes"`
	Tokens         *int64   `parquet:"tokens"`
}

var (
	requestsSchema = parquet.SchemaOf(RequestRow{})
	eventsSchema   = parquet.SchemaOf(EventRow{})
)

// classIndex maps a class's name to its place in ClassNames.
var classIndex = func() map[string]int {
	m := make(map[string]int, len(ClassNames))
	for i, name := range ClassNames {
		m[name] = i
	}
	return m
}()

// Meta is what the files' key-value metadata say about the replay.
type Meta struct {
	Framer         string // FramerAISBench or FramerSSE
	MaxConcurrency int    // 0 when unknown (the key is then absent)
	SourceTrace    string // the replayed trace's file name
	Writer         string // the program that wrote the tables, with its version
	// Requests and Events are the rows of each table; the Writer sets
	// them on Close.
	Requests, Events int64
}

// keyValues are the metadata of table (requests or events) for m.
func (m Meta) keyValues(table string) [][2]string {
	kv := [][2]string{
		{KeySchemaVersion, SchemaVersion},
		{KeyTable, table},
		{KeyFramer, m.Framer},
		{KeySourceTrace, m.SourceTrace},
		{KeyWriter, m.Writer},
		{KeyRequests, strconv.FormatInt(m.Requests, 10)},
		{KeyEvents, strconv.FormatInt(m.Events, 10)},
	}
	if m.MaxConcurrency > 0 {
		kv = append(kv, [2]string{KeyMaxConcurrency, strconv.Itoa(m.MaxConcurrency)})
	}
	return kv
}

// metaFrom reads and checks the metadata of a file holding table.
func metaFrom(kv map[string]string, table string) (Meta, error) {
	v, ok := kv[KeySchemaVersion]
	switch {
	case !ok:
		return Meta{}, fmt.Errorf("no %s in the file's metadata: want %q (not a replay table written by audit replay --format parquet?)", KeySchemaVersion, SchemaVersion)
	case v != SchemaVersion:
		return Meta{}, fmt.Errorf("%s is %q: this reader reads version %q", KeySchemaVersion, v, SchemaVersion)
	}
	if got := kv[KeyTable]; got != table {
		return Meta{}, fmt.Errorf("%s is %q: want %q", KeyTable, got, table)
	}
	m := Meta{Framer: kv[KeyFramer], SourceTrace: kv[KeySourceTrace], Writer: kv[KeyWriter]}
	if m.Framer != FramerAISBench && m.Framer != FramerSSE {
		return Meta{}, fmt.Errorf("%s is %q: want %s or %s", KeyFramer, m.Framer, FramerAISBench, FramerSSE)
	}
	for _, c := range []struct {
		key string
		n   *int64
	}{{KeyRequests, &m.Requests}, {KeyEvents, &m.Events}} {
		n, err := strconv.ParseInt(kv[c.key], 10, 64)
		if err != nil || n < 0 {
			return Meta{}, fmt.Errorf("%s is %q: want a row count", c.key, kv[c.key])
		}
		*c.n = n
	}
	if _, ok := kv[KeyMaxConcurrency]; ok {
		c, _, err := trace.MetaFromMap(map[string]string{KeyMaxConcurrency: kv[KeyMaxConcurrency]}).MaxConcurrency()
		if err != nil {
			return Meta{}, err
		}
		m.MaxConcurrency = c
	}
	return m, nil
}

// checkSchema names the first column of got that differs from want.
func checkSchema(got, want *parquet.Schema) error {
	for _, path := range want.Columns() {
		name := strings.Join(path, ".")
		w, _ := want.Lookup(path...)
		g, ok := got.Lookup(path...)
		if !ok {
			return fmt.Errorf("no column %s: want the columns of replay tables v%s", name, SchemaVersion)
		}
		if g.ColumnIndex != w.ColumnIndex || g.MaxRepetitionLevel != w.MaxRepetitionLevel ||
			g.MaxDefinitionLevel != w.MaxDefinitionLevel || !parquet.EqualNodes(g.Node, w.Node) {
			return fmt.Errorf("column %s is %v at position %d: want %v at position %d", name, g.Node, g.ColumnIndex, w.Node, w.ColumnIndex)
		}
	}
	if n, m := len(got.Columns()), len(want.Columns()); n != m {
		return fmt.Errorf("%d columns: want the %d of replay tables v%s", n, m, SchemaVersion)
	}
	return nil
}
