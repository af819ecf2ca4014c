package arrowfile

import (
	"os"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sseaudit/sseaudit/trace"
)

// TestArrowJS reads a trace written by apache-arrow for JavaScript
// (testdata/traces/external/make-arrowjs.mjs) to exactly these values.
func TestArrowJS(t *testing.T) {
	const path = "../../testdata/traces/external/arrowjs-nested.arrow"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	got, info, err := readAll(t, formats[0], "arrowjs-nested.arrow", data, mem)
	if err != nil {
		t.Fatal(err)
	}
	mem.AssertSize(t, 0)

	want := []trace.Request{
		{
			RequestID: "js-0", T0Ns: 1000, EndNs: i64(1400), HTTPStatus: i32(200),
			Chunks: []trace.Chunk{
				{TNs: 1200, Data: []byte("data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n")},
				{TNs: 1300, Data: []byte{0xff, 0xfe, 0x00, 0x41, 0xc3}},
				{TNs: 1400, Data: []byte("data: [DONE]\n\n")},
			},
			Extra: []trace.Value{{Str: "first"}},
		},
		{RequestID: "js-1", T0Ns: 2000, Extra: []trace.Value{{Null: true}}},
		{
			RequestID: "js-2", T0Ns: 3000, EndNs: i64(3050), Error: strp("connection refused"),
			Chunks: []trace.Chunk{}, Extra: []trace.Value{{Str: "ünïcode"}},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("requests:\n got %#v\nwant %#v", got, want)
	}
	wantInfo := trace.Info{
		Path: "arrowjs-nested.arrow", Format: "arrow", Layout: trace.Nested,
		Meta: trace.Meta{
			{Key: trace.KeyMaxConcurrency, Value: "2"},
			{Key: trace.KeySchemaVersion, Value: "1"},
			{Key: trace.KeySource, Value: "make-arrowjs.mjs"},
		},
		Extra: []trace.ExtraColumn{{Name: "note", Kind: trace.ExtraString}},
	}
	if !reflect.DeepEqual(info, wantInfo) {
		t.Errorf("info:\n got %#v\nwant %#v", info, wantInfo)
	}
	if c, ok, err := info.Meta.MaxConcurrency(); c != 2 || !ok || err != nil {
		t.Errorf("MaxConcurrency() = %d, %v, %v; want 2, true, nil", c, ok, err)
	}
}

// TestArrowJSDictionaries reads a file apache-arrow JS wrote with
// dictionary-encoded request_id and error columns: it leaves the schema
// message out, as it does for every file, and such a file with
// dictionaries is read without the mapping. Both ways give the values of
// the same rows written without dictionaries.
func TestArrowJSDictionaries(t *testing.T) {
	const dir = "../../testdata/traces/external/"
	plain, err := os.ReadFile(dir + "arrowjs-nested.arrow")
	if err != nil {
		t.Fatal(err)
	}
	dict, err := os.ReadFile("testdata/arrowjs-dict.arrow")
	if err != nil {
		t.Fatal(err)
	}
	// The first message is a dictionary batch (header type 2), not a
	// schema: what makes the mapped reader fall back.
	if len(dict) < 64 || string(dict[:6]) != "ARROW1" || dict[0x37] != 2 {
		t.Fatalf("arrowjs-dict.arrow does not start with a dictionary batch: % x", dict[:min(64, len(dict))])
	}
	want, _, err := readAll(t, formats[0], "arrowjs-nested.arrow", plain, memory.NewGoAllocator())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range formats {
		if f.stream {
			continue
		}
		t.Run(f.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			got, info, err := readAll(t, f, "arrowjs-dict.arrow", dict, mem)
			if err != nil {
				t.Fatal(err)
			}
			mem.AssertSize(t, 0)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("requests:\n got %#v\nwant %#v", got, want)
			}
			if len(info.Extra) != 1 || info.Extra[0].Name != "note" {
				t.Errorf("extra columns %v: want note", info.Extra)
			}
		})
	}
}
