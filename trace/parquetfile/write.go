package parquetfile

import (
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/sseaudit/sseaudit/trace"
)

const (
	// DefaultRowGroupRequests is the row group bound, in requests, when
	// WriteOptions.RowGroupRequests is 0.
	DefaultRowGroupRequests = 1024
	// MaxRowGroupBodyBytes bounds the body bytes buffered for one row group.
	MaxRowGroupBodyBytes = 64 << 20
)

// orderedGroup is a Parquet group whose fields keep the order given:
// parquet.Group sorts its fields by name, and the column order of a trace
// (request_id first, extra columns in their order) is part of the format.
type orderedGroup []parquet.Field

type namedNode struct {
	parquet.Node
	name string
}

func (n namedNode) Name() string                      { return n.name }
func (n namedNode) Value(reflect.Value) reflect.Value { return reflect.Value{} }
func (g orderedGroup) ID() int                        { return 0 }
func (g orderedGroup) String() string                 { return fmt.Sprintf("group(%d fields)", len(g)) }
func (g orderedGroup) Type() parquet.Type             { return parquet.Group{}.Type() }
func (g orderedGroup) Optional() bool                 { return false }
func (g orderedGroup) Repeated() bool                 { return false }
func (g orderedGroup) Required() bool                 { return true }
func (g orderedGroup) Leaf() bool                     { return false }
func (g orderedGroup) Fields() []parquet.Field        { return g }
func (g orderedGroup) Encoding() encoding.Encoding    { return nil }
func (g orderedGroup) Compression() compress.Codec    { return nil }
func (g orderedGroup) GoType() reflect.Type           { return reflect.TypeOf(struct{}{}) }
func field(name string, n parquet.Node) parquet.Field { return namedNode{Node: n, name: name} }
func optionalInt64() parquet.Node                     { return parquet.Optional(parquet.Leaf(parquet.Int64Type)) }
func listOf(element parquet.Node) parquet.Node        { return parquet.Optional(parquet.List(element)) }
func requiredLeaf(t parquet.Type) parquet.Node        { return parquet.Required(parquet.Leaf(t)) }
func optionalLeaf(t parquet.Type) parquet.Node        { return parquet.Optional(parquet.Leaf(t)) }
func chunkStruct() parquet.Node {
	return parquet.Required(orderedGroup{
		field("t_ns", requiredLeaf(parquet.Int64Type)),
		field("data", requiredLeaf(parquet.ByteArrayType)),
	})
}

var reservedColumns = []string{"request_id", "t0_ns", "end_ns", "http_status", "error", "chunks",
	"time_points_s", "input_tokens", "output_tokens", "t_ns", "data"}

// buildSchema returns the canonical schema of trace-v1.md for a layout:
// String BYTE_ARRAY for utf8, 3-level LISTs named list/element.
//
// In the flat layout the request-level columns repeat one value on every
// row of a request: they are dictionary-encoded, so that their pages hold a
// small index a row instead of the value (a prompt column was 3.3 GB
// decompressed for 13 MB of prompts), and so that the reader can tell a
// repeated value by its index.
func buildSchema(layout trace.Layout, extra []trace.ExtraColumn) (*parquet.Schema, error) {
	requestLevel := func(leaf parquet.Node) parquet.Node { return leaf }
	if layout == trace.Flat {
		requestLevel = func(leaf parquet.Node) parquet.Node { return parquet.Encoded(leaf, &parquet.RLEDictionary) }
	}
	int64Leaf := func() parquet.Node { return requestLevel(parquet.Leaf(parquet.Int64Type)) }
	stringLeaf := func() parquet.Node { return requestLevel(parquet.String()) }
	g := orderedGroup{
		field("request_id", parquet.Required(stringLeaf())),
		field("t0_ns", parquet.Required(int64Leaf())),
	}
	if layout == trace.Flat {
		g = append(g,
			field("t_ns", optionalInt64()),
			field("data", optionalLeaf(parquet.ByteArrayType)))
	}
	g = append(g,
		field("end_ns", parquet.Optional(int64Leaf())),
		field("http_status", parquet.Optional(requestLevel(parquet.Leaf(parquet.Int32Type)))),
		field("error", parquet.Optional(stringLeaf())))
	if layout == trace.Nested {
		g = append(g, field("chunks", listOf(chunkStruct())))
	}
	g = append(g,
		field("time_points_s", listOf(parquet.Required(requestLevel(parquet.Leaf(parquet.DoubleType))))),
		field("input_tokens", parquet.Optional(int64Leaf())),
		field("output_tokens", parquet.Optional(int64Leaf())))
	seen := map[string]bool{}
	for _, name := range reservedColumns {
		seen[name] = true
	}
	for _, x := range extra {
		if x.Name == "" || seen[x.Name] {
			return nil, fmt.Errorf("extra column %q: want a non-empty name unused by the schema and by other extra columns", x.Name)
		}
		seen[x.Name] = true
		var n parquet.Node
		switch x.Kind {
		case trace.ExtraString, trace.ExtraJSON:
			n = stringLeaf()
		case trace.ExtraBinary:
			n = requestLevel(parquet.Leaf(parquet.ByteArrayType))
		case trace.ExtraInt64:
			n = int64Leaf()
		case trace.ExtraFloat64:
			n = requestLevel(parquet.Leaf(parquet.DoubleType))
		case trace.ExtraBool:
			n = parquet.Leaf(parquet.BooleanType) // a bit a row already
		default:
			return nil, fmt.Errorf("extra column %q has kind %v: want string, int64, float64, bool, binary or json", x.Name, x.Kind)
		}
		g = append(g, field(x.Name, parquet.Optional(n)))
	}
	return parquet.NewSchema("sseaudit_trace", g), nil
}

