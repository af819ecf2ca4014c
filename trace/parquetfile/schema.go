package parquetfile

import (
	"fmt"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"
	"github.com/sseaudit/sseaudit/trace"
)

// role is what a leaf column of the file holds.
type role uint8

const (
	roleNone role = iota
	roleRequestID
	roleT0
	roleEnd
	roleStatus
	roleError
	roleChunkT
	roleChunkData
	roleTimePoint
	roleInputTokens
	roleOutputTokens
	roleFlatT
	roleFlatData
	roleExtra
)

// leaf describes one leaf column: its role and how to read its levels.
type leaf struct {
	role   role
	column string       // top-level column name, for errors
	kind   parquet.Kind // physical type
	maxRep int
	maxDef int
	// For list columns: a definition level below nonNullDef is a null list,
	// below elemDef an empty one; at maxDef the element's value is present.
	nonNullDef int
	elemDef    int
	extra      int // index in fileSchema.extra for roleExtra
	// scale is the nanoseconds in one unit of a time column (t0_ns,
	// end_ns, t_ns): 1 for plain INT64 nanoseconds, 1000 for a
	// TIMESTAMP(MICROS) column (what DuckDB writes for a timestamp), and
	// so on; 0 for other columns.
	scale int64
}

// fileSchema is what the reader learned from a file's columns.
type fileSchema struct {
	layout trace.Layout
	leaves []leaf // by leaf column index
	extra  []trace.ExtraColumn
	// idColumn is the leaf index of request_id (read alone by the flat
	// layout's contiguity pass).
	idColumn int
}

// schemaError is a *trace.Error about one column of the file.
func schemaError(file, column, format string, args ...any) *trace.Error {
	e := trace.FileError(file, nil, format, args...)
	e.Column = column
	return e
}

// analyze works out the layout and the role of every leaf column from the
// file's schema, accepting the physical and logical variants other writers
// produce (list encodings, INT64 http_status, strings without annotation).
func analyze(file string, root *parquet.Column, meta map[string]string) (*fileSchema, error) {
	s := &fileSchema{idColumn: -1}
	top := root.Columns()
	nLeaves := 0
	for _, c := range top {
		nLeaves += countLeaves(c)
	}
	s.leaves = make([]leaf, nLeaves)
	seen := map[string]bool{}
	for _, c := range top {
		name := c.Name()
		if seen[name] {
			return nil, schemaError(file, name, "appears twice: want unique column names")
		}
		seen[name] = true
		var err error
		switch name {
		case "request_id":
			err = s.scalar(file, c, roleRequestID, "BYTE_ARRAY (String)", parquet.ByteArray)
			if err == nil {
				s.idColumn = c.Index()
			}
		case "t0_ns":
			err = s.timeScalar(file, c, roleT0)
		case "end_ns":
			err = s.timeScalar(file, c, roleEnd)
		case "http_status":
			err = s.scalar(file, c, roleStatus, "INT32 (or INT64 within the int32 range)", parquet.Int32, parquet.Int64)
		case "error":
			err = s.scalar(file, c, roleError, "BYTE_ARRAY (String)", parquet.ByteArray)
		case "input_tokens":
			err = s.scalar(file, c, roleInputTokens, "INT64", parquet.Int64)
		case "output_tokens":
			err = s.scalar(file, c, roleOutputTokens, "INT64", parquet.Int64)
		case "t_ns":
			err = s.timeScalar(file, c, roleFlatT)
		case "data":
			err = s.scalar(file, c, roleFlatData, "BYTE_ARRAY", parquet.ByteArray)
		case "chunks":
			err = s.chunks(file, c)
		case "time_points_s":
			err = s.timePoints(file, c)
		default:
			err = s.extraColumn(file, c, meta)
		}
		if err != nil {
			return nil, err
		}
	}
	for _, required := range []struct{ name, typ string }{{"request_id", "BYTE_ARRAY (String)"}, {"t0_ns", "INT64"}} {
		if !seen[required.name] {
			return nil, schemaError(file, required.name, "missing: want a required %s column %s", required.typ, required.name)
		}
	}
	switch {
	case seen["chunks"] && (seen["t_ns"] || seen["data"]):
		return nil, schemaError(file, "chunks", "both a chunks column (nested layout) and t_ns/data columns (flat layout): want one layout")
	case seen["chunks"]:
		s.layout = trace.Nested
	case seen["t_ns"] && seen["data"]:
		s.layout = trace.Flat
	default:
		return nil, trace.FileError(file, nil, "neither a chunks column (nested layout) nor t_ns and data columns (flat layout): want one of them")
	}
	return s, nil
}

