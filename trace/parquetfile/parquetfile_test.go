package parquetfile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/tracetest"
)

func ptr[T any](v T) *T { return &v }

// The requests, extra columns and metadata every format's tests share.
var (
	allExtras  = tracetest.Extras
	sampleMeta = tracetest.Meta
)

func sampleRequests() []trace.Request { return tracetest.Requests() }

func checkRequests(t testing.TB, got, reqs []trace.Request, layout trace.Layout) {
	t.Helper()
	tracetest.Check(t, got, reqs, layout)
}

func writeTrace(t testing.TB, reqs []trace.Request, opts trace.WriteOptions) []byte {
	t.Helper()
	return writeTraceWith(t, reqs, opts, parquet.Compression(&parquet.Zstd))
}

// writeTraceWith is writeTrace with the writer options given instead of
// NewWriter's.
func writeTraceWith(t testing.TB, reqs []trace.Request, opts trace.WriteOptions, options ...parquet.WriterOption) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := newWriter(&buf, opts, options...)
	if err != nil {
		t.Fatal(err)
	}
	for i := range reqs {
		if err := w.Write(&reqs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readAll reads every request; it returns what was read before an error.
func readAll(t testing.TB, name string, data []byte) (trace.Info, []trace.Request, error) {
	t.Helper()
	r, err := openReader(name, bytes.NewReader(data), int64(len(data)), trace.Limits{}, nil)
	if err != nil {
		return trace.Info{}, nil, err
	}
	defer r.Close()
	reqs, err := tracetest.ReadAll(r)
	return r.Info(), reqs, err
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		layout    trace.Layout
		rowGroups int
	}{
		{trace.Nested, 1}, {trace.Nested, 2}, {trace.Flat, 1}, {trace.Flat, 3},
	} {
		t.Run(string(tc.layout)+"/rowgroup"+string(rune('0'+tc.rowGroups)), func(t *testing.T) {
			reqs := sampleRequests()
			data := writeTrace(t, reqs, trace.WriteOptions{Meta: sampleMeta, Extra: allExtras, Layout: tc.layout, RowGroupRequests: tc.rowGroups})
			pf, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
			if err != nil {
				t.Fatal(err)
			}
			wantGroups := (len(reqs) + tc.rowGroups - 1) / tc.rowGroups
			if n := len(pf.RowGroups()); n != wantGroups {
				t.Errorf("%d row groups, want %d", n, wantGroups)
			}
			for _, c := range pf.Metadata().RowGroups[0].Columns {
				if got := c.MetaData.Codec.String(); got != "ZSTD" {
					t.Errorf("column %v compressed with %s, want ZSTD", c.MetaData.PathInSchema, got)
				}
			}
			info, got, err := readAll(t, "rt.parquet", data)
			if err != nil {
				t.Fatal(err)
			}
			checkRequests(t, got, reqs, tc.layout)
			wantMeta := append(trace.Meta(nil), sampleMeta...)
			wantMeta.Set(trace.KeySchemaVersion, "1")
			wantMeta.Set("sseaudit.extra_kind.attrs", "json")
			wantInfo := trace.Info{Path: "rt.parquet", Format: "parquet", Layout: tc.layout, Meta: wantMeta, Extra: allExtras}
			if !reflect.DeepEqual(info, wantInfo) {
				t.Errorf("info:\n got %#v\nwant %#v", info, wantInfo)
			}
		})
	}
}

// TestRoundTripNoExtras checks that requests with a nil Extra (no extra
// columns) come back with a nil Extra.
func TestRoundTripNoExtras(t *testing.T) {
	reqs := []trace.Request{{RequestID: "a", T0Ns: 1}, {RequestID: "b", T0Ns: 2, Chunks: []trace.Chunk{{TNs: 3, Data: []byte("z")}}}}
	for _, layout := range []trace.Layout{trace.Nested, trace.Flat} {
		data := writeTrace(t, reqs, trace.WriteOptions{Layout: layout})
		_, got, err := readAll(t, "x.parquet", data)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, reqs) {
			t.Errorf("%s: got %#v, want %#v", layout, got, reqs)
		}
	}
}

