package arrowfile

import (
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/sseaudit/sseaudit/trace"
)

// Column views shared by the Arrow string, binary and list array types.
type (
	stringColumn interface {
		arrow.Array
		Value(int) string
	}
	binaryColumn interface {
		arrow.Array
		Value(int) []byte
	}
	listColumn interface {
		arrow.Array
		ValueOffsets(int) (int64, int64)
		ListValues() arrow.Array
	}
)

// batchColumns are the columns of one record batch, typed.
type batchColumns struct {
	file                      string
	requestID                 stringColumn
	t0Ns, endNs               *array.Int64
	inputTokens, outputTokens *array.Int64
	httpStatus32              *array.Int32
	httpStatus64              *array.Int64
	errC                      stringColumn
	chunks                    listColumn
	chunkStruct               *array.Struct
	chunkTNs                  *array.Int64
	chunkData                 binaryColumn
	timePoints                listColumn
	timePointValues           *array.Float64
	tNs                       *array.Int64
	data                      binaryColumn
	extra                     []arrow.Array
	extraKinds                []trace.ExtraKind
	batch                     int
}

// bindColumns types the columns of rec and checks their buffers, so that
// reading a value cannot run off a buffer.
func bindColumns(file string, batch int, m *schemaMap, rec arrow.RecordBatch, idOnly bool) (*batchColumns, error) {
	c := &batchColumns{file: file, batch: batch}
	var bad error
	col := func(at int, name string) arrow.Array {
		if at < 0 || bad != nil {
			return nil
		}
		if at >= int(rec.NumCols()) {
			bad = corruptError(file, batch, fmt.Errorf("record batch has %d columns: want %d", rec.NumCols(), rec.Schema().NumFields()))
			return nil
		}
		a := rec.Column(at)
		if err := validateArray(a); err != nil {
			e := corruptError(file, batch, err)
			e.Column = name
			bad = e
			return nil
		}
		return a
	}
	typed := func(a arrow.Array, name string, ok bool) {
		if a != nil && !ok && bad == nil {
			e := corruptError(file, batch, fmt.Errorf("array of type %T", a))
			e.Column = name
			bad = e
		}
	}
	// A dictionary of strings is read through its indexes, checked here.
	undict := func(a arrow.Array, name string) arrow.Array {
		d, isDict := a.(*array.Dictionary)
		if !isDict || bad != nil {
			return a
		}
		s, err := dictStringColumn(d)
		if err != nil {
			e := corruptError(file, batch, err)
			e.Column = name
			bad = e
			return nil
		}
		return s
	}
	var ok bool
	a := undict(col(m.requestID, colRequestID), colRequestID)
	c.requestID, ok = a.(stringColumn)
	typed(a, colRequestID, ok)
	if idOnly || bad != nil {
		return c, bad
	}
	int64Col := func(at int, name string) *array.Int64 {
		a := col(at, name)
		v, ok := a.(*array.Int64)
		typed(a, name, ok)
		return v
	}
	c.t0Ns = int64Col(m.t0Ns, colT0Ns)
	c.endNs = int64Col(m.endNs, colEndNs)
	c.inputTokens = int64Col(m.inputTokens, colInputTokens)
	c.outputTokens = int64Col(m.outputTokens, colOutputTokens)
	c.tNs = int64Col(m.tNs, colTNs)
	if a := col(m.httpStatus, colHTTPStatus); a != nil {
		c.httpStatus32, _ = a.(*array.Int32)
		c.httpStatus64, _ = a.(*array.Int64)
		typed(a, colHTTPStatus, c.httpStatus32 != nil || c.httpStatus64 != nil)
	}
	a = undict(col(m.errC, colError), colError)
	c.errC, ok = a.(stringColumn)
	typed(a, colError, ok)
	a = col(m.data, colData)
	c.data, ok = a.(binaryColumn)
	typed(a, colData, ok)
	a = col(m.chunks, colChunks)
	c.chunks, ok = a.(listColumn)
	typed(a, colChunks, ok)
	if c.chunks != nil {
		tIdx, dIdx, _ := chunkStructFields(c.chunks.DataType())
		c.chunkStruct, ok = c.chunks.ListValues().(*array.Struct)
		typed(c.chunks, colChunks, ok)
		if ok {
			c.chunkTNs, ok = c.chunkStruct.Field(tIdx).(*array.Int64)
			typed(c.chunks, colChunks, ok)
			c.chunkData, ok = c.chunkStruct.Field(dIdx).(binaryColumn)
			typed(c.chunks, colChunks, ok)
		}
	}
	a = col(m.timePointsS, colTimePointsS)
	c.timePoints, ok = a.(listColumn)
	typed(a, colTimePointsS, ok)
	if c.timePoints != nil {
		c.timePointValues, ok = c.timePoints.ListValues().(*array.Float64)
		typed(c.timePoints, colTimePointsS, ok)
	}
	for _, x := range m.extra {
		c.extra = append(c.extra, undict(col(x.index, x.col.Name), x.col.Name))
		c.extraKinds = append(c.extraKinds, x.col.Kind)
	}
	return c, bad
}