func countLeaves(c *parquet.Column) int {
	if c.Leaf() {
		return 1
	}
	n := 0
	for _, k := range c.Columns() {
		n += countLeaves(k)
	}
	return n
}

func kindIn(k parquet.Kind, kinds []parquet.Kind) bool {
	for _, x := range kinds {
		if k == x {
			return true
		}
	}
	return false
}

// typeName describes a column's type for error messages.
func typeName(c *parquet.Column) string {
	if !c.Leaf() {
		if c.Repeated() {
			return "a repeated group"
		}
		return "a group (list or struct)"
	}
	name := c.Type().Kind().String()
	if lt := c.Type().LogicalType(); lt != nil && lt.Value != nil {
		name += " (" + lt.String() + ")"
	}
	if c.Repeated() {
		name = "repeated " + name
	}
	return name
}

func (s *fileSchema) scalar(file string, c *parquet.Column, r role, want string, kinds ...parquet.Kind) error {
	if !c.Leaf() || c.Repeated() || !kindIn(c.Type().Kind(), kinds) {
		return schemaError(file, c.Name(), "has type %s: want %s", typeName(c), want)
	}
	s.leaves[c.Index()] = leaf{role: r, column: c.Name(), kind: c.Type().Kind(), maxDef: c.MaxDefinitionLevel()}
	return nil
}

// wantTime is what a time column may be.
const wantTime = "INT64 nanoseconds, or a TIMESTAMP (MILLIS, MICROS or NANOS)"

// timeScalar is scalar for a time column, with its unit.
func (s *fileSchema) timeScalar(file string, c *parquet.Column, r role) error {
	if err := s.scalar(file, c, r, wantTime, parquet.Int64); err != nil {
		return err
	}
	scale, err := timeScale(file, c.Name(), c)
	s.leaves[c.Index()].scale = scale
	return err
}

// timeScale is the nanoseconds in one unit of an INT64 time column: a plain
// (or signed 64-bit integer) column holds nanoseconds, as the schema says;
// a TIMESTAMP column holds its unit. Any other annotation (TIME, DATE,
// DECIMAL, an unsigned integer) is refused rather than read as
// nanoseconds.
func timeScale(file, column string, c *parquet.Column) (int64, error) {
	t := c.Type()
	bad := func() (int64, error) {
		return 0, schemaError(file, column, "has type %s: want %s", typeName(c), wantTime)
	}
	if lt := t.LogicalType(); lt != nil && lt.Value != nil {
		switch v := lt.Value.(type) {
		case *format.TimestampType:
			switch v.Unit.Value.(type) {
			case *format.NanoSeconds:
				return 1, nil
			case *format.MicroSeconds:
				return 1_000, nil
			case *format.MilliSeconds:
				return 1_000_000, nil
			}
		case *format.IntType:
			if v.IsSigned && v.BitWidth == 64 {
				return 1, nil
			}
		}
		return bad()
	}
	if ct := t.ConvertedType(); ct != nil {
		switch *ct {
		case deprecated.TimestampMicros:
			return 1_000, nil
		case deprecated.TimestampMillis:
			return 1_000_000, nil
		case deprecated.Int64:
			return 1, nil
		}
		return bad()
	}
	return 1, nil
}

// listLeaf is a leaf below a list column with the levels that matter.
type listLeaf struct {
	col        *parquet.Column
	parent     *parquet.Column // the node holding the leaf
	repeated   int             // repeated nodes on the path
	nonNullDef int
	elemDef    int
}

