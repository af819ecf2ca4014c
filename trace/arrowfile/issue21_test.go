package arrowfile

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sseaudit/sseaudit/trace"
)

// TestIssue21ExtraColumns: a file with more extra columns than
// Limits.MaxExtraColumns is refused, naming the limit.
func TestIssue21ExtraColumns(t *testing.T) {
	var opts trace.WriteOptions
	req := trace.Request{RequestID: "r0", T0Ns: 1}
	for i := range 3 {
		opts.Extra = append(opts.Extra, trace.ExtraColumn{Name: "x" + strings.Repeat("i", i+1), Kind: trace.ExtraInt64})
		req.Extra = append(req.Extra, trace.Value{Int: int64(i)})
	}
	for _, f := range formats {
		data := writeTrace(t, f, opts, []trace.Request{req}, nil)
		for _, max := range []int64{2, 3} {
			src := source(t, "extras."+f.name, data)
			src.Limits.MaxExtraColumns = max
			r, err := f.open(src, memory.NewGoAllocator())
			if max == 2 && (!errors.Is(err, trace.ErrLimit) || !strings.Contains(err.Error(), "column xiii: more than 2 extra columns")) {
				t.Errorf("%s: got %v", f.name, err)
			}
			if max == 3 && err != nil {
				t.Errorf("%s at the limit: %v", f.name, err)
			}
			if err == nil {
				r.Close()
			}
		}
	}
}

// TestIssue21DataAfterEOS: bytes after a stream's end-of-stream marker (a
// second stream appended) are an error, not left unread: 5 of 10 requests
// were read without a word.
func TestIssue21DataAfterEOS(t *testing.T) {
	f := format{"arrows", true, false}
	first := writeTrace(t, f, trace.WriteOptions{}, []trace.Request{{RequestID: "a", T0Ns: 1}}, nil)
	second := writeTrace(t, f, trace.WriteOptions{}, []trace.Request{{RequestID: "b", T0Ns: 2}}, nil)
	for _, tail := range [][]byte{second, {0}} {
		data := append(append([]byte{}, first...), tail...)
		reqs, _, err := readAll(t, f, "two.arrows", data, memory.NewGoAllocator())
		want := "bytes after the end-of-stream marker"
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "two.arrows") {
			t.Errorf("%d bytes after the marker: %d requests, %v; want an error holding %q", len(tail), len(reqs), err, want)
		}
	}
	if reqs, _, err := readAll(t, f, "one.arrows", first, memory.NewGoAllocator()); err != nil || len(reqs) != 1 {
		t.Errorf("one stream: %v", err)
	}
}

// TestIssue21DictionaryStrings: a dictionary-encoded request_id, error or
// string extra (pandas writes a categorical column so) was refused; it is
// read as the strings it encodes, in a file and a stream, over several
// batches (a stream's later dictionaries are deltas or replacements).
func TestIssue21DictionaryStrings(t *testing.T) {
	dict := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
	schema := schemaWith(map[string]string{trace.KeySchemaVersion: "1"},
		arrow.Field{Name: "request_id", Type: dict},
		arrow.Field{Name: "t0_ns", Type: arrow.PrimitiveTypes.Int64},
		arrow.Field{Name: "chunks", Type: arrow.ListOf(chunkType), Nullable: true},
		arrow.Field{Name: "error", Type: dict, Nullable: true},
		arrow.Field{Name: "model", Type: dict, Nullable: true},
	)
	fill := func(ids ...string) func(b *array.RecordBuilder) {
		return func(b *array.RecordBuilder) {
			for i, id := range ids {
				if err := b.Field(0).(*array.BinaryDictionaryBuilder).AppendString(id); err != nil {
					t.Fatal(err)
				}
				b.Field(1).(*array.Int64Builder).Append(int64(10 + i))
				b.Field(2).(*array.ListBuilder).AppendNull()
				if id[1] == '0' {
					b.Field(3).AppendNull()
				} else if err := b.Field(3).(*array.BinaryDictionaryBuilder).AppendString("reset"); err != nil {
					t.Fatal(err)
				}
				if err := b.Field(4).(*array.BinaryDictionaryBuilder).AppendString("m" + id[:1]); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	for _, f := range formats {
		// An Arrow IPC file holds one dictionary a field: one batch.
		batches := []func(*array.RecordBuilder){fill("a0", "a1", "b0", "b1", "c0")}
		if f.stream {
			batches = []func(*array.RecordBuilder){fill("a0", "a1", "b0"), fill("b1", "c0")}
		}
		data := writeRecords(t, f.stream, schema, batches...)
		reqs, info, err := readAll(t, f, "cat."+f.name, data, memory.NewGoAllocator())
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		var ids, errs, models []string
		for _, r := range reqs {
			ids = append(ids, r.RequestID)
			e := "-"
			if r.Error != nil {
				e = *r.Error
			}
			errs = append(errs, e)
			models = append(models, r.Extra[0].Str)
		}
		got := strings.Join(ids, " ") + " | " + strings.Join(errs, " ") + " | " + strings.Join(models, " ")
		if want := "a0 a1 b0 b1 c0 | - reset - reset - | ma ma mb mb mc"; got != want {
			t.Errorf("%s: %s, want %s", f.name, got, want)
		}
		if len(info.Extra) != 1 || info.Extra[0].Kind != trace.ExtraString {
			t.Errorf("%s: extra columns %+v, want model as a string", f.name, info.Extra)
		}
	}
}

// TestIssue21DictionaryIndexOutOfRange: an index past the dictionary's end
// is an error naming the column, not a panic or another row's id.
func TestIssue21DictionaryIndexOutOfRange(t *testing.T) {
	mem := memory.NewGoAllocator()
	dictType := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
	schema := schemaWith(map[string]string{trace.KeySchemaVersion: "1"},
		arrow.Field{Name: "request_id", Type: dictType},
		arrow.Field{Name: "t0_ns", Type: arrow.PrimitiveTypes.Int64},
		arrow.Field{Name: "chunks", Type: arrow.ListOf(chunkType), Nullable: true},
	)
	ib := array.NewInt8Builder(mem)
	ib.AppendValues([]int8{0, 5}, nil)
	indices := ib.NewArray()
	sb := array.NewStringBuilder(mem)
	sb.Append("a")
	values := sb.NewArray()
	ids := array.NewDictionaryArray(dictType, indices, values)
	tb := array.NewInt64Builder(mem)
	tb.AppendValues([]int64{1, 2}, nil)
	lb := array.NewListBuilder(mem, chunkType)
	lb.AppendNull()
	lb.AppendNull()
	rec := array.NewRecordBatch(schema, []arrow.Array{ids, tb.NewArray(), lb.NewArray()}, 2)
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(schema), ipc.WithAllocator(mem))
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	_, _, err := readAll(t, formats[1], "bad.arrows", buf.Bytes(), mem)
	if err == nil || !strings.Contains(err.Error(), "column request_id: corrupt Arrow IPC data: row 1: dictionary index 5, out of the dictionary's 1 values") {
		t.Fatalf("got %v", err)
	}
}