// dictStrings reads a dictionary-encoded string column as a string column:
// a row's value is its index's entry of the dictionary; a row is null when
// its index is, or the entry.
type dictStrings struct {
	*array.Dictionary
	values stringColumn
}

func (d dictStrings) Value(i int) string { return d.values.Value(d.GetValueIndex(i)) }

func (d dictStrings) IsNull(i int) bool {
	return d.Dictionary.IsNull(i) || d.values.IsNull(d.GetValueIndex(i))
}

func (d dictStrings) IsValid(i int) bool { return !d.IsNull(i) }

// dictStringColumn checks a dictionary of strings (its values, and every
// index within them) and returns it as a string column.
func dictStringColumn(d *array.Dictionary) (stringColumn, error) {
	values, ok := d.Dictionary().(stringColumn)
	if !ok {
		return nil, fmt.Errorf("dictionary of type %T: want strings", d.Dictionary())
	}
	if err := validateArray(values); err != nil {
		return nil, fmt.Errorf("dictionary: %w", err)
	}
	if err := validateArray(d.Indices()); err != nil {
		return nil, fmt.Errorf("dictionary indexes: %w", err)
	}
	n := values.Len()
	for i := 0; i < d.Len(); i++ {
		if d.IsNull(i) {
			continue
		}
		if x := d.GetValueIndex(i); x < 0 || x >= n {
			return nil, fmt.Errorf("row %d: dictionary index %d, out of the dictionary's %d values", i, x, n)
		}
	}
	return dictStrings{Dictionary: d, values: values}, nil
}

// validateArray checks the offsets and bitmaps of a and its children.
func validateArray(a arrow.Array) error {
	if v, ok := a.(interface{ ValidateFull() error }); ok {
		if err := v.ValidateFull(); err != nil {
			return err
		}
	}
	d := a.Data()
	need := d.Offset() + d.Len()
	if bufs := d.Buffers(); len(bufs) > 0 && bufs[0] != nil && d.NullN() > 0 && bufs[0].Len()*8 < need {
		return fmt.Errorf("validity bitmap of %d bytes for %d values", bufs[0].Len(), need)
	}
	if d.DataType().ID() == arrow.BOOL {
		if bufs := d.Buffers(); len(bufs) < 2 || bufs[1] == nil || bufs[1].Len()*8 < need {
			return fmt.Errorf("boolean values buffer too short for %d values", need)
		}
	}
	switch t := a.(type) {
	case *array.Struct:
		for i := 0; i < t.NumField(); i++ {
			if err := validateArray(t.Field(i)); err != nil {
				return fmt.Errorf("struct field %d: %w", i, err)
			}
		}
	case listColumn:
		if err := validateArray(t.ListValues()); err != nil {
			return fmt.Errorf("list values: %w", err)
		}
	}
	return nil
}

// listRange returns row i's element range in a list column's values,
// checked against the values' length.
func listRange(l listColumn, i int) (int, int, bool) {
	start, end := l.ValueOffsets(i)
	if start < 0 || end < start || end > int64(l.ListValues().Len()) {
		return 0, 0, false
	}
	return int(start), int(end), true
}

func (c *batchColumns) rowError(row int64, id, column, format string, args ...any) *trace.Error {
	e := trace.RowError(c.file, c.batch, row, column, format, args...)
	e.RequestID = id
	return e
}

