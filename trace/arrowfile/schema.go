package arrowfile

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/sseaudit/sseaudit/trace"
)

func init() {
	trace.Register(&trace.Format{Name: "arrow", Extensions: []string{".arrow", ".feather"}, Open: OpenFile, NewWriter: NewFileWriter, Layouts: []trace.Layout{trace.Nested, trace.Flat}})
	trace.Register(&trace.Format{Name: "arrows", Extensions: []string{".arrows"}, Open: OpenStream, NewWriter: NewStreamWriter, Layouts: []trace.Layout{trace.Nested, trace.Flat}})
}

// Column names of schemas/trace-v1.md.
const (
	colRequestID    = "request_id"
	colT0Ns         = "t0_ns"
	colEndNs        = "end_ns"
	colHTTPStatus   = "http_status"
	colError        = "error"
	colChunks       = "chunks"
	colTimePointsS  = "time_points_s"
	colInputTokens  = "input_tokens"
	colOutputTokens = "output_tokens"
	colTNs          = "t_ns"
	colData         = "data"
)

// Type descriptions used in error messages, so that they say what was expected.
const (
	wantString     = "utf8 (or large_utf8, string_view, or a dictionary of them)"
	wantBinary     = "binary (or large_binary, binary_view)"
	wantInt64      = "int64"
	wantHTTPStatus = "int32 (or int64)"
	wantChunks     = "list<struct<t_ns: int64, data: binary>> (or large_list)"
	wantTimePoints = "list<float64> (or large_list)"
)

// schemaMap is where each known column of a trace sits in an Arrow schema
// (-1 when absent), and which columns are extra.
type schemaMap struct {
	layout                                   trace.Layout
	requestID, t0Ns, endNs, httpStatus, errC int
	chunks, timePointsS                      int
	inputTokens, outputTokens                int
	tNs, data                                int // flat layout only
	extra                                    []extraField
}

type extraField struct {
	index int // in the schema
	col   trace.ExtraColumn
}

func isString(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return true
	}
	return false
}

// isText is isString, or a dictionary of strings (pandas writes a
// categorical column so).
func isText(t arrow.DataType) bool {
	if d, ok := t.(*arrow.DictionaryType); ok {
		return isString(d.ValueType)
	}
	return isString(t)
}

func isBinary(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.BINARY, arrow.LARGE_BINARY, arrow.BINARY_VIEW:
		return true
	}
	return false
}

// listElem returns the element type of a list or large_list, whatever its
// element field is called ("item", "element", ...).
func listElem(t arrow.DataType) (arrow.DataType, bool) {
	switch lt := t.(type) {
	case *arrow.ListType:
		return lt.Elem(), true
	case *arrow.LargeListType:
		return lt.Elem(), true
	}
	return nil, false
}

// chunkStructFields returns the positions of t_ns and data in the chunks
// element struct, or false when the type is not the one expected.
func chunkStructFields(t arrow.DataType) (tNs, data int, ok bool) {
	elem, ok := listElem(t)
	if !ok {
		return 0, 0, false
	}
	st, ok := elem.(*arrow.StructType)
	if !ok || st.NumFields() != 2 {
		return 0, 0, false
	}
	tNs, okT := st.FieldIdx(colTNs)
	data, okD := st.FieldIdx(colData)
	if !okT || !okD || st.Field(tNs).Type.ID() != arrow.INT64 || !isBinary(st.Field(data).Type) {
		return 0, 0, false
	}
	return tNs, data, true
}