// NewWriter starts writing a trace as Parquet to w, zstd-compressed, in the
// nested layout unless opts.Layout is trace.Flat.
func NewWriter(w io.Writer, opts trace.WriteOptions) (trace.RequestWriter, error) {
	return newWriter(w, opts, parquet.Compression(&parquet.Zstd))
}

// newWriter is NewWriter with more writer options (tests write other codecs
// and page versions).
func newWriter(w io.Writer, opts trace.WriteOptions, extraOptions ...parquet.WriterOption) (trace.RequestWriter, error) {
	layout := opts.Layout
	if layout == "" {
		layout = trace.Nested
	}
	if layout != trace.Nested && layout != trace.Flat {
		return nil, fmt.Errorf("parquet: layout %q: want %s or %s", layout, trace.Nested, trace.Flat)
	}
	schema, err := buildSchema(layout, opts.Extra)
	if err != nil {
		return nil, fmt.Errorf("parquet: %w", err)
	}
	meta := append(trace.Meta(nil), opts.Meta...)
	if v, ok := meta.Get(trace.KeySchemaVersion); !ok {
		meta.Set(trace.KeySchemaVersion, trace.SchemaVersion)
	} else if strings.TrimSpace(v) != trace.SchemaVersion {
		return nil, fmt.Errorf("parquet: metadata %s is %q: this writer writes version %q", trace.KeySchemaVersion, v, trace.SchemaVersion)
	}
	for _, x := range opts.Extra {
		if x.Kind == trace.ExtraJSON {
			meta.Set(trace.KeyExtraKindPrefix+x.Name, trace.ExtraJSON.String())
		}
	}
	options := append([]parquet.WriterOption{schema, parquet.CreatedBy("sseaudit", "1", "")}, extraOptions...)
	// Min/max statistics of body bytes are useless and as long as a chunk.
	for _, path := range [][]string{{"chunks", "list", "element", "data"}, {"data"}} {
		options = append(options, parquet.SkipPageStatistics(path...), parquet.SkipPageBounds(path...))
	}
	for _, kv := range meta {
		options = append(options, parquet.KeyValueMetadata(kv.Key, kv.Value))
	}
	limit := opts.RowGroupRequests
	if limit <= 0 {
		limit = DefaultRowGroupRequests
	}
	return &writer{pw: parquet.NewGenericWriter[any](w, options...), layout: layout, nExtra: len(opts.Extra),
		extra: opts.Extra, rowGroupRequests: limit}, nil
}

type writer struct {
	pw               *parquet.GenericWriter[any]
	layout           trace.Layout
	nExtra           int
	extra            []trace.ExtraColumn
	rowGroupRequests int
	bufferedRequests int
	bufferedBytes    int64
	rows             []parquet.Row
	closed           bool
	err              error
}

// Leaf column indexes of the request-level columns, by layout.
type columnIndexes struct {
	requestID, t0, tNs, data, end, status, errorText, chunkT, chunkData, timePoint, inputTokens, outputTokens, extra0 int
}

var (
	nestedColumns = columnIndexes{requestID: 0, t0: 1, end: 2, status: 3, errorText: 4, chunkT: 5, chunkData: 6,
		timePoint: 7, inputTokens: 8, outputTokens: 9, extra0: 10, tNs: -1, data: -1}
	flatColumns = columnIndexes{requestID: 0, t0: 1, tNs: 2, data: 3, end: 4, status: 5, errorText: 6,
		timePoint: 7, inputTokens: 8, outputTokens: 9, extra0: 10, chunkT: -1, chunkData: -1}
)

