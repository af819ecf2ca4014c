package arrowfile

import (
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sseaudit/sseaudit/trace"
)

const (
	// defaultBatchRequests bounds a record batch when
	// WriteOptions.RowGroupRequests is 0.
	defaultBatchRequests = 1024
	// maxBatchBodyBytes flushes a record batch once its chunks hold this
	// many body bytes, whatever the request count.
	maxBatchBodyBytes = 64 << 20
)

// NewFileWriter writes a trace in the Arrow IPC file format, zstd-compressed.
func NewFileWriter(w io.Writer, opts trace.WriteOptions) (trace.RequestWriter, error) {
	return newWriter(w, opts, false, memory.NewGoAllocator(), ipc.WithZstd())
}

// NewStreamWriter writes a trace in the Arrow IPC stream format,
// zstd-compressed.
func NewStreamWriter(w io.Writer, opts trace.WriteOptions) (trace.RequestWriter, error) {
	return newWriter(w, opts, true, memory.NewGoAllocator(), ipc.WithZstd())
}

// ipcWriter is what ipc.FileWriter and ipc.Writer have in common.
type ipcWriter interface {
	Write(arrow.RecordBatch) error
	Close() error
}

type writer struct {
	layout     trace.Layout
	extra      []trace.ExtraColumn
	maxBatch   int
	out        ipcWriter
	b          *array.RecordBuilder
	requestID  *array.StringBuilder
	t0Ns       *array.Int64Builder
	endNs      *array.Int64Builder
	httpStatus *array.Int32Builder
	errC       *array.StringBuilder
	chunks     *array.ListBuilder
	chunk      *array.StructBuilder
	chunkTNs   *array.Int64Builder
	chunkData  *array.BinaryBuilder
	timePoints *array.ListBuilder
	timePoint  *array.Float64Builder
	inTokens   *array.Int64Builder
	outTokens  *array.Int64Builder
	tNs        *array.Int64Builder
	data       *array.BinaryBuilder
	extraB     []array.Builder

	requests  int   // buffered
	bodyBytes int64 // buffered
	err       error // sticky: a failed writer writes nothing more
	closed    bool
	started   bool // a record batch was written
}

// newWriter starts a writer; codec is the ipc compression option (none
// when nil).
func newWriter(w io.Writer, opts trace.WriteOptions, stream bool, mem memory.Allocator, codec ipc.Option) (trace.RequestWriter, error) {
	layout := opts.Layout
	if layout == "" {
		layout = trace.Nested
	}
	if layout != trace.Nested && layout != trace.Flat {
		return nil, fmt.Errorf("arrow writer: unknown layout %q: want %s or %s", layout, trace.Nested, trace.Flat)
	}
	schema, err := canonicalSchema(layout, opts.Extra, opts.Meta)
	if err != nil {
		return nil, fmt.Errorf("arrow writer: %w", err)
	}
	ipcOpts := []ipc.Option{ipc.WithSchema(schema), ipc.WithAllocator(mem)}
	if codec != nil {
		ipcOpts = append(ipcOpts, codec)
	}
	wr := &writer{layout: layout, extra: opts.Extra, maxBatch: opts.RowGroupRequests}
	if wr.maxBatch <= 0 {
		wr.maxBatch = defaultBatchRequests
	}
	if stream {
		wr.out = ipc.NewWriter(w, ipcOpts...)
	} else {
		fw, err := ipc.NewFileWriter(w, ipcOpts...)
		if err != nil {
			return nil, fmt.Errorf("arrow writer: %w", err)
		}
		wr.out = fw
	}
	wr.b = array.NewRecordBuilder(mem, schema)
	field := func(name string) array.Builder {
		return wr.b.Field(schema.FieldIndices(name)[0])
	}
	wr.requestID = field(colRequestID).(*array.StringBuilder)
	wr.t0Ns = field(colT0Ns).(*array.Int64Builder)
	wr.endNs = field(colEndNs).(*array.Int64Builder)
	wr.httpStatus = field(colHTTPStatus).(*array.Int32Builder)
	wr.errC = field(colError).(*array.StringBuilder)
	wr.timePoints = field(colTimePointsS).(*array.ListBuilder)
	wr.timePoint = wr.timePoints.ValueBuilder().(*array.Float64Builder)
	wr.inTokens = field(colInputTokens).(*array.Int64Builder)
	wr.outTokens = field(colOutputTokens).(*array.Int64Builder)
	if layout == trace.Flat {
		wr.tNs = field(colTNs).(*array.Int64Builder)
		wr.data = field(colData).(*array.BinaryBuilder)
	} else {
		wr.chunks = field(colChunks).(*array.ListBuilder)
		wr.chunk = wr.chunks.ValueBuilder().(*array.StructBuilder)
		wr.chunkTNs = wr.chunk.FieldBuilder(0).(*array.Int64Builder)
		wr.chunkData = wr.chunk.FieldBuilder(1).(*array.BinaryBuilder)
	}
	for _, x := range opts.Extra {
		wr.extraB = append(wr.extraB, field(x.Name))
	}
	return wr, nil
}