// decodeRequestLevel copies row i's request-level columns (all but the
// chunks) into req.
func (c *batchColumns) decodeRequestLevel(i int, row int64, req *trace.Request) error {
	if c.requestID.IsNull(i) {
		return c.rowError(row, "", colRequestID, "null request_id: want a non-empty, unique id")
	}
	req.RequestID = strings.Clone(c.requestID.Value(i))
	if c.t0Ns.IsNull(i) {
		return c.rowError(row, req.RequestID, colT0Ns, "null t0_ns: want the send time in ns")
	}
	req.T0Ns = c.t0Ns.Value(i)
	req.EndNs = optInt64(c.endNs, i)
	req.InputTokens = optInt64(c.inputTokens, i)
	req.OutputTokens = optInt64(c.outputTokens, i)
	switch {
	case c.httpStatus32 != nil && !c.httpStatus32.IsNull(i):
		v := c.httpStatus32.Value(i)
		req.HTTPStatus = &v
	case c.httpStatus64 != nil && !c.httpStatus64.IsNull(i):
		v := c.httpStatus64.Value(i)
		if v < math.MinInt32 || v > math.MaxInt32 {
			return c.rowError(row, req.RequestID, colHTTPStatus, "http_status %d is out of the int32 range: want an HTTP status code", v)
		}
		s := int32(v)
		req.HTTPStatus = &s
	}
	if c.errC != nil && !c.errC.IsNull(i) {
		s := strings.Clone(c.errC.Value(i))
		req.Error = &s
	}
	if c.timePoints != nil && !c.timePoints.IsNull(i) {
		start, end, ok := listRange(c.timePoints, i)
		if !ok {
			return c.rowError(row, req.RequestID, colTimePointsS, "corrupt Arrow IPC data: list offsets out of range")
		}
		req.TimePointsS = make([]float64, 0, end-start)
		for j := start; j < end; j++ {
			if c.timePointValues.IsNull(j) {
				return c.rowError(row, req.RequestID, colTimePointsS, "time point %d is null: want a number of seconds", j-start)
			}
			req.TimePointsS = append(req.TimePointsS, c.timePointValues.Value(j))
		}
	}
	if len(c.extra) > 0 {
		req.Extra = make([]trace.Value, len(c.extra))
		for k, a := range c.extra {
			req.Extra[k] = extraValue(a, c.extraKinds[k], i)
		}
	}
	return nil
}

func (c *batchColumns) decodeRequest(i int, row int64, req *trace.Request) error {
	if err := c.decodeRequestLevel(i, row, req); err != nil {
		return err
	}
	if c.chunks.IsNull(i) {
		return nil
	}
	start, end, ok := listRange(c.chunks, i)
	if !ok {
		return c.rowError(row, req.RequestID, colChunks, "corrupt Arrow IPC data: list offsets out of range")
	}
	req.Chunks = make([]trace.Chunk, 0, end-start)
	for j := start; j < end; j++ {
		switch {
		case c.chunkStruct.IsNull(j):
			return c.rowError(row, req.RequestID, colChunks, "chunk %d is null: want a struct with t_ns and data", j-start)
		case c.chunkTNs.IsNull(j):
			return c.rowError(row, req.RequestID, colChunks, "chunk %d has a null t_ns: want an arrival time in ns", j-start)
		case c.chunkData.IsNull(j):
			return c.rowError(row, req.RequestID, colChunks, "chunk %d has null data: want the bytes read (empty, not null, for none)", j-start)
		}
		req.Chunks = append(req.Chunks, trace.Chunk{TNs: c.chunkTNs.Value(j), Data: copyBytes(c.chunkData.Value(j))})
	}
	return nil
}

// decodeFlatRow decodes row i; with view, the chunk's bytes are the
// batch's, not a copy (for trace's grouping reader, which copies what it
// keeps).
func (c *batchColumns) decodeFlatRow(i int, row *trace.FlatRow, view bool) error {
	if c.requestID.IsNull(i) {
		return c.rowError(row.Row, "", colRequestID, "null request_id: want a non-empty id on every row")
	}
	if err := c.decodeRequestLevel(i, row.Row, &row.Req); err != nil {
		return err
	}
	tNull, dNull := c.tNs.IsNull(i), c.data.IsNull(i)
	switch {
	case tNull && dNull:
		row.ChunkNull = true
	case tNull || dNull:
		return c.rowError(row.Row, row.Req.RequestID, colTNs, "one of t_ns and data is null: want both null (a request without chunks) or both set")
	default:
		data := c.data.Value(i)
		if !view {
			data = copyBytes(data)
		}
		row.Chunk = trace.Chunk{TNs: c.tNs.Value(i), Data: data}
	}
	return nil
}

// copyBytes copies bytes out of an Arrow buffer; the copy is never nil, so
// that empty data is not mistaken for null.
func copyBytes(b []byte) []byte { return append([]byte{}, b...) }

func optInt64(a *array.Int64, i int) *int64 {
	if a == nil || a.IsNull(i) {
		return nil
	}
	v := a.Value(i)
	return &v
}

// extraValue copies row i of an extra column; a non-null binary value is a
// non-nil slice, even when empty.
func extraValue(a arrow.Array, kind trace.ExtraKind, i int) trace.Value {
	if a.IsNull(i) {
		return trace.Value{Null: true}
	}
	switch v := a.(type) {
	case stringColumn:
		return trace.Value{Str: strings.Clone(v.Value(i))}
	case binaryColumn:
		return trace.Value{Bytes: copyBytes(v.Value(i))}
	case *array.Int64:
		return trace.Value{Int: v.Value(i)}
	case *array.Float64:
		return trace.Value{Float: v.Value(i)}
	case *array.Boolean:
		return trace.Value{Bool: v.Value(i)}
	}
	panic(fmt.Sprintf("extra column of kind %v holds an array of type %T", kind, a))
}
