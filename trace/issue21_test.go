package trace

import (
	"errors"
	"math"
	"os"
	"runtime"
	"strings"
	"testing"
)

// TestIssue21IDLimit: a request_id longer than Limits.MaxIDBytes is an error
// naming the limit (the default when unset), in the Checker and before the
// flat layout's grouping keeps it; the message shows the id cut short.
func TestIssue21IDLimit(t *testing.T) {
	long := strings.Repeat("é", 3000) // 6000 bytes
	c := NewChecker("f", Limits{})
	err := c.Check(&Request{RequestID: long, T0Ns: 1}, Error{RowGroup: 0, Row: 7})
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "column request_id: request_id of 6000 bytes, more than 4096 (limit --max-id-bytes)") {
		t.Fatalf("long id: %v", err)
	}
	if len(err.Error()) > 400 || !strings.Contains(err.Error(), `..." (6000 bytes)`) && !strings.Contains(err.Error(), `"... (6000 bytes)`) {
		t.Errorf("the message should show the id cut short: %d bytes: %.300s", len(err.Error()), err)
	}
	c = NewChecker("f", Limits{MaxIDBytes: 6000})
	if err := c.Check(&Request{RequestID: long, T0Ns: 1}, Error{RowGroup: 0, Row: 7}); err != nil {
		t.Errorf("an id at the limit: %v", err)
	}
	// JSONL, and a flat file grouped in memory.
	line := `{"request_id": "` + long + `", "t0_ns": 1}` + "\n"
	if _, _, err := readAllBytes(t, "long.jsonl", "", []byte(line)); !errors.Is(err, ErrLimit) {
		t.Errorf("JSONL: %v", err)
	}
	rows := &slicePasses{rows: []FlatRow{
		{Req: Request{RequestID: "a", T0Ns: 1}, Chunk: Chunk{TNs: 1, Data: []byte("x")}, Row: 0},
		{Req: Request{RequestID: long, T0Ns: 1}, Chunk: Chunk{TNs: 1, Data: []byte("x")}, Row: 1},
		{Req: Request{RequestID: "a", T0Ns: 1}, Chunk: Chunk{TNs: 2, Data: []byte("y")}, Row: 2},
	}}
	r := NewGroupingFlatReader(rows, Info{Path: "flat"}, Limits{}, nil)
	for r.Scan() {
	}
	if err := r.Err(); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "flat: row 1") {
		t.Errorf("grouping: %v", err)
	}
}

// TestIssue21IDSet: ids are told apart by their hashes, long or short,
// differing in one byte anywhere; the Checker still names the first row of
// a duplicate.
func TestIssue21IDSet(t *testing.T) {
	c := NewChecker("f", Limits{})
	base := strings.Repeat("a", 4000)
	for i := range 1000 {
		id := base + string(rune('a'+i%26)) + strings.Repeat("b", i/26)
		if err := c.Check(&Request{RequestID: id, T0Ns: 1}, Error{RowGroup: 0, Row: int64(i)}); err != nil {
			t.Fatalf("id %d: %v", i, err)
		}
	}
	err := c.Check(&Request{RequestID: base + "c", T0Ns: 1}, Error{RowGroup: 0, Row: 5000})
	if err == nil || !strings.Contains(err.Error(), "duplicate request_id (first seen at row 2)") {
		t.Fatalf("duplicate: %v", err)
	}
	var k Contiguity
	for _, id := range []string{base + "x", base + "x", base + "y", base + "x"} {
		k.Add(id)
	}
	if k.Contiguous() {
		t.Error("x y x is not contiguous")
	}
}

// TestIssue21LongLineControlByte: a line longer than the read buffer is
// refused at its first raw control byte, named by its offset; a short line
// keeps encoding/json's message.
func TestIssue21LongLineControlByte(t *testing.T) {
	line := `{"request_id": "a", "t0_ns": 1, "x": "` + strings.Repeat("y", 3<<20) + "\x00" + `"}` + "\n"
	_, _, err := readAllBytes(t, "long.jsonl", "", []byte(line))
	want := "long.jsonl: line 1: not JSON: a raw control byte 0x00 at byte 3145766 of the line"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
	_, _, err = readAllBytes(t, "short.jsonl", "", []byte(`{"request_id": "a`+"\x01"+`", "t0_ns": 1}`+"\n"))
	if err == nil || !strings.Contains(err.Error(), `line 1: not JSON: invalid character '\x01' in string literal`) {
		t.Fatalf("short line: %v", err)
	}
	// Tabs, CR LF line ends and long valid lines read.
	line = "{\"request_id\":\t\"a\", \"t0_ns\": 1, \"x\": \"" + strings.Repeat("y", 3<<20) + "\"}\r\n"
	if _, reqs, err := readAllBytes(t, "ok.jsonl", "", []byte(line)); err != nil || len(reqs) != 1 {
		t.Fatalf("valid long line: %v", err)
	}
}

