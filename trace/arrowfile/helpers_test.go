package arrowfile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/tracetest"
)

func i64(v int64) *int64    { return &v }
func i32(v int32) *int32    { return &v }
func strp(s string) *string { return &s }

// format is one of the two Arrow IPC formats under test, read mapped into
// memory (as Open does) or into the heap (where a file cannot be mapped).
type format struct {
	name   string
	stream bool
	heap   bool
}

var formats = []format{{"arrow", false, false}, {"arrows", true, false}, {"arrow-heap", false, true}, {"arrows-heap", true, true}}

// kind is the format's name in trace.Info.
func (f format) kind() string {
	if f.stream {
		return "arrows"
	}
	return "arrow"
}

func (f format) open(src trace.Source, mem memory.Allocator) (trace.Reader, error) {
	var pages *mapping
	if !f.heap {
		if pages = mapFile(src); pages == nil && src.Size > 0 {
			return nil, fmt.Errorf("%s cannot be mapped", src.Name)
		}
	}
	if f.stream {
		return openStream(src, mem, pages)
	}
	return openFile(src, mem, pages)
}

// writeTrace writes reqs with the package's writer and a checked allocator
// that must end with nothing allocated.
func writeTrace(t testing.TB, f format, opts trace.WriteOptions, reqs []trace.Request, codec ipc.Option) []byte {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	var buf bytes.Buffer
	w, err := newWriter(&buf, opts, f.stream, mem, codec)
	if err != nil {
		t.Fatalf("newWriter: %v", err)
	}
	for i := range reqs {
		if err := w.Write(&reqs[i]); err != nil {
			t.Fatalf("Write %q: %v", reqs[i].RequestID, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	mem.AssertSize(t, 0)
	return buf.Bytes()
}

// source puts data in a file named name under a temporary directory.
func source(t testing.TB, name string, data []byte) trace.Source {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { file.Close() })
	return trace.Source{Name: name, File: file, Size: int64(len(data)), Limits: trace.DefaultLimits}
}

// readAll opens data and reads every request; it returns the requests read
// before any error, the reader's Info and the error (from Open or Err).
func readAll(t testing.TB, f format, name string, data []byte, mem memory.Allocator) ([]trace.Request, trace.Info, error) {
	t.Helper()
	r, err := f.open(source(t, name, data), mem)
	if err != nil {
		return nil, trace.Info{}, err
	}
	defer r.Close()
	reqs, err := tracetest.ReadAll(r)
	return reqs, r.Info(), err
}

// writeRecords writes record batches built by fill, in either format,
// uncompressed, for hand-made (and broken) files.
func writeRecords(t testing.TB, stream bool, schema *arrow.Schema, fill ...func(b *array.RecordBuilder)) []byte {
	t.Helper()
	mem := memory.NewGoAllocator()
	var buf bytes.Buffer
	var w interface {
		Write(arrow.RecordBatch) error
		Close() error
	}
	if stream {
		w = ipc.NewWriter(&buf, ipc.WithSchema(schema), ipc.WithAllocator(mem))
	} else {
		fw, err := ipc.NewFileWriter(&buf, ipc.WithSchema(schema), ipc.WithAllocator(mem))
		if err != nil {
			t.Fatal(err)
		}
		w = fw
	}
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for _, fn := range fill {
		fn(b)
		rec := b.NewRecordBatch()
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func schemaWith(meta map[string]string, fields ...arrow.Field) *arrow.Schema {
	md := arrow.MetadataFrom(meta)
	return arrow.NewSchema(fields, &md)
}