func (w *writer) Write(r *trace.Request) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return fmt.Errorf("parquet: write after close")
	}
	if len(r.Extra) != w.nExtra {
		return fmt.Errorf("parquet: request %q has %d extra values: want %d, one per extra column", r.RequestID, len(r.Extra), w.nExtra)
	}
	w.rows = w.rows[:0]
	if w.layout == trace.Flat {
		_ = trace.FlattenRequest(r, func(row *trace.FlatRow) error {
			w.rows = append(w.rows, w.row(&row.Req, row, flatColumns))
			return nil
		})
	} else {
		w.rows = append(w.rows, w.row(r, nil, nestedColumns))
	}
	if _, err := w.pw.WriteRows(w.rows); err != nil {
		w.err = fmt.Errorf("parquet: writing request %q: %w", r.RequestID, err)
		return w.err
	}
	w.bufferedRequests++
	w.bufferedBytes += r.BodyBytes()
	if w.bufferedRequests >= w.rowGroupRequests || w.bufferedBytes >= MaxRowGroupBodyBytes {
		if err := w.pw.Flush(); err != nil {
			w.err = fmt.Errorf("parquet: writing a row group: %w", err)
			return w.err
		}
		w.bufferedRequests, w.bufferedBytes = 0, 0
	}
	return nil
}

// row builds one Parquet row with its repetition and definition levels; in
// the flat layout fr carries the row's chunk.
func (w *writer) row(r *trace.Request, fr *trace.FlatRow, c columnIndexes) parquet.Row {
	n := 10 + w.nExtra + len(r.Chunks)*2 + len(r.TimePointsS)
	row := make(parquet.Row, 0, n)
	row = append(row,
		parquet.ByteArrayValue([]byte(r.RequestID)).Level(0, 0, c.requestID),
		parquet.Int64Value(r.T0Ns).Level(0, 0, c.t0))
	if fr != nil {
		if fr.ChunkNull {
			row = append(row, parquet.NullValue().Level(0, 0, c.tNs), parquet.NullValue().Level(0, 0, c.data))
		} else {
			row = append(row,
				parquet.Int64Value(fr.Chunk.TNs).Level(0, 1, c.tNs),
				parquet.ByteArrayValue(fr.Chunk.Data).Level(0, 1, c.data))
		}
	}
	row = append(row, optional(r.EndNs, parquet.Int64Value, c.end), optional(r.HTTPStatus, parquet.Int32Value, c.status))
	if r.Error != nil {
		row = append(row, parquet.ByteArrayValue([]byte(*r.Error)).Level(0, 1, c.errorText))
	} else {
		row = append(row, parquet.NullValue().Level(0, 0, c.errorText))
	}
	if fr == nil {
		row = appendList(row, r.Chunks, c.chunkT, func(ch trace.Chunk) parquet.Value { return parquet.Int64Value(ch.TNs) })
		row = appendList(row, r.Chunks, c.chunkData, func(ch trace.Chunk) parquet.Value { return parquet.ByteArrayValue(ch.Data) })
	}
	row = appendList(row, r.TimePointsS, c.timePoint, parquet.DoubleValue)
	row = append(row, optional(r.InputTokens, parquet.Int64Value, c.inputTokens), optional(r.OutputTokens, parquet.Int64Value, c.outputTokens))
	for i, v := range r.Extra {
		row = append(row, extraParquetValue(v, w.extra[i].Kind).Level(0, 1, c.extra0+i))
		if v.Null {
			row[len(row)-1] = parquet.NullValue().Level(0, 0, c.extra0+i)
		}
	}
	return row
}

func optional[T any](p *T, value func(T) parquet.Value, column int) parquet.Value {
	if p == nil {
		return parquet.NullValue().Level(0, 0, column)
	}
	return value(*p).Level(0, 1, column)
}

// appendList appends the values of one leaf of an optional 3-level list
// with a required element: definition 0 is a null list, 1 an empty one, 2 an
// element.
func appendList[T any](row parquet.Row, list []T, column int, value func(T) parquet.Value) parquet.Row {
	switch {
	case list == nil:
		return append(row, parquet.NullValue().Level(0, 0, column))
	case len(list) == 0:
		return append(row, parquet.NullValue().Level(0, 1, column))
	}
	for i, x := range list {
		rep := 1
		if i == 0 {
			rep = 0
		}
		row = append(row, value(x).Level(rep, 2, column))
	}
	return row
}

func extraParquetValue(v trace.Value, kind trace.ExtraKind) parquet.Value {
	switch kind {
	case trace.ExtraString, trace.ExtraJSON:
		return parquet.ByteArrayValue([]byte(v.Str))
	case trace.ExtraBinary:
		return parquet.ByteArrayValue(v.Bytes)
	case trace.ExtraInt64:
		return parquet.Int64Value(v.Int)
	case trace.ExtraFloat64:
		return parquet.DoubleValue(v.Float)
	case trace.ExtraBool:
		return parquet.BooleanValue(v.Bool)
	}
	return parquet.NullValue()
}

// Close writes the last row group and the footer; it does not close the
// underlying writer.
func (w *writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	if err := w.pw.Close(); err != nil && w.err == nil {
		w.err = fmt.Errorf("parquet: finishing the file: %w", err)
	}
	return w.err
}
