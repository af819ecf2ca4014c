package arrowfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/tracetest"
)

// The requests, extra columns and metadata every format's tests share.
var (
	sampleExtra = tracetest.Extras
	sampleMeta  = tracetest.Meta
)

func sampleRequests() []trace.Request { return tracetest.Requests() }

func flatExpectation(reqs []trace.Request) []trace.Request { return tracetest.Flattened(reqs) }

func TestRoundTrip(t *testing.T) {
	for _, f := range formats {
		for _, layout := range []trace.Layout{trace.Nested, trace.Flat} {
			t.Run(f.name+"/"+string(layout), func(t *testing.T) {
				want := sampleRequests()
				opts := trace.WriteOptions{Meta: append(trace.Meta(nil), sampleMeta...), Extra: sampleExtra, Layout: layout, RowGroupRequests: 3}
				data := writeTrace(t, f, opts, want, ipc.WithZstd())
				if layout == trace.Flat {
					want = flatExpectation(want)
				}

				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				got, info, err := readAll(t, f, "rt."+f.name, data, mem)
				if err != nil {
					t.Fatalf("read: %v", err)
				}
				mem.AssertSize(t, 0)
				if !reflect.DeepEqual(got, want) {
					for i := range min(len(got), len(want)) {
						if !reflect.DeepEqual(got[i], want[i]) {
							t.Errorf("request %d:\n got %#v\nwant %#v", i, got[i], want[i])
						}
					}
					t.Fatalf("got %d requests, want %d", len(got), len(want))
				}

				wantMeta := append(trace.Meta(nil), sampleMeta...)
				wantMeta.Set(trace.KeySchemaVersion, trace.SchemaVersion)
				wantInfo := trace.Info{Path: "rt." + f.name, Format: f.kind(), Layout: layout, Meta: wantMeta, Extra: sampleExtra}
				if !reflect.DeepEqual(info, wantInfo) {
					t.Errorf("info:\n got %#v\nwant %#v", info, wantInfo)
				}
			})
		}
	}
}

// TestBatchesBounded checks that the writer starts a new record batch every
// RowGroupRequests requests, and that positions count batches and rows.
func TestBatchesBounded(t *testing.T) {
	reqs := sampleRequests()
	data := writeTrace(t, formats[0], trace.WriteOptions{Extra: sampleExtra, RowGroupRequests: 3}, reqs, ipc.WithZstd())
	fr, err := ipc.NewFileReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	if got, want := fr.NumRecords(), 3; got != want { // 3 + 3 + 1 requests
		t.Errorf("record batches: got %d, want %d", got, want)
	}

	// A duplicate in the third batch is reported at batch 2, file row 6.
	reqs[6].RequestID = "r0"
	data = writeTrace(t, formats[0], trace.WriteOptions{Extra: sampleExtra, RowGroupRequests: 3}, reqs, nil)
	_, _, err = readAll(t, formats[0], "dup.arrow", data, memory.NewGoAllocator())
	var te *trace.Error
	if !errors.As(err, &te) || te.RowGroup != 2 || te.Row != 6 || te.Column != "request_id" {
		t.Fatalf("got %#v, want a *trace.Error at batch 2, row 6, column request_id", err)
	}
}