func (w *writer) Write(r *trace.Request) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return fmt.Errorf("arrow writer: write after Close")
	}
	if len(r.Extra) != len(w.extra) {
		return fmt.Errorf("arrow writer: request %q has %d extra values: want %d, one per extra column", r.RequestID, len(r.Extra), len(w.extra))
	}
	if w.layout == trace.Flat {
		_ = trace.FlattenRequest(r, func(row *trace.FlatRow) error {
			w.appendRequestLevel(&row.Req)
			if row.ChunkNull {
				w.tNs.AppendNull()
				w.data.AppendNull()
			} else {
				w.tNs.Append(row.Chunk.TNs)
				w.data.Append(row.Chunk.Data)
			}
			return nil
		})
	} else {
		w.appendRequestLevel(r)
		if r.Chunks == nil {
			w.chunks.AppendNull()
		} else {
			w.chunks.Append(true)
			for _, c := range r.Chunks {
				w.chunk.Append(true)
				w.chunkTNs.Append(c.TNs)
				// BinaryBuilder.Append stores nil as null; a chunk's data is never null.
				w.chunkData.Append(nonNil(c.Data))
			}
		}
	}
	w.requests++
	w.bodyBytes += r.BodyBytes()
	if w.requests >= w.maxBatch || w.bodyBytes >= maxBatchBodyBytes {
		return w.flush()
	}
	return nil
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

func (w *writer) appendRequestLevel(r *trace.Request) {
	w.requestID.Append(r.RequestID)
	w.t0Ns.Append(r.T0Ns)
	appendOpt(w.endNs, r.EndNs)
	appendOpt(w.httpStatus, r.HTTPStatus)
	if r.Error == nil {
		w.errC.AppendNull()
	} else {
		w.errC.Append(*r.Error)
	}
	if r.TimePointsS == nil {
		w.timePoints.AppendNull()
	} else {
		w.timePoints.Append(true)
		w.timePoint.AppendValues(r.TimePointsS, nil)
	}
	appendOpt(w.inTokens, r.InputTokens)
	appendOpt(w.outTokens, r.OutputTokens)
	for i, x := range w.extra {
		appendExtra(w.extraB[i], x.Kind, r.Extra[i])
	}
}

func appendOpt[T int32 | int64](b interface {
	Append(T)
	AppendNull()
}, v *T) {
	if v == nil {
		b.AppendNull()
	} else {
		b.Append(*v)
	}
}

func appendExtra(b array.Builder, kind trace.ExtraKind, v trace.Value) {
	if v.Null {
		b.AppendNull()
		return
	}
	switch kind {
	case trace.ExtraString, trace.ExtraJSON:
		b.(*array.StringBuilder).Append(v.Str)
	case trace.ExtraInt64:
		b.(*array.Int64Builder).Append(v.Int)
	case trace.ExtraFloat64:
		b.(*array.Float64Builder).Append(v.Float)
	case trace.ExtraBool:
		b.(*array.BooleanBuilder).Append(v.Bool)
	case trace.ExtraBinary:
		b.(*array.BinaryBuilder).Append(nonNil(v.Bytes))
	}
}

// flush writes the buffered requests as one record batch.
func (w *writer) flush() error {
	if w.requests == 0 {
		return nil
	}
	rec := w.b.NewRecordBatch()
	defer rec.Release()
	w.requests, w.bodyBytes = 0, 0
	if err := w.out.Write(rec); err != nil {
		w.err = fmt.Errorf("arrow writer: %w", err)
		return w.err
	}
	w.started = true
	return nil
}

// Close writes what is buffered and finishes the file (footer, or the
// end-of-stream marker); it does not close the underlying writer.
func (w *writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	defer w.b.Release()
	if err := w.flush(); err != nil {
		w.out.Close()
		return err
	}
	if err := w.out.Close(); err != nil {
		w.err = fmt.Errorf("arrow writer: %w", err)
	}
	return w.err
}