// mapSchema finds the layout and the columns of a trace in schema, checking
// every known column's type. Errors are *trace.Error naming the column.
func mapSchema(file string, schema *arrow.Schema) (*schemaMap, error) {
	fieldErr := func(name, format string, args ...any) error {
		e := trace.FileError(file, nil, format, args...)
		e.Column = name
		return e
	}
	idx := func(name string) int {
		is := schema.FieldIndices(name)
		if len(is) == 0 {
			return -1
		}
		return is[0]
	}
	for _, f := range schema.Fields() {
		if len(schema.FieldIndices(f.Name)) > 1 {
			return nil, fieldErr(f.Name, "the schema has more than one field named %q: want unique field names", f.Name)
		}
	}
	m := &schemaMap{
		requestID: idx(colRequestID), t0Ns: idx(colT0Ns), endNs: idx(colEndNs),
		httpStatus: idx(colHTTPStatus), errC: idx(colError), chunks: idx(colChunks),
		timePointsS: idx(colTimePointsS), inputTokens: idx(colInputTokens),
		outputTokens: idx(colOutputTokens), tNs: idx(colTNs), data: idx(colData),
	}
	switch {
	case m.chunks >= 0 && (m.tNs >= 0 || m.data >= 0):
		return nil, fieldErr(colChunks, "the schema has both %s (nested layout) and %s/%s (flat layout): want one layout", colChunks, colTNs, colData)
	case m.chunks >= 0:
		m.layout = trace.Nested
	case m.tNs >= 0 && m.data >= 0:
		m.layout = trace.Flat
	case m.tNs >= 0:
		return nil, fieldErr(colData, "missing field %s: the flat layout wants both %s and %s", colData, colTNs, colData)
	case m.data >= 0:
		return nil, fieldErr(colTNs, "missing field %s: the flat layout wants both %s and %s", colTNs, colTNs, colData)
	default:
		return nil, fieldErr(colChunks, "no %s field (nested layout) nor %s and %s fields (flat layout): want one of the layouts of trace schema v1", colChunks, colTNs, colData)
	}

	type check struct {
		name string
		at   int
		ok   func(arrow.DataType) bool
		want string
	}
	int64Type := func(t arrow.DataType) bool { return t.ID() == arrow.INT64 }
	checks := []check{
		{colRequestID, m.requestID, isText, wantString},
		{colT0Ns, m.t0Ns, int64Type, wantInt64},
		{colEndNs, m.endNs, int64Type, wantInt64},
		{colHTTPStatus, m.httpStatus, func(t arrow.DataType) bool { return t.ID() == arrow.INT32 || t.ID() == arrow.INT64 }, wantHTTPStatus},
		{colError, m.errC, isText, wantString},
		{colTimePointsS, m.timePointsS, func(t arrow.DataType) bool {
			e, ok := listElem(t)
			return ok && e.ID() == arrow.FLOAT64
		}, wantTimePoints},
		{colInputTokens, m.inputTokens, int64Type, wantInt64},
		{colOutputTokens, m.outputTokens, int64Type, wantInt64},
	}
	if m.layout == trace.Nested {
		checks = append(checks, check{colChunks, m.chunks, func(t arrow.DataType) bool {
			_, _, ok := chunkStructFields(t)
			return ok
		}, wantChunks})
	} else {
		checks = append(checks, check{colTNs, m.tNs, int64Type, wantInt64}, check{colData, m.data, isBinary, wantBinary})
	}
	for _, c := range checks {
		if c.at < 0 {
			if c.name == colRequestID || c.name == colT0Ns {
				return nil, fieldErr(c.name, "missing required field %s: want a field of type %s", c.name, c.want)
			}
			continue
		}
		if t := schema.Field(c.at).Type; !c.ok(t) {
			return nil, fieldErr(c.name, "field %s has type %s: want %s", c.name, t, c.want)
		}
	}

	known := []int{m.requestID, m.t0Ns, m.endNs, m.httpStatus, m.errC, m.chunks, m.timePointsS, m.inputTokens, m.outputTokens, m.tNs, m.data}
	md := schema.Metadata()
	for i, f := range schema.Fields() {
		if slices.Contains(known, i) {
			continue
		}
		kind, err := extraKind(f, md)
		if err != nil {
			return nil, fieldErr(f.Name, "%v", err)
		}
		m.extra = append(m.extra, extraField{index: i, col: trace.ExtraColumn{Name: f.Name, Kind: kind}})
	}
	return m, nil
}

// extraKind is the trace.ExtraKind of an extra field: its Arrow type, and
// for utf8 fields the sseaudit.extra_kind.<name> metadata key.
func extraKind(f arrow.Field, md arrow.Metadata) (trace.ExtraKind, error) {
	var kind trace.ExtraKind
	switch {
	case isText(f.Type):
		kind = trace.ExtraString
	case isBinary(f.Type):
		kind = trace.ExtraBinary
	case f.Type.ID() == arrow.INT64:
		kind = trace.ExtraInt64
	case f.Type.ID() == arrow.FLOAT64:
		kind = trace.ExtraFloat64
	case f.Type.ID() == arrow.BOOL:
		kind = trace.ExtraBool
	default:
		return 0, fmt.Errorf("extra field %s has type %s: want utf8, int64, float64, bool or binary", f.Name, f.Type)
	}
	declared, ok := md.GetValue(trace.KeyExtraKindPrefix + f.Name)
	if !ok {
		return kind, nil
	}
	dk, known := trace.ParseExtraKind(declared)
	switch {
	case !known:
		return 0, fmt.Errorf("metadata %s%s = %q: want one of string, int64, float64, bool, binary, json", trace.KeyExtraKindPrefix, f.Name, declared)
	case dk == trace.ExtraJSON && kind == trace.ExtraString:
		return trace.ExtraJSON, nil
	case dk != kind:
		return 0, fmt.Errorf("metadata %s%s = %q but the field has type %s: want %s", trace.KeyExtraKindPrefix, f.Name, declared, f.Type, kindArrowType(dk))
	}
	return kind, nil
}