func TestWriterDefaults(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewFileWriter(&buf, trace.WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2500 {
		if err := w.Write(&trace.Request{RequestID: fmt.Sprint(i), T0Ns: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	fr, err := ipc.NewFileReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	if got, want := fr.NumRecords(), 3; got != want { // 1024 + 1024 + 452
		t.Errorf("record batches: got %d, want %d", got, want)
	}
	if v, _ := fr.Schema().Metadata().GetValue(trace.KeySchemaVersion); v != "1" {
		t.Errorf("schema_version metadata: got %q, want \"1\"", v)
	}
	if got, want := batchCodecs(t, buf.Bytes()), []int{codecZstd, codecZstd, codecZstd}; !reflect.DeepEqual(got, want) {
		t.Errorf("body compression of each batch: got %v, want %v (zstd)", got, want)
	}
}

// Body compression codecs of format/Message.fbs; -1 for none.
const (
	codecNone = -1
	codecLZ4  = 0
	codecZstd = 1
)

// batchCodecs returns the body compression of every record batch of an
// Arrow file, read from the message metadata.
func batchCodecs(t *testing.T, file []byte) []int {
	t.Helper()
	n := len(file)
	footerLen := int(binary.LittleEndian.Uint32(file[n-10:]))
	blocks, _, err := checkFooter(file[n-10-footerLen : n-10])
	if err != nil {
		t.Fatal(err)
	}
	var codecs []int
	for _, b := range blocks {
		fb, err := messageFlatbuffer(file[b.offset : b.offset+int64(b.metaLen)])
		if err != nil {
			t.Fatal(err)
		}
		c := newFBChecker(fb)
		msg, err := c.root()
		if err != nil {
			t.Fatal(err)
		}
		batch, _, err := c.subTable(msg, 2)
		if err != nil {
			t.Fatal(err)
		}
		compression, ok, err := c.subTable(batch, 3)
		switch {
		case err != nil:
			t.Fatal(err)
		case !ok:
			codecs = append(codecs, codecNone)
		default:
			codec, err := c.byteField(compression, 0)
			if err != nil {
				t.Fatal(err)
			}
			codecs = append(codecs, int(codec))
		}
	}
	return codecs
}

// TestWriterFlushesOnBodyBytes checks the 64 MiB bound on a batch's body.
func TestWriterFlushesOnBodyBytes(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 24<<20)
	var reqs []trace.Request
	for i := range 4 {
		reqs = append(reqs, trace.Request{RequestID: fmt.Sprint(i), T0Ns: 1, Chunks: []trace.Chunk{{TNs: 2, Data: big}}})
	}
	data := writeTrace(t, formats[0], trace.WriteOptions{}, reqs, ipc.WithZstd())
	fr, err := ipc.NewFileReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	if got, want := fr.NumRecords(), 2; got != want { // 24+24+24 MiB ≥ 64 MiB, then 24 MiB
		t.Errorf("record batches: got %d, want %d", got, want)
	}
}

func TestEmptyTrace(t *testing.T) {
	for _, f := range formats {
		data := writeTrace(t, f, trace.WriteOptions{Meta: sampleMeta}, nil, ipc.WithZstd())
		got, info, err := readAll(t, f, "empty", data, memory.NewGoAllocator())
		if err != nil || len(got) != 0 || info.Layout != trace.Nested {
			t.Errorf("%s: got %d requests, layout %q, err %v; want none, nested, nil", f.name, len(got), info.Layout, err)
		}
	}
}

// TestCompression reads files written uncompressed, with lz4 and with zstd.
func TestCompression(t *testing.T) {
	codecs := []struct {
		name  string
		codec ipc.Option
		id    int
	}{{"none", nil, codecNone}, {"lz4", ipc.WithLZ4(), codecLZ4}, {"zstd", ipc.WithZstd(), codecZstd}}
	want := sampleRequests()
	// A compressible body shows that the codec was applied.
	want[5].Chunks = append(want[5].Chunks, trace.Chunk{TNs: 5_020, Data: bytes.Repeat([]byte("data: same\n\n"), 4000)})
	sizes := map[string]int{}
	for _, f := range formats {
		for _, c := range codecs {
			t.Run(f.name+"/"+c.name, func(t *testing.T) {
				data := writeTrace(t, f, trace.WriteOptions{Extra: sampleExtra, RowGroupRequests: 4}, want, c.codec)
				sizes[f.name+c.name] = len(data)
				if !f.stream {
					if got := batchCodecs(t, data); !reflect.DeepEqual(got, []int{c.id, c.id}) {
						t.Errorf("body compression of each batch: got %v, want %d", got, c.id)
					}
				}
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				got, _, err := readAll(t, f, "c."+f.name, data, mem)
				if err != nil {
					t.Fatal(err)
				}
				mem.AssertSize(t, 0)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("requests differ after a round trip with %s", c.name)
				}
			})
		}
		for _, c := range codecs[1:] {
			if sizes[f.name+c.name]*2 > sizes[f.name+"none"] {
				t.Errorf("%s with %s: %d bytes, uncompressed %d: want it at least halved", f.name, c.name, sizes[f.name+c.name], sizes[f.name+"none"])
			}
		}
	}
}

func flatSchema() *arrow.Schema {
	return schemaWith(map[string]string{trace.KeySchemaVersion: "1"},
		arrow.Field{Name: "request_id", Type: arrow.BinaryTypes.LargeString},
		arrow.Field{Name: "t0_ns", Type: arrow.PrimitiveTypes.Int64},
		arrow.Field{Name: "t_ns", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "data", Type: arrow.BinaryTypes.LargeBinary, Nullable: true},
		arrow.Field{Name: "http_status", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	)
}

type flatRow struct {
	id   string
	t0   int64
	tNs  *int64
	data []byte
}

func fillFlat(rows ...flatRow) func(b *array.RecordBuilder) {
	return func(b *array.RecordBuilder) {
		for _, r := range rows {
			b.Field(0).(*array.LargeStringBuilder).Append(r.id)
			b.Field(1).(*array.Int64Builder).Append(r.t0)
			if r.tNs == nil {
				b.Field(2).(*array.Int64Builder).AppendNull()
				b.Field(3).(*array.BinaryBuilder).AppendNull()
			} else {
				b.Field(2).(*array.Int64Builder).Append(*r.tNs)
				b.Field(3).(*array.BinaryBuilder).Append(r.data)
			}
			b.Field(4).(*array.Int64Builder).Append(200)
		}
	}
}

// TestFlatRegrouped reads a flat file whose requests interleave, across
// batches, and a contiguous one: large types and an int64 http_status.
func TestFlatRegrouped(t *testing.T) {
	rowsA := fillFlat(
		flatRow{"a", 10, i64(11), []byte("a1")},
		flatRow{"b", 20, i64(21), []byte("b1")},
		flatRow{"a", 10, i64(12), []byte("a2")},
	)
	rowsB := fillFlat(
		flatRow{"c", 30, nil, nil},
		flatRow{"b", 20, i64(22), []byte{0xff}},
		flatRow{"a", 10, i64(13), []byte("")},
	)
	ok := i32(200)
	want := []trace.Request{
		{RequestID: "a", T0Ns: 10, HTTPStatus: ok, Chunks: []trace.Chunk{{TNs: 11, Data: []byte("a1")}, {TNs: 12, Data: []byte("a2")}, {TNs: 13, Data: []byte{}}}},
		{RequestID: "b", T0Ns: 20, HTTPStatus: ok, Chunks: []trace.Chunk{{TNs: 21, Data: []byte("b1")}, {TNs: 22, Data: []byte{0xff}}}},
		{RequestID: "c", T0Ns: 30, HTTPStatus: ok},
	}
	for _, f := range formats {
		t.Run(f.name, func(t *testing.T) {
			data := writeRecords(t, f.stream, flatSchema(), rowsA, rowsB)
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			got, info, err := readAll(t, f, "interleaved", data, mem)
			if err != nil {
				t.Fatal(err)
			}
			mem.AssertSize(t, 0)
			if !info.Regrouped || info.Layout != trace.Flat {
				t.Errorf("info: Regrouped %v, Layout %q: want true, flat", info.Regrouped, info.Layout)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %#v\nwant %#v", got, want)
			}

			sorted := writeRecords(t, f.stream, flatSchema(), fillFlat(
				flatRow{"a", 10, i64(11), []byte("a1")}, flatRow{"a", 10, i64(12), []byte("a2")},
			), fillFlat(
				flatRow{"a", 10, i64(13), []byte("")}, flatRow{"b", 20, i64(21), []byte("b1")}, flatRow{"b", 20, i64(22), []byte{0xff}},
				flatRow{"c", 30, nil, nil},
			))
			got, info, err = readAll(t, f, "sorted", sorted, mem)
			if err != nil {
				t.Fatal(err)
			}
			mem.AssertSize(t, 0)
			if info.Regrouped {
				t.Error("a contiguous flat file was regrouped")
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %#v\nwant %#v", got, want)
			}
		})
	}
}

func TestNoSchemaVersion(t *testing.T) {
	data := writeRecords(t, false, schemaWith(nil, flatSchema().Fields()...), fillFlat(flatRow{"a", 1, nil, nil}))
	_, info, err := readAll(t, formats[0], "old.arrow", data, memory.NewGoAllocator())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"no sseaudit.schema_version: read as version 1"}
	if !reflect.DeepEqual(info.Notes, want) || len(info.Meta) != 0 {
		t.Errorf("notes %q, meta %v: want %q and no metadata", info.Notes, info.Meta, want)
	}
}

// nestedSchema is a nested-layout schema with the given fields replaced or
// dropped (nil type).
func nestedSchema(meta map[string]string, change map[string]arrow.DataType) *arrow.Schema {
	base := []arrow.Field{
		{Name: "request_id", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "t0_ns", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "chunks", Type: arrow.ListOfField(arrow.Field{Name: "element", Type: chunkType, Nullable: true}), Nullable: true},
	}
	var fields []arrow.Field
	for _, f := range base {
		if t, ok := change[f.Name]; ok {
			if t == nil {
				continue
			}
			f.Type = t
		}
		fields = append(fields, f)
	}
	for name, t := range change {
		if t != nil && name != "request_id" && name != "t0_ns" && name != "chunks" {
			fields = append(fields, arrow.Field{Name: name, Type: t, Nullable: true})
		}
	}
	if meta == nil {
		meta = map[string]string{trace.KeySchemaVersion: "1"}
	}
	return schemaWith(meta, fields...)
}

type nestedRow struct {
	id     *string
	t0     int64
	chunks []trace.Chunk
}

func fillNested(rows ...nestedRow) func(b *array.RecordBuilder) {
	return func(b *array.RecordBuilder) {
		for _, r := range rows {
			if r.id == nil {
				b.Field(0).AppendNull()
			} else {
				b.Field(0).(*array.StringBuilder).Append(*r.id)
			}
			b.Field(1).(*array.Int64Builder).Append(r.t0)
			lb := b.Field(2).(*array.ListBuilder)
			lb.Append(true)
			sb := lb.ValueBuilder().(*array.StructBuilder)
			for _, c := range r.chunks {
				sb.Append(true)
				sb.FieldBuilder(0).(*array.Int64Builder).Append(c.TNs)
				sb.FieldBuilder(1).(*array.BinaryBuilder).Append(c.Data)
			}
		}
	}
}

func TestBadInput(t *testing.T) {
	valid := writeTrace(t, formats[0], trace.WriteOptions{Extra: sampleExtra, RowGroupRequests: 3}, sampleRequests(), ipc.WithZstd())
	validStream := writeTrace(t, formats[1], trace.WriteOptions{Extra: sampleExtra, RowGroupRequests: 3}, sampleRequests(), ipc.WithZstd())
	one := func(rows ...nestedRow) []func(*array.RecordBuilder) {
		return []func(*array.RecordBuilder){fillNested(rows...)}
	}
	ok := fillNested(nestedRow{id: strp("a"), t0: 1})
	cases := []struct {
		name   string
		f      format
		data   []byte
		want   string
		errLim bool
	}{
		{name: "truncated file", f: formats[0], data: valid[:len(valid)/2],
			want: `bad.arrow: does not end with the Arrow IPC file magic "ARROW1": the file is truncated or was not finished`},
		{name: "tiny file", f: formats[0], data: valid[:10],
			want: `bad.arrow: is 10 bytes long, too short for an Arrow IPC file (truncated?)`},
		{name: "truncated stream", f: formats[1], data: validStream[:len(validStream)/2],
			want: `bad.arrow: row group 1: cannot read record batch: arrow/ipc: could not read message metadata: unexpected EOF`},
		{name: "empty stream", f: formats[1], data: nil,
			want: `bad.arrow: cannot read the Arrow IPC stream schema: want an Arrow IPC stream (.arrows)`},
		{name: "wrong magic", f: formats[0], data: append([]byte("PAR1xxxxxxxxxxxxxxxxxxxxxx"), valid[26:]...),
			want: `bad.arrow: does not start with the Arrow IPC file magic "ARROW1": want an Arrow IPC file`},
		{name: "file read as a stream", f: formats[1], data: valid,
			want: `bad.arrow: is an Arrow IPC file, not a stream: name it .arrow or read it with --in-format arrow`},
		{name: "corrupt footer", f: formats[0], data: corruptFooter(valid),
			want: `bad.arrow: corrupt Arrow IPC file footer: flatbuffer offset`},
		{name: "missing t0_ns", f: formats[0],
			data: writeRecords(t, false, nestedSchema(nil, map[string]arrow.DataType{"t0_ns": nil})),
			want: `bad.arrow: column t0_ns: missing required field t0_ns: want a field of type int64`},
		{name: "mistyped t0_ns", f: formats[1],
			data: writeRecords(t, true, nestedSchema(nil, map[string]arrow.DataType{"t0_ns": arrow.BinaryTypes.String})),
			want: `bad.arrow: column t0_ns: field t0_ns has type utf8: want int64`},
		{name: "mistyped request_id", f: formats[0],
			data: writeRecords(t, false, nestedSchema(nil, map[string]arrow.DataType{"request_id": arrow.PrimitiveTypes.Int64})),
			want: `bad.arrow: column request_id: field request_id has type int64: want utf8 (or large_utf8, string_view, or a dictionary of them)`},
		{name: "mistyped chunks", f: formats[0],
			data: writeRecords(t, false, nestedSchema(nil, map[string]arrow.DataType{"chunks": arrow.ListOf(arrow.PrimitiveTypes.Int64)})),
			want: `bad.arrow: column chunks: field chunks has type list<item: int64, nullable>: want list<struct<t_ns: int64, data: binary>> (or large_list)`},
		{name: "no layout", f: formats[0],
			data: writeRecords(t, false, nestedSchema(nil, map[string]arrow.DataType{"chunks": nil})),
			want: `bad.arrow: column chunks: no chunks field (nested layout) nor t_ns and data fields (flat layout): want one of the layouts of trace schema v1`},
		{name: "flat without data", f: formats[0],
			data: writeRecords(t, false, nestedSchema(nil, map[string]arrow.DataType{"chunks": nil, "t_ns": arrow.PrimitiveTypes.Int64})),
			want: `bad.arrow: column data: missing field data: the flat layout wants both t_ns and data`},
		{name: "list extra column", f: formats[0],
			data: writeRecords(t, false, nestedSchema(nil, map[string]arrow.DataType{"tags": arrow.ListOf(arrow.BinaryTypes.String)})),
			want: `bad.arrow: column tags: extra field tags has type list<item: utf8, nullable>: want utf8, int64, float64, bool or binary`},
		{name: "json kind on int64", f: formats[0],
			data: writeRecords(t, false, nestedSchema(map[string]string{"sseaudit.extra_kind.n": "json"}, map[string]arrow.DataType{"n": arrow.PrimitiveTypes.Int64})),
			want: `bad.arrow: column n: metadata sseaudit.extra_kind.n = "json" but the field has type int64: want utf8`},
		{name: "dictionary field", f: formats[0],
			data: writeRecords(t, false, nestedSchema(nil, map[string]arrow.DataType{"tag": &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.PrimitiveTypes.Int64}})),
			want: `bad.arrow: column tag: extra field tag has type dictionary<values=int64, indices=int32, ordered=false>: want utf8, int64, float64, bool or binary`},
		{name: "dictionary field stream", f: formats[1],
			data: writeRecords(t, true, nestedSchema(nil, map[string]arrow.DataType{"tag": &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.PrimitiveTypes.Int64}})),
			want: `bad.arrow: column tag: extra field tag has type dictionary<values=int64, indices=int32, ordered=false>: want utf8, int64, float64, bool or binary`},
		{name: "schema version 2", f: formats[0],
			data: writeRecords(t, false, nestedSchema(map[string]string{"sseaudit.schema_version": "2"}, nil)),
			want: `bad.arrow: metadata sseaudit.schema_version = "2": want "1"`},
		{name: "null request_id", f: formats[0],
			data: writeRecords(t, false, nestedSchema(nil, nil), one(nestedRow{id: strp("a"), t0: 1}, nestedRow{id: strp("b"), t0: 2}, nestedRow{t0: 3})...),
			want: `bad.arrow: row 2, column request_id: null request_id: want a non-empty, unique id`},
		{name: "null request_id flat", f: formats[1],
			data: writeRecords(t, true, flatSchema(), fillFlat(flatRow{"a", 1, nil, nil}, flatRow{"", 2, nil, nil})),
			want: `bad.arrow: row 1, column request_id: null or empty request_id: want a non-empty id on every row`},
		{name: "duplicate request_id", f: formats[1],
			data: writeRecords(t, true, nestedSchema(nil, nil), ok, fillNested(nestedRow{id: strp("b"), t0: 1}, nestedRow{id: strp("a"), t0: 5})),
			want: `bad.arrow: row 2, request "a", column request_id: duplicate request_id (first seen at row 0): want unique ids`},
		{name: "backwards chunk times", f: formats[0],
			data: writeRecords(t, false, nestedSchema(nil, nil), one(nestedRow{id: strp("a"), t0: 1, chunks: []trace.Chunk{{TNs: 9, Data: []byte("x")}, {TNs: 8, Data: []byte("y")}}})...),
			want: `bad.arrow: row 0, request "a", column chunks: chunk 1: t_ns 8 goes back from 9: want non-decreasing chunk times`},
		{name: "chunk before t0", f: formats[1],
			data: writeRecords(t, true, nestedSchema(nil, nil), one(nestedRow{id: strp("a"), t0: 10, chunks: []trace.Chunk{{TNs: 9, Data: []byte("x")}}})...),
			want: `bad.arrow: row 0, request "a", column chunks: chunk 0: t_ns 9 is before t0_ns 10`},
		{name: "absurd metadata length", f: formats[1], data: patchStreamMetaLength(validStream),
			want: `bad.arrow: cannot read the Arrow IPC stream schema: want an Arrow IPC stream (.arrows): arrow/ipc: could not read message schema: arrow/ipc: message metadata length 2147483647 is more than the file size`},
		{name: "absurd body length", f: formats[1], data: patchStreamBodyLength(t, validStream),
			want: `bad.arrow: row group 0: cannot read record batch: arrow/ipc: message body length 1099511627776 is more than the file size`},
		{name: "absurd decompressed length", f: formats[1], data: patchDecompressedLength(t, validStream),
			want: `bad.arrow: row group 0: record batch too large to decode`, errLim: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := readAll(t, c.f, "bad.arrow", c.data, memory.NewGoAllocator())
			var te *trace.Error
			if !errors.As(err, &te) {
				t.Fatalf("got %v (%T), want a *trace.Error", err, err)
			}
			if !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("error:\n got %s\nwant %s...", err, c.want)
			}
			if errors.Is(err, trace.ErrLimit) != c.errLim {
				t.Errorf("errors.Is(err, trace.ErrLimit) = %v, want %v", !c.errLim, c.errLim)
			}
		})
	}
}

