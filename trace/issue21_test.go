package trace

import (
	"errors"
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
	rows := &sliceRows{rows: []FlatRow{
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