// TestIssue21ExtraColumns: more extra keys than Limits.MaxExtraColumns is an
// error at the line that brings the first one too many (every request
// carries a value for each, so reading cost lines × keys).
func TestIssue21ExtraColumns(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"request_id": "r0", "t0_ns": 1000`)
	for i := range 1100 {
		b.WriteString(`, "k` + strings.Repeat("x", i%3) + string(rune('0'+i%10)) + `_` + strings.Repeat("y", i/10) + `": 1`)
	}
	b.WriteString("}\n")
	_, _, err := readAllBytes(t, "keys.jsonl", "", []byte(b.String()))
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "keys.jsonl: line 1, column ") || !strings.Contains(err.Error(), "more than 1024 extra columns") {
		t.Fatalf("got %v", err)
	}
	if err := CheckExtraColumns("f", Limits{MaxExtraColumns: 1100}, 1100, "k", Error{RowGroup: -1, Row: -1}); err != nil {
		t.Errorf("at the limit: %v", err)
	}
}

// TestIssue21Surrogates: a lone surrogate escape is never altered silently.
// \udc80-\udcff (Python's surrogateescape) is the byte; any other lone
// surrogate refuses the line; pairs and escaped backslashes are text.
func TestIssue21Surrogates(t *testing.T) {
	body := func(data string) string {
		return `{"request_id": "r0", "t0_ns": 1, "chunks": [{"t_ns": 2, "data": "` + data + `"}]}` + "\n"
	}
	for _, tc := range []struct{ data, want string }{
		{`\udce9\udce9x`, "\xe9\xe9x"},
		{`a\udcff`, "a\xff"},
		{`\ud83d\ude00 \u00e9`, "😀 é"},
		{`\\udce9`, `\udce9`},
		{`\"\udc80\"`, "\"\x80\""},
		{`\ud83d\ude00\udce9`, "😀\xe9"},
	} {
		_, reqs, err := readAllBytes(t, "s.jsonl", "", []byte(body(tc.data)))
		if err != nil {
			t.Errorf("%s: %v", tc.data, err)
			continue
		}
		if got := string(reqs[0].Chunks[0].Data); got != tc.want {
			t.Errorf("%s: data %q, want %q", tc.data, got, tc.want)
		}
	}
	for _, tc := range []struct{ line, want string }{
		{body(`\ud800`), `line 1: a lone surrogate \ud800 at byte`},
		{body(`\ud800\u0041`), `line 1: a lone surrogate \ud800`},
		{body(`\udc41`), `line 1: a lone surrogate \udc41`},
		{body(`x\uDBFF`), `line 1: a lone surrogate \uDBFF`},
		{`{"request_id": "r\udce9", "t0_ns": 1}` + "\n", `request "r\xe9", column request_id: request_id "r\xe9" is not valid UTF-8`},
		{`{"request_id": "r", "t0_ns": 1, "error": "\udce9"}` + "\n", `column error: error "\xe9" is not valid UTF-8`},
	} {
		_, _, err := readAllBytes(t, "s.jsonl", "", []byte(tc.line))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.line, err, tc.want)
		}
	}
	// An extra value, JSON or string, keeps the byte through a round trip.
	line := "{\"run\": {\"extra_kind.s\": \"string\"}}\n" + `{"request_id": "r", "t0_ns": 1, "j": {"k": "\udce9"}, "s": "a\udcffb"}` + "\n"
	info, reqs, err := readAllBytes(t, "x.jsonl", "", []byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if got := reqs[0].Extra[0].Str; got != `{"k":"\udce9"}` {
		t.Errorf("json extra %q", got)
	}
	if got := reqs[0].Extra[1].Str; got != "a\xffb" {
		t.Errorf("string extra %q", got)
	}
	out := writeAllBytes(t, "jsonl", WriteOptions{Meta: info.Meta, Extra: info.Extra}, reqs)
	_, back, err := readAllBytes(t, "y.jsonl", "", out)
	if err != nil || back[0].Extra[0].Str != reqs[0].Extra[0].Str || back[0].Extra[1].Str != reqs[0].Extra[1].Str {
		t.Errorf("round trip: %v, %q", err, out)
	}
}

// TestIssue21TimeSpan: the times of a trace must lie within 2^63-1 ns of
// each other (every command subtracts them), exactly at the edge or not.
func TestIssue21TimeSpan(t *testing.T) {
	end := func(v int64) *int64 { return &v }
	c := NewChecker("f", Limits{})
	ok := []Request{
		{RequestID: "a", T0Ns: math.MinInt64 + 1, EndNs: end(-1)},
		{RequestID: "b", T0Ns: 0, Chunks: []Chunk{{TNs: 0, Data: []byte("x")}}},
	}
	for i := range ok {
		if err := c.Check(&ok[i], Error{Line: i + 1, RowGroup: -1, Row: -1}); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	// The span is now 2^63-1 ns: one more is too many.
	err := c.Check(&Request{RequestID: "c", T0Ns: 1}, Error{Line: 3, RowGroup: -1, Row: -1})
	if err == nil || !strings.Contains(err.Error(), `f: line 3, request "c", column t0_ns: the times of the trace span from -9223372036854775807 to 1 ns, more than 2^63-1 ns`) {
		t.Fatalf("got %v", err)
	}
	// One request alone, by its chunks.
	c = NewChecker("f", Limits{})
	err = c.Check(&Request{RequestID: "a", T0Ns: -2, Chunks: []Chunk{{TNs: math.MaxInt64, Data: []byte("x")}}}, Error{Row: 0})
	if err == nil || !strings.Contains(err.Error(), "span from -2 to 9223372036854775807 ns") {
		t.Fatalf("one request: %v", err)
	}
}

// Stdin is spooled to a file that is unlinked as soon as it is made: a
// process killed while reading leaves nothing in the temporary folder.
func TestStdinSpoolLeavesNothing(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("an open file cannot be unlinked on Windows: removed on Close there")
	}
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	r, err := Open("-", OpenOptions{Stdin: strings.NewReader(canonicalJSONL)})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("while the trace is open, the temporary folder holds %v", left)
	}
	n := 0
	for r.Scan() {
		n++
	}
	if err := r.Err(); err != nil || n != 3 {
		t.Fatalf("read %d requests, err %v; want 3", n, err)
	}
}