// corruptFooter overwrites the flatbuffer footer of an Arrow file with junk,
// keeping the magic and the footer length.
func corruptFooter(file []byte) []byte {
	out := bytes.Clone(file)
	n := len(out)
	size := int(binary.LittleEndian.Uint32(out[n-10:]))
	for i := n - 10 - size; i < n-10; i++ {
		out[i] = 0xa5
	}
	return out
}

// The stream messages: 0xFFFFFFFF, int32 metadata length, metadata, body.
func streamMessage(stream []byte, off int) (metaStart, metaLen int) {
	return off + 8, int(binary.LittleEndian.Uint32(stream[off+4:]))
}

func patchStreamMetaLength(stream []byte) []byte {
	out := bytes.Clone(stream)
	binary.LittleEndian.PutUint32(out[4:], math.MaxInt32)
	return out
}

// firstBatch locates the first record batch message: its metadata and its
// body, whose length is read from the metadata by searching for the value
// that makes the next message start where a continuation marker is.
func firstBatch(t testing.TB, stream []byte) (metaStart, metaLen, bodyLenAt, bodyStart int) {
	t.Helper()
	s, l := streamMessage(stream, 0)
	metaStart, metaLen = streamMessage(stream, s+l)
	bodyStart = metaStart + metaLen
	for at := metaStart; at+8 <= bodyStart; at++ {
		b := int(binary.LittleEndian.Uint64(stream[at:]))
		if b > 0 && b%8 == 0 && bodyStart+b+4 <= len(stream) && binary.LittleEndian.Uint32(stream[bodyStart+b:]) == 0xFFFFFFFF {
			return metaStart, metaLen, at, bodyStart
		}
	}
	t.Fatal("cannot find the body length of the first record batch")
	return
}

