package parquetfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/parquetfile/parquetedit"
)

// rewriteFooter is parquetedit.EditFooter, failing the test on an error.
func rewriteFooter(t *testing.T, data []byte, edit func(*format.FileMetaData)) []byte {
	t.Helper()
	out, err := parquetedit.EditFooter(data, edit)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// inflatePageHeader is parquetedit.InflateFirstPage, failing the test on an
// error.
func inflatePageHeader(t *testing.T, data []byte, uncompressed int32) []byte {
	t.Helper()
	out, err := parquetedit.InflateFirstPage(data, uncompressed)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestBadInput(t *testing.T) {
	good := writeTrace(t, sampleRequests(), trace.WriteOptions{Extra: allExtras})
	i64 := parquet.Leaf(parquet.Int64Type)
	optI64 := parquet.Optional(i64)
	optBytes := parquet.Optional(parquet.Leaf(parquet.ByteArrayType))
	v1 := map[string]string{trace.KeySchemaVersion: "1"}
	flatFile := func(ids []any, tns []any, data []any) []byte {
		t0 := make([]any, len(ids))
		for i := range t0 {
			t0[i] = int64(1)
		}
		return writeRaw(t, []rawColumn{{"request_id", parquet.Optional(parquet.String()), ids}, {"t0_ns", i64, t0},
			{"t_ns", optI64, tns}, {"data", optBytes, data}}, v1)
	}
	type listOfTags struct {
		RequestID string   `parquet:"request_id"`
		T0        int64    `parquet:"t0_ns"`
		TNs       *int64   `parquet:"t_ns,optional"`
		Data      []byte   `parquet:"data,optional"`
		Tags      []string `parquet:"tags,list"`
	}
	var nestedExtra bytes.Buffer
	{
		w := parquet.NewGenericWriter[listOfTags](&nestedExtra)
		if _, err := w.Write([]listOfTags{{RequestID: "a", T0: 1, Tags: []string{"x"}}}); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}

	for _, tc := range []struct {
		name string
		data []byte
		want string // the whole error text
	}{
		{"wrong magic", append([]byte("NOPE"), good[4:]...),
			`bad.parquet: starts with "NOPE": want the Parquet magic bytes "PAR1" (not a Parquet file)`},
		{"text file", []byte("request_id,t0_ns\nr0,1\n"),
			`bad.parquet: starts with "requ": want the Parquet magic bytes "PAR1" (not a Parquet file)`},
		{"too short", []byte("PAR1PAR1"),
			`bad.parquet: file is 8 bytes long: want at least 12 for a Parquet file (truncated or not Parquet)`},
		{"truncated", good[:len(good)/2],
			`bad.parquet: ends with`},
		{"truncated footer length", good[:len(good)-3],
			`(truncated file?)`},
		{"footer longer than file", append(append(append([]byte{}, good[:len(good)-8]...), 0xff, 0xff, 0xff, 0x7f), magic...),
			`bad.parquet: footer claims 2147483647 bytes in a file of`},
		{"corrupt footer", func() []byte {
			b := append([]byte{}, good...)
			n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
			for i := len(b) - 8 - n; i < len(b)-8; i++ {
				b[i] = 0xf9 // list headers of absurd length
			}
			return b
		}(), `bad.parquet: corrupt footer: `},
		{"absurd column chunk size", rewriteFooter(t, good, func(md *format.FileMetaData) {
			md.RowGroups[0].Columns[0].MetaData.TotalCompressedSize = 1 << 40
		}), `bad.parquet: row group 0: corrupt parquet file: column chunk 0 (request_id) claims bytes 4..1099511627780: want them within the`},
		{"absurd page size", inflatePageHeader(t, good, 1<<30),
			`bad.parquet: row group 0: corrupt parquet file: column chunk 0 (request_id): page at byte 4 claims 1073741824 uncompressed bytes`},
		{"missing t0_ns", writeRaw(t, []rawColumn{{"request_id", parquet.String(), []any{"a"}}, {"t_ns", optI64, []any{nil}}, {"data", optBytes, []any{nil}}}, v1),
			`bad.parquet: column t0_ns: missing: want a required INT64 column t0_ns`},
		{"missing request_id", writeRaw(t, []rawColumn{{"t0_ns", i64, []any{int64(1)}}, {"t_ns", optI64, []any{nil}}, {"data", optBytes, []any{nil}}}, v1),
			`bad.parquet: column request_id: missing: want a required BYTE_ARRAY (String) column request_id`},
		{"t0_ns as string", writeRaw(t, []rawColumn{{"request_id", parquet.String(), []any{"a"}}, {"t0_ns", parquet.String(), []any{"1"}},
			{"t_ns", optI64, []any{nil}}, {"data", optBytes, []any{nil}}}, v1),
			`bad.parquet: column t0_ns: has type BYTE_ARRAY (STRING): want INT64`},
		{"no layout", writeRaw(t, []rawColumn{{"request_id", parquet.String(), []any{"a"}}, {"t0_ns", i64, []any{int64(1)}}}, v1),
			`bad.parquet: neither a chunks column (nested layout) nor t_ns and data columns (flat layout): want one of them`},
		{"schema version 2", writeRaw(t, []rawColumn{{"request_id", parquet.String(), []any{"a"}}, {"t0_ns", i64, []any{int64(1)}},
			{"t_ns", optI64, []any{nil}}, {"data", optBytes, []any{nil}}}, map[string]string{trace.KeySchemaVersion: "2"}),
			`bad.parquet: metadata sseaudit.schema_version is "2": want "1"`},
		{"null request_id", flatFile([]any{"a", nil}, []any{nil, nil}, []any{nil, nil}),
			`bad.parquet: row 1, column request_id: null request_id: want a non-empty id`},
		{"duplicate request_id", writeTrace(t, []trace.Request{{RequestID: "a", T0Ns: 1}, {RequestID: "b", T0Ns: 1}, {RequestID: "a", T0Ns: 2}}, trace.WriteOptions{RowGroupRequests: 2}),
			`bad.parquet: row 2, request "a", column request_id: duplicate request_id (first seen at row 0): want unique ids`},
		// In the flat layout a repeated id is the same request, regrouped:
		// here it has two rows without a chunk.
		{"id repeated without chunks, flat", flatFile([]any{"a", "b", "a"}, []any{nil, nil, nil}, []any{nil, nil, nil}),
			`bad.parquet: row 2, request "a", column t_ns: a row without a chunk (null t_ns and data) must be the request's only row`},
		{"chunk time backwards", writeTrace(t, []trace.Request{{RequestID: "a", T0Ns: 1, Chunks: []trace.Chunk{{TNs: 9, Data: []byte("x")}, {TNs: 5, Data: []byte("y")}}}}, trace.WriteOptions{}),
			`bad.parquet: row 0, request "a", column chunks: chunk 1: t_ns 5 goes back from 9: want non-decreasing chunk times`},
		{"chunk time backwards, flat", writeTrace(t, []trace.Request{{RequestID: "a", T0Ns: 1, Chunks: []trace.Chunk{{TNs: 9, Data: []byte("x")}, {TNs: 5, Data: []byte("y")}}}}, trace.WriteOptions{Layout: trace.Flat}),
			`bad.parquet: row 0, request "a", column chunks: chunk 1: t_ns 5 goes back from 9: want non-decreasing chunk times`},
		{"t_ns null with data", flatFile([]any{"a", "a"}, []any{int64(2), nil}, []any{[]byte("x"), []byte("y")}),
			`bad.parquet: row 1, request "a", column t_ns: t_ns is null but data is not: want both null (a request without chunks) or both set`},
		{"data null with t_ns", flatFile([]any{"a"}, []any{int64(2)}, []any{nil}),
			`bad.parquet: row 0, request "a", column data: data is null but t_ns is not`},
		{"http_status out of range", writeRaw(t, []rawColumn{{"request_id", parquet.String(), []any{"a", "b"}}, {"t0_ns", i64, []any{int64(1), int64(1)}},
			{"t_ns", optI64, []any{nil, nil}}, {"data", optBytes, []any{nil, nil}}, {"http_status", optI64, []any{int64(200), int64(1 << 32)}}}, v1),
			`bad.parquet: row 1, request "b", column http_status: http_status 4294967296 is out of the int32 range`},
		{"list extra column", nestedExtra.Bytes(),
			`bad.parquet: column tags: is a group (list or struct): want an extra column of type String BYTE_ARRAY, BYTE_ARRAY, INT64, DOUBLE or BOOLEAN`},
		{"json kind on int column", writeRaw(t, []rawColumn{{"request_id", parquet.String(), []any{"a"}}, {"t0_ns", i64, []any{int64(1)}},
			{"t_ns", optI64, []any{nil}}, {"data", optBytes, []any{nil}}, {"x", optI64, []any{int64(3)}}},
			map[string]string{trace.KeySchemaVersion: "1", "sseaudit.extra_kind.x": "json"}),
			`bad.parquet: column x: has type INT64 (INT(64,true)) but metadata sseaudit.extra_kind.x says json: want a String BYTE_ARRAY column`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := readAll(t, "bad.parquet", tc.data)
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			var te *trace.Error
			if !errors.As(err, &te) {
				t.Errorf("error %T %v: want a *trace.Error", err, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error\n  %s\nwant it to contain\n  %s", err, tc.want)
			}
		})
	}
}

// TestCheckPages feeds the page guard column chunks whose page headers lie.
func TestCheckPages(t *testing.T) {
	var proto thrift.CompactProtocol
	page := func(h format.PageHeader, body int) []byte {
		b, err := thrift.Marshal(&proto, &h)
		if err != nil {
			t.Fatal(err)
		}
		return append(b, make([]byte, body)...)
	}
	dataPage := func(compressed, uncompressed, values int32) format.PageHeader {
		h := format.PageHeader{Type: format.DataPage, CompressedPageSize: compressed, UncompressedPageSize: uncompressed}
		h.DataPageHeader.Valid = true
		h.DataPageHeader.V.NumValues = values
		return h
	}
	const maxChunk = 256 << 20
	for _, tc := range []struct {
		name  string
		chunk []byte
		want  string
	}{
		{"fine", page(dataPage(10, 10, 3), 10), ""},
		{"two pages", append(page(dataPage(10, 20, 3), 10), page(dataPage(5, 5, 1), 5)...), ""},
		{"compressed past the chunk", page(dataPage(1000, 1000, 3), 10), "claims 1000 compressed bytes: want at most the 10 bytes left"},
		{"uncompressed absurd", page(dataPage(10, 1<<30, 3), 10), "claims 1073741824 uncompressed bytes from 10 compressed: want at most 269484032"},
		{"too many values", page(dataPage(10, 10, 1<<30), 10), "claims 1073741824 values in 10 bytes: want at most 16777216"},
		{"negative size", page(dataPage(-1, 10, 3), 0), "claims -1 compressed bytes"},
		{"garbage header", []byte{0xff, 0xff, 0xff, 0xff}, "page header at byte 0:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := Guard{r: bytes.NewReader(tc.chunk), maxPageBytes: maxChunk}
			err := g.checkPages(0, int64(len(tc.chunk)), format.Uncompressed, nil)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// listGroup is a group annotated as a LIST, for writing the list encodings
// of other writers.
type listGroup struct {
	orderedGroup
}

func (listGroup) Type() parquet.Type { return parquet.List(parquet.Leaf(parquet.Int64Type)).Type() }

// listLevels are the definition levels of one list leaf: a null list, an
// empty one, and a present value (-1: the encoding cannot say it).
type listLevels struct{ null, empty, value int }

func appendVariantList[T any](t *testing.T, row parquet.Row, list []T, col int, lv listLevels, value func(T) parquet.Value) parquet.Row {
	switch {
	case list == nil && lv.null >= 0:
		return append(row, parquet.NullValue().Level(0, lv.null, col))
	case len(list) == 0:
		return append(row, parquet.NullValue().Level(0, lv.empty, col))
	}
	for i, x := range list {
		rep := 1
		if i == 0 {
			rep = 0
		}
		row = append(row, value(x).Level(rep, lv.value, col))
	}
	return row
}

// TestListEncodings reads the chunks and time_points_s lists in the
// encodings of other writers: legacy 2-level lists, Spark's bag/array_element
// with optional fields, a bare repeated group, a repeated FLOAT primitive.
func TestListEncodings(t *testing.T) {
	i64 := parquet.Leaf(parquet.Int64Type)
	bin := parquet.Leaf(parquet.ByteArrayType)
	for _, tc := range []struct {
		name           string
		chunks, points parquet.Node
		chunkLv, tpLv  listLevels
		float32Points  bool
	}{
		{
			name: "legacy two-level",
			chunks: parquet.Optional(listGroup{orderedGroup{field("array", parquet.Repeated(orderedGroup{
				field("t_ns", parquet.Required(i64)), field("data", parquet.Required(bin))}))}}),
			chunkLv: listLevels{0, 1, 2},
			points:  parquet.Optional(listGroup{orderedGroup{field("array", parquet.Repeated(parquet.Leaf(parquet.FloatType)))}}),
			tpLv:    listLevels{0, 1, 2}, float32Points: true,
		},
		{
			name: "spark bag/array_element, optional fields",
			chunks: parquet.Optional(listGroup{orderedGroup{field("bag", parquet.Repeated(orderedGroup{
				field("array_element", parquet.Optional(orderedGroup{
					field("t_ns", parquet.Optional(i64)), field("data", parquet.Optional(bin))}))}))}}),
			chunkLv: listLevels{0, 1, 4},
			points: parquet.Optional(listGroup{orderedGroup{field("list", parquet.Repeated(orderedGroup{
				field("item", parquet.Optional(parquet.Leaf(parquet.DoubleType)))}))}}),
			tpLv: listLevels{0, 1, 3},
		},
		{
			name: "bare repeated group",
			chunks: parquet.Repeated(orderedGroup{
				field("t_ns", parquet.Required(i64)), field("data", parquet.Required(bin))}),
			chunkLv: listLevels{-1, 0, 1},
			points:  parquet.Repeated(parquet.Leaf(parquet.DoubleType)),
			tpLv:    listLevels{-1, 0, 1},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reqs := []trace.Request{
				{RequestID: "a", T0Ns: 1, Chunks: []trace.Chunk{{TNs: 2, Data: []byte("x")}, {TNs: 3, Data: []byte{0xff}}}, TimePointsS: []float64{0.5, 1.5}},
				{RequestID: "b", T0Ns: 1, Chunks: []trace.Chunk{}, TimePointsS: []float64{}},
				{RequestID: "c", T0Ns: 1},
			}
			g := orderedGroup{field("request_id", parquet.String()), field("t0_ns", i64),
				field("chunks", tc.chunks), field("time_points_s", tc.points)}
			var buf bytes.Buffer
			// GenericWriter refuses LIST groups that are not 3-level, which
			// is what this test must write.
			w := parquet.NewWriter(&buf, parquet.NewSchema("variant", g), parquet.KeyValueMetadata(trace.KeySchemaVersion, "1"))
			for _, r := range reqs {
				row := parquet.Row{parquet.ByteArrayValue([]byte(r.RequestID)).Level(0, 0, 0), parquet.Int64Value(r.T0Ns).Level(0, 0, 1)}
				row = appendVariantList(t, row, r.Chunks, 2, tc.chunkLv, func(c trace.Chunk) parquet.Value { return parquet.Int64Value(c.TNs) })
				row = appendVariantList(t, row, r.Chunks, 3, tc.chunkLv, func(c trace.Chunk) parquet.Value { return parquet.ByteArrayValue(c.Data) })
				row = appendVariantList(t, row, r.TimePointsS, 4, tc.tpLv, func(x float64) parquet.Value {
					if tc.float32Points {
						return parquet.FloatValue(float32(x))
					}
					return parquet.DoubleValue(x)
				})
				if _, err := w.WriteRows([]parquet.Row{row}); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			info, got, err := readAll(t, "variant.parquet", buf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if info.Layout != trace.Nested {
				t.Errorf("layout %s, want nested", info.Layout)
			}
			want := reqs
			if tc.chunkLv.null < 0 { // no null list in this encoding: null reads as empty
				want[2].Chunks, want[2].TimePointsS = []trace.Chunk{}, []float64{}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %#v\nwant %#v", got, want)
			}
		})
	}
}

// TestNullChunkField checks that a null t_ns inside a chunk (possible when
// the writer made the fields optional, as DuckDB does) is an error naming
// the chunk.
func TestNullChunkField(t *testing.T) {
	i64 := parquet.Leaf(parquet.Int64Type)
	chunks := parquet.Optional(listGroup{orderedGroup{field("list", parquet.Repeated(orderedGroup{
		field("element", parquet.Optional(orderedGroup{
			field("t_ns", parquet.Optional(i64)), field("data", parquet.Optional(parquet.Leaf(parquet.ByteArrayType)))}))}))}})
	g := orderedGroup{field("request_id", parquet.String()), field("t0_ns", i64), field("chunks", chunks)}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[any](&buf, parquet.NewSchema("x", g))
	row := parquet.Row{parquet.ByteArrayValue([]byte("a")).Level(0, 0, 0), parquet.Int64Value(1).Level(0, 0, 1),
		parquet.Int64Value(2).Level(0, 4, 2), parquet.NullValue().Level(1, 3, 2),
		parquet.ByteArrayValue([]byte("x")).Level(0, 4, 3), parquet.ByteArrayValue([]byte("y")).Level(1, 4, 3)}
	if _, err := w.WriteRows([]parquet.Row{row}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	_, _, err := readAll(t, "nullchunk.parquet", buf.Bytes())
	want := `nullchunk.parquet: row 0, request "a", column chunks: chunk 1 has a null t_ns: want both t_ns and data in every chunk`
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant %s", err, want)
	}
}

// TestCheckPageBodies feeds the guard pages whose bodies decompress to more
// than their headers claim, or not at all, in every codec.
func TestCheckPageBodies(t *testing.T) {
	var proto thrift.CompactProtocol
	big := bytes.Repeat([]byte("data: {}\n\n"), 100_000) // 1 MB that compresses to little
	encode := func(c compress.Codec, data []byte) []byte {
		b, err := c.Encode(nil, data)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	chunkOf := func(body []byte, uncompressed int32) []byte {
		h := format.PageHeader{Type: format.DataPage, CompressedPageSize: int32(len(body)), UncompressedPageSize: uncompressed}
		h.DataPageHeader.Valid = true
		h.DataPageHeader.V.NumValues = 1
		b, err := thrift.Marshal(&proto, &h)
		if err != nil {
			t.Fatal(err)
		}
		return append(b, body...)
	}
	garbage := bytes.Repeat([]byte{0xf0, 0x13, 0x77, 0x01}, 64)
	for _, tc := range []struct {
		name  string
		codec compress.Codec
		// For snappy the guard checks only the length the data declares:
		// snappy's decoder allocates exactly that and fails safely.
		checksGarbage bool
	}{
		{"snappy", &parquet.Snappy, false}, {"gzip", &parquet.Gzip, true}, {"brotli", &parquet.Brotli, true},
		{"zstd", &parquet.Zstd, true}, {"lz4raw", &parquet.Lz4Raw, true},
	} {
		codec := tc.codec.CompressionCodec()
		check := func(chunk []byte) error {
			g := Guard{r: bytes.NewReader(chunk), maxPageBytes: 256 << 20}
			return g.checkPages(0, int64(len(chunk)), codec, nil)
		}
		t.Run(tc.name, func(t *testing.T) {
			body := encode(tc.codec, big)
			if err := check(chunkOf(body, int32(len(big)))); err != nil {
				t.Errorf("honest page: %v", err)
			}
			err := check(chunkOf(body, 1000))
			if want := "does not decompress to the 1000 bytes the header claims"; err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("page claiming 1000 bytes: error %v, want %q", err, want)
			}
			err = check(chunkOf(garbage, 4096))
			if tc.checksGarbage && (err == nil || !strings.Contains(err.Error(), "does not decompress")) {
				t.Errorf("garbage page: error %v, want it not to decompress", err)
			}
		})
	}
}
