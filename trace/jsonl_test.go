package trace

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// readAllBytes reads a trace held in memory, named name, in the given format.
func readAllBytes(t testing.TB, name, format string, data []byte) (Info, []Request, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path, OpenOptions{Format: format})
	if err != nil {
		return Info{}, nil, err
	}
	defer r.Close()
	var reqs []Request
	for r.Scan() {
		reqs = append(reqs, *r.Request().Clone())
	}
	return r.Info(), reqs, r.Err()
}

func writeAllBytes(t testing.TB, format string, opts WriteOptions, reqs []Request) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "out."+format)
	w, err := Create(path, format, nil, opts)
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
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const canonicalJSONL = `{"run": {"extra_kind.note": "json", "max_concurrency": 2, "foo": "bar baz", "schema_version": 1, "source": "test"}}
{"request_id": "r0", "t0_ns": 1000, "end_ns": 5000, "http_status": 200, "chunks": [{"t_ns": 2000, "data": "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n"}, {"t_ns": 3000, "data_b64": "/wA="}], "input_tokens": 10, "output_tokens": 2, "note": {"a":[1,2]}}
{"request_id": "r1", "t0_ns": 1500, "error": "connection reset", "chunks": [], "note": null}
{"request_id": "r2", "t0_ns": 1600, "http_status": 500, "time_points_s": [1.5, 2.25, 3], "note": "x\u0001\"\\"}
`

func TestJSONLCanonicalRoundTrip(t *testing.T) {
	info, reqs, err := readAllBytes(t, "in.jsonl", "", []byte(canonicalJSONL))
	if err != nil {
		t.Fatal(err)
	}
	if mc, ok, err := info.Meta.MaxConcurrency(); mc != 2 || !ok || err != nil {
		t.Errorf("max concurrency = %d, %v, %v; want 2", mc, ok, err)
	}
	if v, _ := info.Meta.Get("sseaudit.run.foo"); v != "bar baz" {
		t.Errorf("sseaudit.run.foo = %q", v)
	}
	if want := []ExtraColumn{{"note", ExtraJSON}}; !reflect.DeepEqual(info.Extra, want) {
		t.Errorf("extra = %v, want %v", info.Extra, want)
	}
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	r0 := reqs[0]
	if r0.RequestID != "r0" || r0.T0Ns != 1000 || *r0.EndNs != 5000 || *r0.HTTPStatus != 200 || *r0.InputTokens != 10 {
		t.Errorf("r0 = %+v", r0)
	}
	if !bytes.Equal(r0.Chunks[1].Data, []byte{0xff, 0}) || r0.Chunks[0].TNs != 2000 ||
		string(r0.Chunks[0].Data) != "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n" {
		t.Errorf("r0 chunks = %+v", r0.Chunks)
	}
	if r0.Extra[0].Str != `{"a":[1,2]}` {
		t.Errorf("r0 note = %q", r0.Extra[0].Str)
	}
	if r1 := reqs[1]; r1.Chunks == nil || len(r1.Chunks) != 0 || *r1.Error != "connection reset" || r1.HTTPStatus != nil || !r1.Extra[0].Null {
		t.Errorf("r1 = %+v", r1)
	}
	if r2 := reqs[2]; !reflect.DeepEqual(r2.TimePointsS, []float64{1.5, 2.25, 3}) || r2.Chunks != nil || r2.Extra[0].Str != `"x\u0001\"\\"` {
		t.Errorf("r2 = %+v", r2)
	}
	out := writeAllBytes(t, "jsonl", WriteOptions{Meta: info.Meta, Extra: info.Extra}, reqs)
	// What this tool writes is canonical: reading and writing it again gives
	// the same bytes.
	_, reqs2, err := readAllBytes(t, "again.jsonl", "", out)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(reqs, reqs2) {
		t.Errorf("requests changed in a round trip:\n%+v\n%+v", reqs, reqs2)
	}
	info2, _, _ := readAllBytes(t, "again.jsonl", "", out)
	out2 := writeAllBytes(t, "jsonl", WriteOptions{Meta: info2.Meta, Extra: info2.Extra}, reqs2)
	if !bytes.Equal(out, out2) {
		t.Errorf("JSONL written twice differs:\n%s\n%s", out, out2)
	}
}