func patchStreamBodyLength(t testing.TB, stream []byte) []byte {
	out := bytes.Clone(stream)
	_, _, at, _ := firstBatch(t, out)
	binary.LittleEndian.PutUint64(out[at:], 1<<40)
	return out
}

// patchDecompressedLength makes the first compressed buffer of the first
// batch (request_id offsets: the validity buffer of a column without nulls
// is empty) claim 1 TiB once decompressed.
func patchDecompressedLength(t testing.TB, stream []byte) []byte {
	out := bytes.Clone(stream)
	_, _, _, body := firstBatch(t, out)
	binary.LittleEndian.PutUint64(out[body:], 1<<40)
	return out
}

// TestCorruptDataNoPanic flips bytes all over valid files: every read ends
// in requests or a *trace.Error, never a panic.
func TestCorruptDataNoPanic(t *testing.T) {
	for _, f := range formats {
		for _, layout := range []trace.Layout{trace.Nested, trace.Flat} {
			data := writeTrace(t, f, trace.WriteOptions{Extra: sampleExtra, Layout: layout, RowGroupRequests: 3}, sampleRequests(), nil)
			for i := 0; i < len(data); i += 7 {
				bad := bytes.Clone(data)
				bad[i] ^= 0x5a
				_, _, err := readAll(t, f, "flip", bad, memory.NewGoAllocator())
				var te *trace.Error
				if err != nil && !errors.As(err, &te) {
					t.Fatalf("%s %s, byte %d flipped: got %v (%T), want a *trace.Error", f.name, layout, i, err, err)
				}
			}
		}
	}
}