func kindArrowType(k trace.ExtraKind) string {
	switch k {
	case trace.ExtraString, trace.ExtraJSON:
		return "utf8"
	case trace.ExtraInt64:
		return "int64"
	case trace.ExtraFloat64:
		return "float64"
	case trace.ExtraBool:
		return "bool"
	case trace.ExtraBinary:
		return "binary"
	}
	return k.String()
}

func extraArrowType(k trace.ExtraKind) (arrow.DataType, error) {
	switch k {
	case trace.ExtraString, trace.ExtraJSON:
		return arrow.BinaryTypes.String, nil
	case trace.ExtraInt64:
		return arrow.PrimitiveTypes.Int64, nil
	case trace.ExtraFloat64:
		return arrow.PrimitiveTypes.Float64, nil
	case trace.ExtraBool:
		return arrow.FixedWidthTypes.Boolean, nil
	case trace.ExtraBinary:
		return arrow.BinaryTypes.Binary, nil
	}
	return nil, fmt.Errorf("unknown extra column kind %v", k)
}

// chunkType is the canonical chunks element type.
var chunkType = arrow.StructOf(
	arrow.Field{Name: colTNs, Type: arrow.PrimitiveTypes.Int64},
	arrow.Field{Name: colData, Type: arrow.BinaryTypes.Binary},
)

// canonicalSchema is the Arrow schema the writers write for a layout and
// extra columns, with meta as the schema metadata.
func canonicalSchema(layout trace.Layout, extra []trace.ExtraColumn, meta trace.Meta) (*arrow.Schema, error) {
	i64 := arrow.PrimitiveTypes.Int64
	fields := []arrow.Field{
		{Name: colRequestID, Type: arrow.BinaryTypes.String},
		{Name: colT0Ns, Type: i64},
	}
	if layout == trace.Flat {
		fields = append(fields,
			arrow.Field{Name: colTNs, Type: i64, Nullable: true},
			arrow.Field{Name: colData, Type: arrow.BinaryTypes.Binary, Nullable: true})
	}
	fields = append(fields,
		arrow.Field{Name: colEndNs, Type: i64, Nullable: true},
		arrow.Field{Name: colHTTPStatus, Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: colError, Type: arrow.BinaryTypes.String, Nullable: true})
	if layout != trace.Flat {
		fields = append(fields, arrow.Field{Name: colChunks, Type: arrow.ListOf(chunkType), Nullable: true})
	}
	fields = append(fields,
		arrow.Field{Name: colTimePointsS, Type: arrow.ListOf(arrow.PrimitiveTypes.Float64), Nullable: true},
		arrow.Field{Name: colInputTokens, Type: i64, Nullable: true},
		arrow.Field{Name: colOutputTokens, Type: i64, Nullable: true})
	seen := map[string]bool{}
	for _, f := range fields {
		seen[f.Name] = true
	}
	for _, x := range extra {
		if seen[x.Name] || x.Name == colChunks || x.Name == colTNs || x.Name == colData {
			return nil, fmt.Errorf("extra column %q: the name is taken by the trace schema or another extra column", x.Name)
		}
		seen[x.Name] = true
		t, err := extraArrowType(x.Kind)
		if err != nil {
			return nil, fmt.Errorf("extra column %q: %w", x.Name, err)
		}
		fields = append(fields, arrow.Field{Name: x.Name, Type: t, Nullable: true})
	}

	// The extra kinds in the metadata follow opts.Extra, whatever the
	// caller's metadata said about them.
	var keys, values []string
	for _, kv := range meta {
		if !strings.HasPrefix(kv.Key, trace.KeyExtraKindPrefix) {
			keys, values = append(keys, kv.Key), append(values, kv.Value)
		}
	}
	if _, ok := meta.Get(trace.KeySchemaVersion); !ok {
		keys, values = append(keys, trace.KeySchemaVersion), append(values, trace.SchemaVersion)
	}
	for _, x := range extra {
		if x.Kind == trace.ExtraJSON {
			keys, values = append(keys, trace.KeyExtraKindPrefix+x.Name), append(values, trace.ExtraJSON.String())
		}
	}
	md := arrow.NewMetadata(keys, values)
	return arrow.NewSchema(fields, &md), nil
}