// TestRowGroupBodyBound checks the 64 MiB body bound: requests whose bodies
// add up past it are split into row groups before RowGroupRequests is hit.
func TestRowGroupBodyBound(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 100 MiB")
	}
	body := bytes.Repeat([]byte("a"), 25<<20)
	reqs := make([]trace.Request, 4)
	for i := range reqs {
		reqs[i] = trace.Request{RequestID: string(rune('a' + i)), T0Ns: 1, Chunks: []trace.Chunk{{TNs: 2, Data: body}}}
	}
	data := writeTrace(t, reqs, trace.WriteOptions{})
	pf, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	// 25+25+25 MiB reaches 64 MiB at the third request: groups of 3 and 1.
	var sizes []int64
	for _, g := range pf.RowGroups() {
		sizes = append(sizes, g.NumRows())
	}
	if !reflect.DeepEqual(sizes, []int64{3, 1}) {
		t.Errorf("row group sizes %v, want [3 1]", sizes)
	}
	_, got, err := readAll(t, "big.parquet", data)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || !bytes.Equal(got[3].Chunks[0].Data, body) {
		t.Errorf("read back %d requests or the wrong body", len(got))
	}
}

func TestMissingSchemaVersionNote(t *testing.T) {
	data := writeRaw(t, []rawColumn{{"request_id", parquet.String(), []any{"a"}}, {"t0_ns", parquet.Leaf(parquet.Int64Type), []any{int64(1)}},
		{"t_ns", parquet.Optional(parquet.Leaf(parquet.Int64Type)), []any{nil}}, {"data", parquet.Optional(parquet.Leaf(parquet.ByteArrayType)), []any{nil}}}, nil)
	info, got, err := readAll(t, "nover.parquet", data)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"no sseaudit.schema_version: read as version 1"}; !reflect.DeepEqual(info.Notes, want) {
		t.Errorf("notes %q, want %q", info.Notes, want)
	}
	if want := []trace.Request{{RequestID: "a", T0Ns: 1}}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v, want %#v", got, want)
	}
}

func TestFlatNonContiguous(t *testing.T) {
	// Rows: a0 b0 a1 c(no chunk) b1, in two row groups.
	col := func(vals ...any) []any { return vals }
	data := writeRaw(t, []rawColumn{
		{"request_id", parquet.String(), col("a", "b", "a", "c", "b")},
		{"t0_ns", parquet.Leaf(parquet.Int64Type), col(int64(10), int64(20), int64(10), int64(30), int64(20))},
		{"t_ns", parquet.Optional(parquet.Leaf(parquet.Int64Type)), col(int64(11), int64(21), int64(12), nil, int64(22))},
		{"data", parquet.Optional(parquet.Leaf(parquet.ByteArrayType)), col([]byte("a0"), []byte("b0"), []byte("a1"), nil, []byte{0xff})},
		{"http_status", parquet.Optional(parquet.Leaf(parquet.Int64Type)), col(int64(200), int64(500), int64(200), nil, int64(500))},
	}, map[string]string{trace.KeySchemaVersion: "1"}, 3)
	info, got, err := readAll(t, "nc.parquet", data)
	if err != nil {
		t.Fatal(err)
	}
	if !info.Regrouped || info.Layout != trace.Flat {
		t.Errorf("info %+v: want Regrouped and the flat layout", info)
	}
	want := []trace.Request{
		{RequestID: "a", T0Ns: 10, HTTPStatus: ptr[int32](200), Chunks: []trace.Chunk{{TNs: 11, Data: []byte("a0")}, {TNs: 12, Data: []byte("a1")}}},
		{RequestID: "b", T0Ns: 20, HTTPStatus: ptr[int32](500), Chunks: []trace.Chunk{{TNs: 21, Data: []byte("b0")}, {TNs: 22, Data: []byte{0xff}}}},
		{RequestID: "c", T0Ns: 30},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v\nwant %#v", got, want)
	}
}