func TestBoundedAllocator(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	a := newBoundedAllocator(mem, 100)
	b := a.Allocate(60)
	b = a.Reallocate(90, b)
	func() {
		defer func() {
			var lim *allocLimitError
			if p := recover(); p == nil || !errors.As(p.(error), &lim) {
				t.Errorf("allocating past the limit: recovered %v, want an *allocLimitError", p)
			}
		}()
		a.Allocate(11)
	}()
	a.Free(b)
	if got := a.live.Load(); got != 0 {
		t.Errorf("live bytes after freeing all: %d", got)
	}
	mem.AssertSize(t, 0)
}

func TestRegistered(t *testing.T) {
	for name, ext := range map[string]string{"arrow": "x.feather", "arrows": "x.arrows"} {
		f, err := trace.LookupFormat("", ext)
		if err != nil || f.Name != name {
			t.Errorf("LookupFormat(%q): got %v, %v; want format %s", ext, f, err, name)
		}
	}
}

// TestOtherArrowTypes reads the types a reader accepts besides the canonical
// ones: string_view, binary_view, large_list with an "element" field, and an
// int64 http_status, which must fit an int32.
func TestOtherArrowTypes(t *testing.T) {
	chunk := arrow.StructOf(
		arrow.Field{Name: "data", Type: arrow.BinaryTypes.BinaryView},
		arrow.Field{Name: "t_ns", Type: arrow.PrimitiveTypes.Int64},
	)
	schema := schemaWith(map[string]string{trace.KeySchemaVersion: "1", "sseaudit.extra_kind.attrs": "json", "other": "dropped"},
		arrow.Field{Name: "t0_ns", Type: arrow.PrimitiveTypes.Int64},
		arrow.Field{Name: "attrs", Type: arrow.BinaryTypes.StringView, Nullable: true},
		arrow.Field{Name: "request_id", Type: arrow.BinaryTypes.StringView},
		arrow.Field{Name: "chunks", Type: arrow.LargeListOfField(arrow.Field{Name: "element", Type: chunk, Nullable: true}), Nullable: true},
		arrow.Field{Name: "time_points_s", Type: arrow.LargeListOf(arrow.PrimitiveTypes.Float64), Nullable: true},
		arrow.Field{Name: "http_status", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	)
	fill := func(status int64) func(b *array.RecordBuilder) {
		return func(b *array.RecordBuilder) {
			b.Field(0).(*array.Int64Builder).Append(10)
			b.Field(1).(*array.StringViewBuilder).Append(`{"a":"a string longer than twelve bytes"}`)
			b.Field(2).(*array.StringViewBuilder).Append("view-request-id-longer-than-12")
			lb := b.Field(3).(*array.LargeListBuilder)
			lb.Append(true)
			sb := lb.ValueBuilder().(*array.StructBuilder)
			sb.Append(true)
			sb.FieldBuilder(0).(*array.BinaryViewBuilder).Append([]byte("a chunk of more than twelve bytes\xff"))
			sb.FieldBuilder(1).(*array.Int64Builder).Append(11)
			tb := b.Field(4).(*array.LargeListBuilder)
			tb.Append(true)
			tb.ValueBuilder().(*array.Float64Builder).Append(0.5)
			b.Field(5).(*array.Int64Builder).Append(status)
		}
	}
	want := []trace.Request{{
		RequestID: "view-request-id-longer-than-12", T0Ns: 10, HTTPStatus: i32(200),
		Chunks:      []trace.Chunk{{TNs: 11, Data: []byte("a chunk of more than twelve bytes\xff")}},
		TimePointsS: []float64{0.5},
		Extra:       []trace.Value{{Str: `{"a":"a string longer than twelve bytes"}`}},
	}}
	for _, f := range formats {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		got, info, err := readAll(t, f, "views", writeRecords(t, f.stream, schema, fill(200)), mem)
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		mem.AssertSize(t, 0)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %#v\nwant %#v", f.name, got, want)
		}
		wantExtra := []trace.ExtraColumn{{Name: "attrs", Kind: trace.ExtraJSON}}
		wantMeta := trace.Meta{{Key: trace.KeySchemaVersion, Value: "1"}}
		if !reflect.DeepEqual(info.Extra, wantExtra) || !reflect.DeepEqual(info.Meta, wantMeta) {
			t.Errorf("%s: extra %v, meta %v; want %v, %v", f.name, info.Extra, info.Meta, wantExtra, wantMeta)
		}

		_, _, err = readAll(t, f, "views", writeRecords(t, f.stream, schema, fill(1<<40)), mem)
		const wantErr = `views: row 0, request "view-request-id-longer-than-12", column http_status: http_status 1099511627776 is out of the int32 range: want an HTTP status code`
		if err == nil || err.Error() != wantErr {
			t.Errorf("%s: got %v, want %s", f.name, err, wantErr)
		}
	}
}