func TestJSONLExtraKindsFromHeader(t *testing.T) {
	in := `{"run": {"extra_kind.b": "binary", "extra_kind.f": "float64", "extra_kind.i": "int64", "extra_kind.ok": "bool", "extra_kind.s": "string", "schema_version": 1}}
{"request_id": "a", "t0_ns": 1, "b": "AAE=", "f": 1.5, "i": -3, "ok": true, "s": "é"}
{"request_id": "b", "t0_ns": 1, "b": null, "f": "NaN", "i": null, "ok": false, "s": null}
`
	info, reqs, err := readAllBytes(t, "k.jsonl", "", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []ExtraColumn{{"b", ExtraBinary}, {"f", ExtraFloat64}, {"i", ExtraInt64}, {"ok", ExtraBool}, {"s", ExtraString}}
	if !reflect.DeepEqual(info.Extra, want) {
		t.Fatalf("extra = %v", info.Extra)
	}
	a := reqs[0].Extra
	if !bytes.Equal(a[0].Bytes, []byte{0, 1}) || a[1].Float != 1.5 || a[2].Int != -3 || !a[3].Bool || a[4].Str != "é" {
		t.Errorf("a extras = %+v", a)
	}
	b := reqs[1].Extra
	if !b[0].Null || b[1].Float == b[1].Float || !b[2].Null || b[3].Bool || b[3].Null || !b[4].Null {
		t.Errorf("b extras = %+v", b)
	}
	out := writeAllBytes(t, "jsonl", WriteOptions{Meta: info.Meta, Extra: info.Extra}, reqs)
	if !bytes.Equal(out, []byte(in)) {
		t.Errorf("round trip changed the bytes:\n%s\nwant\n%s", out, in)
	}
}

func TestJSONLBadInput(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"not json", "{\"request_id\": \"a\", \"t0_ns\": 1}\n{oops\n", "bad.jsonl: line 2: not JSON"},
		{"not object", "[1,2]\n", "bad.jsonl: line 1: a JSON array: want an object"},
		{"missing id", "{\"t0_ns\": 1}\n", "bad.jsonl: line 1, column request_id: missing"},
		{"null id", "{\"request_id\": null, \"t0_ns\": 1}\n", "bad.jsonl: line 1, column request_id: null: want a value"},
		{"empty id", "{\"request_id\": \"\", \"t0_ns\": 1}\n", "bad.jsonl: line 1, column request_id: empty request_id"},
		{"missing t0", "{\"request_id\": \"a\"}\n", "bad.jsonl: line 1, column t0_ns: missing"},
		{"t0 string", "{\"request_id\": \"a\", \"t0_ns\": \"1\"}\n", "bad.jsonl: line 1, column t0_ns: a JSON string: want an integer"},
		{"t0 float", "{\"request_id\": \"a\", \"t0_ns\": 1.5}\n", "bad.jsonl: line 1, column t0_ns: 1.5: want an integer"},
		{"duplicate", "{\"request_id\": \"a\", \"t0_ns\": 1}\n{\"request_id\": \"a\", \"t0_ns\": 2}\n", `bad.jsonl: line 2, request "a", column request_id: duplicate request_id (first seen at line 1)`},
		{"backwards", "{\"request_id\": \"a\", \"t0_ns\": 1, \"chunks\": [{\"t_ns\": 5, \"data\": \"x\"}, {\"t_ns\": 4, \"data\": \"y\"}]}\n", `bad.jsonl: line 1, request "a", column chunks: chunk 1: t_ns 4 goes back from 5`},
		{"before t0", "{\"request_id\": \"a\", \"t0_ns\": 10, \"chunks\": [{\"t_ns\": 5, \"data\": \"x\"}]}\n", `column chunks: chunk 0: t_ns 5 is before t0_ns 10`},
		{"bad base64", "{\"request_id\": \"a\", \"t0_ns\": 1, \"chunks\": [{\"t_ns\": 5, \"data_b64\": \"!!\"}]}\n", "bad.jsonl: line 1, column chunks: chunk 0 data_b64: invalid base64"},
		{"both data", "{\"request_id\": \"a\", \"t0_ns\": 1, \"chunks\": [{\"t_ns\": 5, \"data\": \"x\", \"data_b64\": \"eA==\"}]}\n", "chunk 0 has both data and data_b64"},
		{"no data", "{\"request_id\": \"a\", \"t0_ns\": 1, \"chunks\": [{\"t_ns\": 5}]}\n", "chunk 0 has neither data nor data_b64"},
		{"chunk no t", "{\"request_id\": \"a\", \"t0_ns\": 1, \"chunks\": [{\"data\": \"x\"}]}\n", "chunk 0 has no t_ns"},
		{"late run", "{\"request_id\": \"a\", \"t0_ns\": 1}\n{\"run\": {}}\n", "bad.jsonl: line 2, column run: a run line after the first line"},
		{"version", "{\"run\": {\"schema_version\": 2}}\n", `bad.jsonl: sseaudit.schema_version is "2": this sseaudit reads version 1`},
		{"invalid utf8", "{\"request_id\": \"a\xff\", \"t0_ns\": 1}\n", "bad.jsonl: line 1: not valid UTF-8"},
		{"end before", "{\"request_id\": \"a\", \"t0_ns\": 10, \"end_ns\": 5}\n", "column end_ns: end_ns 5 is before"},
		{"status range", "{\"request_id\": \"a\", \"t0_ns\": 10, \"http_status\": 99999999999}\n", "column http_status: 99999999999: want a 32-bit integer"},
		{"negative tokens", "{\"request_id\": \"a\", \"t0_ns\": 10, \"output_tokens\": -1}\n", "column output_tokens: negative count -1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := readAllBytes(t, "bad.jsonl", "", []byte(c.in))
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q\nwant it to contain %q", err, c.want)
			}
			var te *Error
			if !errors.As(err, &te) {
				t.Errorf("error %T is not a *trace.Error", err)
			}
		})
	}
}

