package parquetfile

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/sseaudit/sseaudit/trace"
)

// TestPageVariants reads files whose pages take the reader's other paths:
// dictionary-encoded pages (read by index), data pages v1, and pages so
// small that each holds a few values.
func TestPageVariants(t *testing.T) {
	reqs := sampleRequests()
	for i := range 40 {
		r := trace.Request{RequestID: fmt.Sprintf("gen-%d", i), T0Ns: int64(i), HTTPStatus: ptr[int32](200),
			Extra: []trace.Value{{Str: "m"}, {Int: int64(i % 3)}, {Float: 0.5}, {Bool: i%2 == 0}, {Null: true}, {Str: "{}"}}}
		for j := range i % 7 {
			r.Chunks = append(r.Chunks, trace.Chunk{TNs: int64(i + j), Data: []byte(fmt.Sprintf("data: %d/%d\n\n", i, j))})
		}
		if i%5 == 0 {
			r.TimePointsS = []float64{float64(i), float64(i) + 0.5}
		}
		reqs = append(reqs, r)
	}
	for _, variant := range []struct {
		name    string
		options []parquet.WriterOption
	}{
		{"dictionary", []parquet.WriterOption{parquet.DefaultEncoding(&parquet.RLEDictionary)}},
		{"data page v1", []parquet.WriterOption{parquet.DataPageVersion(1)}},
		{"small pages", []parquet.WriterOption{parquet.PageBufferSize(64)}},
		{"small v1 dictionary pages", []parquet.WriterOption{parquet.PageBufferSize(64), parquet.DataPageVersion(1),
			parquet.DefaultEncoding(&parquet.RLEDictionary)}},
	} {
		for _, layout := range []trace.Layout{trace.Nested, trace.Flat} {
			t.Run(variant.name+"/"+string(layout), func(t *testing.T) {
				data := writeTraceWith(t, reqs, trace.WriteOptions{Extra: allExtras, Layout: layout, RowGroupRequests: 16}, variant.options...)
				_, got, err := readAll(t, "variant.parquet", data)
				if err != nil {
					t.Fatal(err)
				}
				checkRequests(t, got, reqs, layout)
			})
		}
	}
}