// TestWriteJSONExtraKind checks the metadata a json extra column gets, and
// that the caller's own extra_kind keys give way to opts.Extra.
func TestWriteJSONExtraKind(t *testing.T) {
	meta := trace.Meta{{Key: trace.KeyExtraKindPrefix + "stale", Value: "json"}, {Key: trace.KeySchemaVersion, Value: "1"}}
	data := writeTrace(t, formats[0], trace.WriteOptions{Meta: meta, Extra: []trace.ExtraColumn{{Name: "attrs", Kind: trace.ExtraJSON}, {Name: "s", Kind: trace.ExtraString}}},
		[]trace.Request{{RequestID: "a", T0Ns: 1, Extra: []trace.Value{{Str: "[1]"}, {Str: "[1]"}}}}, nil)
	fr, err := ipc.NewFileReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	md := fr.Schema().Metadata()
	got := map[string]string{}
	for i, k := range md.Keys() {
		got[k] = md.Values()[i]
	}
	want := map[string]string{trace.KeySchemaVersion: "1", trace.KeyExtraKindPrefix + "attrs": "json"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("schema metadata: got %v, want %v", got, want)
	}
}

func TestWriterRefuses(t *testing.T) {
	var buf bytes.Buffer
	if _, err := NewFileWriter(&buf, trace.WriteOptions{Extra: []trace.ExtraColumn{{Name: "t0_ns", Kind: trace.ExtraInt64}}}); err == nil ||
		!strings.Contains(err.Error(), `extra column "t0_ns": the name is taken`) {
		t.Errorf("extra column named t0_ns: got %v, want an error naming it", err)
	}
	w, err := NewStreamWriter(&buf, trace.WriteOptions{Extra: sampleExtra})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Write(&trace.Request{RequestID: "a"}); err == nil || !strings.Contains(err.Error(), `request "a" has 0 extra values: want 6`) {
		t.Errorf("request without extra values: got %v", err)
	}
}