// listLeaves finds the leaves below a list column, whatever the list
// encoding: 3-level (list/element, array/item, bag/array_element), legacy
// 2-level (repeated group or repeated primitive), or a bare repeated field.
func listLeaves(c *parquet.Column) []listLeaf {
	var out []listLeaf
	var walk func(n, parent *parquet.Column, def, repeated, nonNullDef, elemDef int)
	walk = func(n, parent *parquet.Column, def, repeated, nonNullDef, elemDef int) {
		switch {
		case n.Repeated():
			def++
			if repeated == 0 {
				elemDef = def
			}
			repeated++
		case n.Optional():
			def++
			if repeated == 0 {
				nonNullDef = def
			}
		}
		if n.Leaf() {
			out = append(out, listLeaf{col: n, parent: parent, repeated: repeated, nonNullDef: nonNullDef, elemDef: elemDef})
			return
		}
		for _, k := range n.Columns() {
			walk(k, n, def, repeated, nonNullDef, elemDef)
		}
	}
	walk(c, nil, 0, 0, 0, 0)
	return out
}

func (s *fileSchema) chunks(file string, c *parquet.Column) error {
	const want = "a LIST of struct {INT64 t_ns; BYTE_ARRAY data}"
	if c.Leaf() {
		return schemaError(file, "chunks", "has type %s: want %s", typeName(c), want)
	}
	var t, data *listLeaf
	leaves := listLeaves(c)
	for i := range leaves {
		l := &leaves[i]
		switch {
		case l.col.Name() == "t_ns" && t == nil:
			t = l
		case l.col.Name() == "data" && data == nil:
			data = l
		default:
			return schemaError(file, "chunks", "has a field %s: want %s", strings.Join(l.col.Path(), "."), want)
		}
	}
	if t == nil || data == nil || t.parent != data.parent {
		return schemaError(file, "chunks", "lacks the t_ns and data fields of one struct: want %s", want)
	}
	for _, l := range []*listLeaf{t, data} {
		if l.repeated != 1 {
			return schemaError(file, "chunks", "field %s has %d repeated levels: want %s", strings.Join(l.col.Path(), "."), l.repeated, want)
		}
	}
	if t.col.Type().Kind() != parquet.Int64 {
		return schemaError(file, "chunks", "field t_ns has type %s: want %s", typeName(t.col), wantTime)
	}
	tScale, err := timeScale(file, "chunks", t.col)
	if err != nil {
		return schemaError(file, "chunks", "field t_ns has type %s: want %s", typeName(t.col), wantTime)
	}
	if data.col.Type().Kind() != parquet.ByteArray {
		return schemaError(file, "chunks", "field data has type %s: want BYTE_ARRAY", typeName(data.col))
	}
	for _, l := range []struct {
		l *listLeaf
		r role
	}{{t, roleChunkT}, {data, roleChunkData}} {
		s.leaves[l.l.col.Index()] = leaf{role: l.r, column: "chunks", kind: l.l.col.Type().Kind(),
			maxRep: l.l.col.MaxRepetitionLevel(), maxDef: l.l.col.MaxDefinitionLevel(), nonNullDef: l.l.nonNullDef, elemDef: l.l.elemDef}
	}
	s.leaves[t.col.Index()].scale = tScale
	return nil
}

func (s *fileSchema) timePoints(file string, c *parquet.Column) error {
	const want = "a LIST of DOUBLE"
	leaves := listLeaves(c)
	if c.Leaf() && !c.Repeated() || len(leaves) != 1 || leaves[0].repeated != 1 {
		return schemaError(file, "time_points_s", "has type %s: want %s", typeName(c), want)
	}
	l := leaves[0]
	if k := l.col.Type().Kind(); k != parquet.Double && k != parquet.Float {
		return schemaError(file, "time_points_s", "has elements of type %s: want %s", typeName(l.col), want)
	}
	s.leaves[l.col.Index()] = leaf{role: roleTimePoint, column: "time_points_s", kind: l.col.Type().Kind(),
		maxRep: l.col.MaxRepetitionLevel(), maxDef: l.col.MaxDefinitionLevel(), nonNullDef: l.nonNullDef, elemDef: l.elemDef}
	return nil
}

