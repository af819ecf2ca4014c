// Package tracetest is the conformance suite every trace format passes, and
// the sample requests, extra columns and metadata the formats' own tests
// share: one place that says what a trace file must hold on to.
//
// Each format package runs it:
//
//	func TestConformance(t *testing.T) { tracetest.Run(t, "parquet") }
package tracetest

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sseaudit/sseaudit/trace"
)

// Extras are extra columns of every kind.
var Extras = []trace.ExtraColumn{
	{Name: "label", Kind: trace.ExtraString},
	{Name: "retries", Kind: trace.ExtraInt64},
	{Name: "weight", Kind: trace.ExtraFloat64},
	{Name: "warm", Kind: trace.ExtraBool},
	{Name: "blob", Kind: trace.ExtraBinary},
	{Name: "attrs", Kind: trace.ExtraJSON},
}

// Meta is run metadata of the kinds sseaudit writes.
var Meta = trace.Meta{
	{Key: trace.KeyMaxConcurrency, Value: "2"},
	{Key: trace.KeyRunPrefix + "host", Value: "bench-1"},
	{Key: trace.KeySource, Value: "tracetest"},
}

func i64(v int64) *int64    { return &v }
func i32(v int32) *int32    { return &v }
func strp(s string) *string { return &s }

// Requests cover every field of a request (Extras' columns): set, null,
// empty lists next to null ones, non-UTF-8, NUL and empty chunk data,
// chunks at one instant, many chunks (more than a small row group or batch
// holds), a negative t0, extra values of each kind at their extremes
// (MaxInt64, MinInt64, -0, 1e300, -Inf) and null.
func Requests() []trace.Request {
	many := make([]trace.Chunk, 40)
	for i := range many {
		many[i] = trace.Chunk{TNs: 5_000 + int64(i/3), Data: fmt.Appendf(nil, "data: %d\n\n", i)}
	}
	return []trace.Request{
		{
			RequestID: "r0", T0Ns: 1_000, EndNs: i64(1_400), HTTPStatus: i32(200),
			Chunks: []trace.Chunk{
				{TNs: 1_200, Data: []byte("data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n")},
				{TNs: 1_200, Data: []byte{0xff, 0xfe, 0x00, 0x80}},
				{TNs: 1_350, Data: []byte("data: [DONE]\n\n")},
			},
			TimePointsS: []float64{0.25, 0.5}, InputTokens: i64(12), OutputTokens: i64(3),
			Extra: []trace.Value{{Str: "a"}, {Int: -7}, {Float: 1.5}, {Bool: true}, {Bytes: []byte{0xff, 0x00}}, {Str: `{"k":[1,2]}`}},
		},
		{
			RequestID: "r1-null", T0Ns: 2_000,
			Extra: []trace.Value{{Null: true}, {Null: true}, {Null: true}, {Null: true}, {Null: true}, {Null: true}},
		},
		{
			RequestID: "r2-empty", T0Ns: 3_000, EndNs: i64(3_000), HTTPStatus: i32(200), Error: strp(""),
			Chunks: []trace.Chunk{}, TimePointsS: []float64{}, OutputTokens: i64(0),
			Extra: []trace.Value{{Str: ""}, {Int: 0}, {Float: math.Copysign(0, -1)}, {Bool: false}, {Bytes: []byte{}}, {Str: "null"}},
		},
		{
			RequestID: "r3-failed ünïcode", T0Ns: -5, EndNs: i64(4_100), Error: strp("connection reset by peer"),
			Chunks: []trace.Chunk{
				{TNs: 4_050, Data: []byte{0xff, 0xfe, 0x00, 'x', 0xc3}},
				{TNs: 4_050, Data: []byte{}},
			},
			Extra: []trace.Value{{Str: "ünïcode"}, {Int: math.MaxInt64}, {Float: 1e300}, {Bool: false}, {Null: true}, {Str: `"s"`}},
		},
		{
			RequestID: "r4-500", T0Ns: 4_500, HTTPStatus: i32(500), OutputTokens: i64(0),
			Chunks: []trace.Chunk{{TNs: 4_600, Data: []byte("oops")}},
			Extra:  []trace.Value{{Null: true}, {Int: math.MinInt64}, {Float: -0.125}, {Bool: true}, {Bytes: []byte("\x00\x01")}, {Null: true}},
		},
		{
			RequestID: "r5-many", T0Ns: 5_000, EndNs: i64(5_020), HTTPStatus: i32(200),
			Chunks: many, TimePointsS: []float64{-1, 1e-9},
			Extra: []trace.Value{{Str: "z"}, {Int: 1}, {Float: 2}, {Bool: true}, {Bytes: []byte("b")}, {Str: "[]"}},
		},
		{
			RequestID: "r6", T0Ns: 6_000, HTTPStatus: i32(429),
			Extra: []trace.Value{{Str: "last"}, {Int: 2}, {Float: 3}, {Bool: false}, {Bytes: []byte{}}, {Str: "{}"}},
		},
	}
}

// Flattened is what the flat layout gives back of reqs: it cannot tell an
// empty chunk list from a null one.
func Flattened(reqs []trace.Request) []trace.Request {
	out := append([]trace.Request(nil), reqs...)
	for i := range out {
		if len(out[i].Chunks) == 0 {
			out[i].Chunks = nil
		}
	}
	return out
}