// TestEmptyChunkData: a batch whose chunks are all empty has an empty data
// buffer; the chunks still read back as empty, not null, data.
func TestEmptyChunkData(t *testing.T) {
	reqs := []trace.Request{{RequestID: "a", T0Ns: 1, Chunks: []trace.Chunk{{TNs: 1, Data: []byte{}}, {TNs: 2, Data: []byte{}}}}}
	for _, f := range formats {
		for _, layout := range []trace.Layout{trace.Nested, trace.Flat} {
			data := writeTrace(t, f, trace.WriteOptions{Layout: layout}, reqs, nil)
			got, _, err := readAll(t, f, "empty-data", data, memory.NewGoAllocator())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, reqs) || got[0].Chunks[0].Data == nil {
				t.Errorf("%s %s: got %#v, want %#v", f.name, layout, got, reqs)
			}
		}
	}
}

// TestThroughRegistry writes and reads both formats through trace.Create and
// trace.Open, by extension.
func TestThroughRegistry(t *testing.T) {
	for _, name := range []string{"t.arrow", "t.feather", "t.arrows"} {
		path := filepath.Join(t.TempDir(), name)
		w, err := trace.Create(path, "", nil, trace.WriteOptions{Meta: sampleMeta, Extra: sampleExtra, Layout: trace.Flat})
		if err != nil {
			t.Fatal(err)
		}
		want := sampleRequests()
		for i := range want {
			if err := w.Write(&want[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		r, err := trace.Open(path, trace.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got []trace.Request
		for r.Scan() {
			got = append(got, *r.Request().Clone())
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, flatExpectation(want)) || r.Info().Layout != trace.Flat {
			t.Errorf("%s: requests or layout differ after a round trip", name)
		}
	}
}