func (s *fileSchema) extraColumn(file string, c *parquet.Column, meta map[string]string) error {
	const want = "an extra column of type String BYTE_ARRAY, BYTE_ARRAY, INT64, DOUBLE or BOOLEAN"
	name := c.Name()
	if !c.Leaf() || c.Repeated() {
		return schemaError(file, name, "is %s: want %s", typeName(c), want)
	}
	var kind trace.ExtraKind
	switch c.Type().Kind() {
	case parquet.ByteArray:
		kind = trace.ExtraBinary
		if isText(c.Type()) {
			kind = trace.ExtraString
		}
	case parquet.Int64, parquet.Int32:
		if !signedInteger(c.Type()) {
			return schemaError(file, name, "has type %s, whose stored integers are not its values: want %s (cast a DECIMAL to DOUBLE, an unsigned integer to BIGINT)", typeName(c), want)
		}
		kind = trace.ExtraInt64
	case parquet.Double, parquet.Float:
		kind = trace.ExtraFloat64
	case parquet.Boolean:
		kind = trace.ExtraBool
	default:
		return schemaError(file, name, "has type %s: want %s", typeName(c), want)
	}
	if k, ok := meta[trace.KeyExtraKindPrefix+name]; ok && k == trace.ExtraJSON.String() {
		if c.Type().Kind() != parquet.ByteArray {
			return schemaError(file, name, "has type %s but metadata %s%s says json: want a String BYTE_ARRAY column", typeName(c), trace.KeyExtraKindPrefix, name)
		}
		kind = trace.ExtraJSON
	}
	s.leaves[c.Index()] = leaf{role: roleExtra, column: name, kind: c.Type().Kind(), maxDef: c.MaxDefinitionLevel(), extra: len(s.extra)}
	s.extra = append(s.extra, trace.ExtraColumn{Name: name, Kind: kind})
	return nil
}

// signedInteger reports whether an INT32 or INT64 column's stored values,
// read as signed integers, are its values: not a DECIMAL (values scaled by
// 10^scale) nor an unsigned 32- or 64-bit integer (large values wrap to
// negative).
func signedInteger(t parquet.Type) bool {
	if lt := t.LogicalType(); lt != nil && lt.Value != nil {
		switch v := lt.Value.(type) {
		case *format.DecimalType:
			return false
		case *format.IntType:
			return v.IsSigned || v.BitWidth < 32
		}
		return true
	}
	if ct := t.ConvertedType(); ct != nil {
		switch *ct {
		case deprecated.Decimal, deprecated.Uint32, deprecated.Uint64:
			return false
		}
	}
	return true
}

// isText reports whether a BYTE_ARRAY column is annotated as text (String,
// Enum or JSON, or the legacy UTF8/ENUM/JSON converted types).
func isText(t parquet.Type) bool {
	if lt := t.LogicalType(); lt != nil && lt.Value != nil {
		switch lt.Value.(type) {
		case *format.StringType, *format.EnumType, *format.JsonType:
			return true
		}
		return false
	}
	if ct := t.ConvertedType(); ct != nil {
		switch *ct {
		case deprecated.UTF8, deprecated.Enum, deprecated.Json:
			return true
		}
	}
	return false
}

// metaMap turns the file's key/value metadata into a map.
func metaMap(kvs []format.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[kv.Key] = kv.Value
	}
	return m
}

// checkVersion returns the notes for the file's schema version, or an error.
func checkVersion(file string, meta trace.Meta) ([]string, error) {
	v, ok := meta.Get(trace.KeySchemaVersion)
	if !ok {
		return []string{fmt.Sprintf("no %s: read as version %s", trace.KeySchemaVersion, trace.SchemaVersion)}, nil
	}
	if strings.TrimSpace(v) != trace.SchemaVersion {
		return nil, trace.FileError(file, nil, "metadata %s is %q: want %q", trace.KeySchemaVersion, v, trace.SchemaVersion)
	}
	return nil, nil
}