// Expected is what a file of format gives back of reqs: JSON Lines writes
// a JSON extra value that is JSON's null as null (the file cannot tell the
// two apart; Parquet and Arrow keep the text "null" apart from a null cell).
func Expected(format string, reqs []trace.Request) []trace.Request {
	if format != "jsonl" {
		return reqs
	}
	out := make([]trace.Request, len(reqs))
	for i, r := range reqs {
		r.Extra = append([]trace.Value(nil), r.Extra...)
		for k, v := range r.Extra {
			if Extras[k].Kind == trace.ExtraJSON && !v.Null && v.Str == "null" {
				r.Extra[k] = trace.Value{Null: true}
			}
		}
		out[i] = r
	}
	return out
}

// Check fails unless got are the requests written, reqs, as a file of
// layout reads them back, naming the first that differs.
func Check(t testing.TB, got, reqs []trace.Request, layout trace.Layout) {
	t.Helper()
	want := reqs
	if layout == trace.Flat {
		want = Flattened(reqs)
	}
	if reflect.DeepEqual(got, want) {
		return
	}
	for i := range want {
		if i >= len(got) || !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("request %d: got %+v\nwant %+v", i, got[min(i, len(got)-1)], want[i])
		}
	}
	t.Fatalf("%d requests, want %d", len(got), len(want))
}

// ReadAll reads every request of r (each a copy: a reader reuses its
// memory); it returns those read before an error, and r.Err().
func ReadAll(r trace.Reader) ([]trace.Request, error) {
	var reqs []trace.Request
	for r.Scan() {
		reqs = append(reqs, *r.Request().Clone())
	}
	return reqs, r.Err()
}

// WriteAll writes every request of reqs to w and closes it.
func WriteAll(w trace.RequestWriter, reqs []trace.Request) error {
	for i := range reqs {
		if err := w.Write(&reqs[i]); err != nil {
			return fmt.Errorf("request %q: %w", reqs[i].RequestID, err)
		}
	}
	return w.Close()
}

// Run is the conformance suite of the named format (trace.Formats()):
// through trace.Create and trace.Open, in each layout it holds, Requests
// read back as written, with Meta and Extras in Info, in small row groups
// and one; no request at all; a copy of a trace in the format is the same
// bytes (writers are deterministic); a truncated file is an error naming
// the file, never a silent short read.
func Run(t *testing.T, format string) {
	f, err := trace.LookupFormat(format, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, layout := range f.Layouts {
		for _, rowGroup := range []int{0, 3} {
			t.Run(fmt.Sprintf("%s/row-groups-%d", layout, rowGroup), func(t *testing.T) {
				opts := trace.WriteOptions{Meta: append(trace.Meta(nil), Meta...), Extra: Extras, Layout: layout, RowGroupRequests: rowGroup}
				path := write(t, format, opts, Requests())
				info, got := read(t, path, format)
				Check(t, got, Expected(format, Requests()), layout)
				if info.Format != format || info.Layout != layout || !reflect.DeepEqual(info.Extra, Extras) {
					t.Errorf("info: format %q layout %q extra %v", info.Format, info.Layout, info.Extra)
				}
				for _, kv := range Meta {
					if v, ok := info.Meta.Get(kv.Key); !ok || v != kv.Value {
						t.Errorf("metadata %s = %q (%v), want %q", kv.Key, v, ok, kv.Value)
					}
				}
				again := write(t, format, opts, got)
				a, _ := os.ReadFile(path)
				b, _ := os.ReadFile(again)
				if !bytes.Equal(a, b) {
					t.Errorf("the requests read back write other bytes (%d, %d)", len(a), len(b))
				}
				truncated(t, format, a)
			})
		}
		t.Run(string(layout)+"/empty", func(t *testing.T) {
			path := write(t, format, trace.WriteOptions{Meta: append(trace.Meta(nil), Meta...), Layout: layout}, nil)
			_, got := read(t, path, format)
			if len(got) != 0 {
				t.Errorf("%d requests read from a trace of none", len(got))
			}
		})
	}
}

func write(t *testing.T, format string, opts trace.WriteOptions, reqs []trace.Request) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t."+format)
	w, err := trace.Create(path, format, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteAll(w, reqs); err != nil {
		w.Abort()
		t.Fatal(err)
	}
	return path
}

func read(t *testing.T, path, format string) (trace.Info, []trace.Request) {
	t.Helper()
	r, err := trace.Open(path, trace.OpenOptions{Format: format})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	reqs, err := ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return r.Info(), reqs
}

// truncated checks that data cut short anywhere in its last quarter is an
// error naming the file (or, for a format that reads line by line, fewer
// requests with an error), never the whole trace read without a word. (A
// JSON Lines file that lost only its last newline is whole: the cuts go
// deeper.)
func truncated(t *testing.T, format string, data []byte) {
	t.Helper()
	for _, cut := range []int{len(data) - 2, len(data) * 7 / 8, len(data) * 3 / 4} {
		path := filepath.Join(t.TempDir(), "cut."+format)
		if err := os.WriteFile(path, data[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := trace.Open(path, trace.OpenOptions{Format: format})
		if err == nil {
			_, err = ReadAll(r)
			r.Close()
		}
		if err == nil {
			t.Errorf("%s cut to %d of %d bytes reads without an error", format, cut, len(data))
		} else if !bytes.Contains([]byte(err.Error()), []byte(path)) {
			t.Errorf("%s cut to %d bytes: the error %q does not name the file", format, cut, err)
		}
	}
}