func TestFlatContiguousStreams(t *testing.T) {
	reqs := sampleRequests()
	data := writeTrace(t, reqs, trace.WriteOptions{Extra: allExtras, Layout: trace.Flat, RowGroupRequests: 1})
	info, _, err := readAll(t, "c.parquet", data)
	if err != nil {
		t.Fatal(err)
	}
	if info.Regrouped {
		t.Error("a contiguous flat file was regrouped")
	}
}

// TestRegistered checks the format is registered and opens through trace.Open.
func TestRegistered(t *testing.T) {
	f, err := trace.LookupFormat("", "x.parquet")
	if err != nil || f.Name != "parquet" {
		t.Fatalf("LookupFormat: %v, %v", f, err)
	}
	path := filepath.Join(t.TempDir(), "t.parquet")
	w, err := trace.Create(path, "", nil, trace.WriteOptions{Meta: sampleMeta})
	if err != nil {
		t.Fatal(err)
	}
	req := trace.Request{RequestID: "x", T0Ns: 5, Chunks: []trace.Chunk{{TNs: 6, Data: []byte("d")}}}
	if err := w.Write(&req); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := trace.Open(path, trace.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !r.Scan() || !reflect.DeepEqual(*r.Request(), req) {
		t.Fatalf("read %#v, err %v", r.Request(), r.Err())
	}
	if r.Scan() || r.Err() != nil {
		t.Fatalf("second Scan: err %v", r.Err())
	}
}

func TestWriterRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts trace.WriteOptions
		want string
	}{
		{"reserved extra", trace.WriteOptions{Extra: []trace.ExtraColumn{{Name: "chunks", Kind: trace.ExtraString}}}, `extra column "chunks"`},
		{"duplicate extra", trace.WriteOptions{Extra: []trace.ExtraColumn{{Name: "a", Kind: trace.ExtraString}, {Name: "a", Kind: trace.ExtraInt64}}}, `extra column "a"`},
		{"bad kind", trace.WriteOptions{Extra: []trace.ExtraColumn{{Name: "a", Kind: 99}}}, "want string, int64"},
		{"version", trace.WriteOptions{Meta: trace.Meta{{Key: trace.KeySchemaVersion, Value: "2"}}}, `is "2"`},
		{"layout", trace.WriteOptions{Layout: "sideways"}, `layout "sideways"`},
	} {
		_, err := NewWriter(&bytes.Buffer{}, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
	w, err := NewWriter(&bytes.Buffer{}, trace.WriteOptions{Extra: allExtras})
	if err != nil {
		t.Fatal(err)
	}
	err = w.Write(&trace.Request{RequestID: "a"})
	if err == nil || !strings.Contains(err.Error(), "has 0 extra values: want 6") {
		t.Errorf("short Extra: error %v", err)
	}
}

// rawColumn is one top-level column for writeRaw: a leaf node and its values
// (nil for null), one per row.
type rawColumn struct {
	name   string
	node   parquet.Node
	values []any
}

// writeRaw writes a file with arbitrary flat (leaf) columns, as other
// writers could, split into row groups of groupRows rows (0: one group).
func writeRaw(t testing.TB, cols []rawColumn, meta map[string]string, groupRows ...int) []byte {
	t.Helper()
	g := orderedGroup{}
	for _, c := range cols {
		g = append(g, field(c.name, c.node))
	}
	var opts []parquet.WriterOption
	opts = append(opts, parquet.NewSchema("raw", g))
	for k, v := range meta {
		opts = append(opts, parquet.KeyValueMetadata(k, v))
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[any](&buf, opts...)
	n := len(cols[0].values)
	for i := 0; i < n; i++ {
		row := parquet.Row{}
		for j, c := range cols {
			v := c.values[i]
			def := 0
			if c.node.Optional() {
				def = 1
			}
			var pv parquet.Value
			switch x := v.(type) {
			case nil:
				pv, def = parquet.NullValue(), 0
			case string:
				pv = parquet.ByteArrayValue([]byte(x))
			case []byte:
				pv = parquet.ByteArrayValue(x)
			case int64:
				pv = parquet.Int64Value(x)
			case int32:
				pv = parquet.Int32Value(x)
			case float64:
				pv = parquet.DoubleValue(x)
			case bool:
				pv = parquet.BooleanValue(x)
			default:
				t.Fatalf("writeRaw: value %T", v)
			}
			row = append(row, pv.Level(0, def, j))
		}
		if _, err := w.WriteRows([]parquet.Row{row}); err != nil {
			t.Fatal(err)
		}
		if len(groupRows) > 0 && (i+1)%groupRows[0] == 0 {
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestOpenSource(t *testing.T) {
	data := writeTrace(t, sampleRequests(), trace.WriteOptions{Extra: allExtras})
	path := filepath.Join(t.TempDir(), "s.parquet")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := Open(trace.Source{Name: path, File: f, Size: int64(len(data))})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for r.Scan() {
		n++
	}
	if err := r.Err(); err != nil || n != len(sampleRequests()) {
		t.Errorf("read %d requests, err %v", n, err)
	}
	var te *trace.Error
	if err := r.Close(); err != nil && !errors.As(err, &te) {
		t.Error(err)
	}
}

// TestCodecsAndPageVersions reads files written with every codec the
// library supports and both data page versions: the page guard must accept
// what real writers produce.
func TestCodecsAndPageVersions(t *testing.T) {
	reqs := sampleRequests()
	// A body that compresses well, to have pages whose compressed and
	// uncompressed sizes differ a lot.
	reqs[0].Chunks = append(reqs[0].Chunks, trace.Chunk{TNs: 1_350, Data: bytes.Repeat([]byte("data: {}\n\n"), 5000)})
	for _, codec := range []struct {
		name  string
		codec compress.Codec
	}{
		{"uncompressed", &parquet.Uncompressed}, {"snappy", &parquet.Snappy}, {"gzip", &parquet.Gzip},
		{"brotli", &parquet.Brotli}, {"zstd", &parquet.Zstd}, {"lz4raw", &parquet.Lz4Raw},
	} {
		for _, version := range []int{1, 2} {
			for _, layout := range []trace.Layout{trace.Nested, trace.Flat} {
				t.Run(fmt.Sprintf("%s/v%d/%s", codec.name, version, layout), func(t *testing.T) {
					data := writeTraceWith(t, reqs, trace.WriteOptions{Extra: allExtras, Layout: layout, RowGroupRequests: 3},
						parquet.Compression(codec.codec), parquet.DataPageVersion(version))
					pf, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
					if err != nil {
						t.Fatal(err)
					}
					if got, want := pf.Metadata().RowGroups[0].Columns[0].MetaData.Codec, codec.codec.CompressionCodec(); got != want {
						t.Fatalf("written with %s, want %s", got, want)
					}
					_, got, err := readAll(t, "codec.parquet", data)
					if err != nil {
						t.Fatal(err)
					}
					checkRequests(t, got, reqs, layout)
				})
			}
		}
	}
}

func TestEmptyTrace(t *testing.T) {
	for _, layout := range []trace.Layout{trace.Nested, trace.Flat} {
		data := writeTrace(t, nil, trace.WriteOptions{Layout: layout, Meta: sampleMeta})
		info, got, err := readAll(t, "empty.parquet", data)
		if err != nil || len(got) != 0 {
			t.Errorf("%s: read %d requests, err %v; want none and no error", layout, len(got), err)
		}
		if info.Layout != layout {
			t.Errorf("layout %s, want %s", info.Layout, layout)
		}
	}
}