// TestFlatSharedValues checks that the rows after a request's first, whose
// request-level values the reader shares with the first row's where equal
// (by dictionary index when dictionary-encoded), still fail the check that
// those values are constant within a request.
func TestFlatSharedValues(t *testing.T) {
	v1 := map[string]string{trace.KeySchemaVersion: "1"}
	optI64 := parquet.Optional(parquet.Leaf(parquet.Int64Type))
	flat := func(ids []any, column string, node parquet.Node, values []any, encode func(parquet.Node) parquet.Node, groupRows ...int) []byte {
		t0, tns, data := make([]any, len(ids)), make([]any, len(ids)), make([]any, len(ids))
		for i := range ids {
			t0[i], tns[i], data[i] = int64(1), int64(2+i), []byte("x")
		}
		return writeRaw(t, []rawColumn{{"request_id", encode(parquet.String()), ids}, {"t0_ns", encode(parquet.Leaf(parquet.Int64Type)), t0},
			{"t_ns", optI64, tns}, {"data", parquet.Optional(parquet.Leaf(parquet.ByteArrayType)), data}, {column, encode(node), values}}, v1, groupRows...)
	}
	plain := func(n parquet.Node) parquet.Node { return n }
	dictionary := func(n parquet.Node) parquet.Node { return parquet.Encoded(n, &parquet.RLEDictionary) }
	optString := parquet.Optional(parquet.String())
	optDouble := parquet.Optional(parquet.Leaf(parquet.DoubleType))
	for _, tc := range []struct {
		name   string
		column string
		node   parquet.Node
		values []any
		want   string // "" for no error
	}{
		{"extra string alike", "model", optString, []any{"m", "m", "m", "n", "n"}, ""},
		{"extra string differs", "model", optString, []any{"m", "m", "n", "n", "n"}, `row 2, request "a", column model: differs from the request's first row (row 0)`},
		{"extra string null then set", "model", optString, []any{nil, "m", "m", "m", "m"}, `row 1, request "a", column model: differs`},
		{"extra string set then null", "model", optString, []any{"m", nil, "m", "m", "m"}, `row 1, request "a", column model: differs`},
		{"extra int differs", "attempt", optI64, []any{int64(1), int64(1), int64(2), int64(1), int64(1)}, `row 2, request "a", column attempt: differs`},
		{"extra float sign of zero", "temperature", optDouble, []any{0.0, math.Copysign(0, -1), 0.0, 0.0, 0.0}, `row 1, request "a", column temperature: differs`},
		{"end_ns differs", "end_ns", optI64, []any{int64(9), int64(9), int64(8), int64(9), int64(9)}, `row 2, request "a", column end_ns: differs`},
		{"end_ns null then set", "end_ns", optI64, []any{nil, int64(9), int64(9), int64(9), int64(9)}, `row 1, request "a", column end_ns: differs`},
		{"error differs", "error", optString, []any{"e", "e", "f", "g", "g"}, `row 2, request "a", column error: differs`},
		{"http_status differs", "http_status", parquet.Optional(parquet.Leaf(parquet.Int32Type)), []any{int32(200), int32(200), int32(200), int32(200), int32(500)}, `row 4, request "b", column http_status: differs from the request's first row (row 3)`},
		{"http_status null then set", "http_status", parquet.Optional(parquet.Leaf(parquet.Int32Type)), []any{nil, nil, int32(200), int32(200), int32(200)}, `row 2, request "a", column http_status: differs`},
		{"http_status set then null", "http_status", parquet.Optional(parquet.Leaf(parquet.Int32Type)), []any{int32(200), int32(200), int32(200), int32(200), nil}, `row 4, request "b", column http_status: differs`},
		{"error set then null", "error", optString, []any{"e", nil, "e", "f", "f"}, `row 1, request "a", column error: differs`},
	} {
		for _, enc := range []struct {
			name   string
			encode func(parquet.Node) parquet.Node
		}{{"plain", plain}, {"dictionary", dictionary}} {
			// Row groups of 2 rows split request "a": its third row is
			// compared with its first across a new dictionary.
			for _, groupRows := range [][]int{nil, {2}} {
				t.Run(fmt.Sprintf("%s/%s/groups of %v rows", tc.name, enc.name, groupRows), func(t *testing.T) {
					data := flat([]any{"a", "a", "a", "b", "b"}, tc.column, tc.node, tc.values, enc.encode, groupRows...)
					_, reqs, err := readAll(t, "shared.parquet", data)
					switch {
					case tc.want == "" && err != nil:
						t.Fatalf("error %v, want none", err)
					case tc.want == "" && (len(reqs) != 2 || len(reqs[0].Chunks) != 3 || len(reqs[1].Chunks) != 2):
						t.Fatalf("read %+v: want requests of 3 and 2 chunks", reqs)
					case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
						t.Fatalf("error %v, want it to contain %q", err, tc.want)
					}
				})
			}
		}
	}
	// Rows grouped in memory are compared with their request's first row,
	// which is not the previous row.
	notContiguous := []any{"a", "a", "b", "a", "a"}
	for _, enc := range []func(parquet.Node) parquet.Node{plain, dictionary} {
		data := flat(notContiguous, "model", optString, []any{"m", "m", "n", "m", "m"}, enc)
		if _, reqs, err := readAll(t, "shared.parquet", data); err != nil || len(reqs) != 2 || len(reqs[0].Chunks) != 4 {
			t.Errorf("not contiguous, alike: read %+v, %v: want requests of 4 and 1 chunks", reqs, err)
		}
		data = flat(notContiguous, "model", optString, []any{"m", "m", "n", "o", "o"}, enc)
		want := `row 3, request "a", column model: differs from the request's first row (row 0)`
		if _, _, err := readAll(t, "shared.parquet", data); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("not contiguous, differs: error %v, want it to contain %q", err, want)
		}
	}
}

// TestFlatWriterDictionary checks that the flat writer dictionary-encodes
// the request-level columns and only those, and that the nested writer's
// columns are as before.
func TestFlatWriterDictionary(t *testing.T) {
	for _, layout := range []trace.Layout{trace.Flat, trace.Nested} {
		data := writeTrace(t, sampleRequests(), trace.WriteOptions{Extra: allExtras, Layout: layout})
		pf, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range pf.Metadata().RowGroups[0].Columns {
			md := &c.MetaData
			name := strings.Join(md.PathInSchema, ".")
			chunkColumn := name == "t_ns" || name == "data" || strings.HasPrefix(name, "chunks.")
			var boolean bool
			for _, x := range allExtras {
				boolean = boolean || (x.Name == name && x.Kind == trace.ExtraBool)
			}
			wantDictionary := layout == trace.Flat && !chunkColumn && !boolean
			if got := md.DictionaryPageOffset > 0; got != wantDictionary {
				t.Errorf("%s: column %s has a dictionary: %v, want %v", layout, name, got, wantDictionary)
			}
		}
	}
}