func TestJSONLStdin(t *testing.T) {
	r, err := Open("-", OpenOptions{Stdin: strings.NewReader(canonicalJSONL)})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 0
	for r.Scan() {
		n++
	}
	if err := r.Err(); err != nil || n != 3 {
		t.Fatalf("read %d requests from stdin, err %v; want 3", n, err)
	}
	var out bytes.Buffer
	w, err := Create("-", "", &out, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if out.String() != "{\"run\": {\"schema_version\": 1}}\n" {
		t.Errorf("stdout = %q", out.String())
	}
}

func TestCreateIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.jsonl")
	w, err := Create(path, "", nil, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&Request{RequestID: "a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("target exists before Close: %v", err)
	}
	w.Abort()
	ents, _ := os.ReadDir(dir)
	if len(ents) != 0 {
		t.Errorf("Abort left %v", ents)
	}
}

func FuzzJSONL(f *testing.F) {
	f.Add([]byte(canonicalJSONL))
	f.Add([]byte("{\"request_id\": \"a\", \"t0_ns\": 1, \"chunks\": [{\"t_ns\": 5, \"data_b64\": \"eA==\"}]}\n"))
	f.Add([]byte("{\"run\": {\"extra_kind.x\": \"int64\"}}\n{\"request_id\": \"a\", \"t0_ns\": 1, \"x\": 3}\n"))
	// The hostile corpus's JSONL files are seeds too.
	hostile, _ := filepath.Glob(filepath.Join("..", "testdata", "hostile", "*.jsonl"))
	if len(hostile) == 0 {
		f.Fatal("no JSONL files in testdata/hostile")
	}
	for _, name := range hostile {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		info, reqs, err := readAllBytes(t, "f.jsonl", "", data)
		if err != nil {
			var te *Error
			if !errors.As(err, &te) {
				t.Fatalf("error %v is not a *trace.Error", err)
			}
			return
		}
		// Whatever reads must survive a write and a read unchanged.
		path := filepath.Join(t.TempDir(), "out.jsonl")
		w, err := Create(path, "", nil, WriteOptions{Meta: info.Meta, Extra: info.Extra})
		if err != nil {
			t.Fatal(err)
		}
		for i := range reqs {
			if err := w.Write(&reqs[i]); err != nil {
				w.Abort()
				return // not representable in JSONL (invalid UTF-8 extra string): refused, not lost
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		out, _ := os.ReadFile(path)
		_, reqs2, err := readAllBytes(t, "again.jsonl", "", out)
		if err != nil {
			t.Fatalf("rereading what was written: %v\n%s", err, out)
		}
		if !equalRequests(reqs, reqs2) {
			t.Fatalf("round trip changed requests:\n%+v\n%+v", reqs, reqs2)
		}
	})
}

// equalRequests compares requests, treating JSON extra values by their text.
func equalRequests(a, b []Request) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !reflect.DeepEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}
