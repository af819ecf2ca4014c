package sourcefile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/trace"
)

func TestLayouts(t *testing.T) {
	for _, c := range []struct {
		name, in string
		layout   Layout
		lines    []int // start line of each value
		ends     []int
	}{
		{"empty", " \n\t\n", Empty, nil, nil},
		{"compact", `{"a": 1}`, Document, []int{1}, []int{1}},
		{"pretty", "\n{\n  \"a\": [\n    1\n  ]\n}\n", Document, []int{2}, []int{6}},
		{"jsonl", "{\"a\": 1}\n\n{\"a\": 2}\r\n{\"a\": 3}", Lines, []int{1, 3, 4}, []int{1, 3, 4}},
		{"appended without newline", `{"a": 1}{"a": 2}`, Concatenated, []int{1, 1}, []int{1, 1}},
		{"pretty appended", "{\n\"a\": 1\n}\n{\n\"a\": 2\n}\n", Concatenated, []int{1, 4}, []int{3, 6}},
		{"bom", "\xef\xbb\xbf{\"a\": 1}\n", Document, []int{1}, []int{1}},
		{"braces in strings", `{"a": "}{]\"[", "b": ["}"]}` + "\n" + `["x\\"]`, Lines, []int{1, 2}, []int{1, 2}},
		{"python literals", `{"rate": Infinity, "x": [NaN, -Infinity]}`, Document, []int{1}, []int{1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			vals, layout, err := ReadAll(strings.NewReader(c.in), "f.json", Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if layout != c.layout {
				t.Errorf("layout %v, want %v", layout, c.layout)
			}
			if len(vals) != len(c.lines) {
				t.Fatalf("%d values, want %d", len(vals), len(c.lines))
			}
			for i, v := range vals {
				if v.Index != i || v.Line != c.lines[i] || v.EndLine != c.ends[i] {
					t.Errorf("value %d: index %d lines %d-%d, want %d-%d", i, v.Index, v.Line, v.EndLine, c.lines[i], c.ends[i])
				}
				if !bytes.Equal(v.Data, []byte(c.in[v.Offset:v.Offset+int64(len(v.Data))])) {
					t.Errorf("value %d: %q is not the input at offset %d", i, v.Data, v.Offset)
				}
			}
		})
	}
}

func TestBad(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"{\"a\": 1}\n\"x\"\n", `f.json: line 2: "\"": want a JSON object (or array) here`},
		{"\n\n{\"a\": [1,\n2", "f.json: line 3: the JSON value that starts here is cut short at the end of the file (line 4): want it whole"},
		{"{\"a\": \"}\n", "f.json: line 1: the JSON value that starts here is cut short"},
		{"\x00", "f.json: line 1: byte 0x00: want a JSON object"},
		{"NaN", `f.json: line 1: "N": want a JSON object`},
	} {
		_, _, err := ReadAll(strings.NewReader(c.in), "f.json", Limits{})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
	}
}

func TestLimits(t *testing.T) {
	_, _, err := ReadAll(strings.NewReader("{\"a\": 1}\n{\"abcdefgh\": 2}\n"), "f.json", Limits{MaxValueBytes: 10})
	if !errors.Is(err, trace.ErrLimit) || !strings.HasPrefix(err.Error(), "f.json: line 2: a JSON value of more than 10 bytes") {
		t.Errorf("value limit: %v", err)
	}
	_, _, err = ReadAll(strings.NewReader("{\"a\": 1}\n{\"b\": 2}\n"), "f.json", Limits{MaxBytes: 12})
	if !errors.Is(err, trace.ErrLimit) || !strings.HasPrefix(err.Error(), "f.json: line 2: more than 12 bytes") {
		t.Errorf("file limit: %v", err)
	}
	l := NewLineScanner(strings.NewReader("short\nmuch too long\n"), "f.jsonl", Limits{MaxValueBytes: 8})
	for l.Scan() {
	}
	if err := l.Err(); !errors.Is(err, trace.ErrLimit) || !strings.HasPrefix(err.Error(), "f.jsonl: line 2: a line of more than 8 bytes") {
		t.Errorf("line limit: %v", err)
	}
}

func TestLineScanner(t *testing.T) {
	l := NewLineScanner(strings.NewReader("a\r\n\nb"), "f", Limits{})
	var got []string
	for l.Scan() {
		got = append(got, strings.Repeat("#", l.Line())+string(l.Bytes()))
	}
	if l.Err() != nil || strings.Join(got, ",") != "#a,##,###b" {
		t.Errorf("lines %q, %v", got, l.Err())
	}
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "is a directory: want a file") {
		t.Errorf("directory: %v", err)
	}
	if _, err := Open(filepath.Join(dir, "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

func TestPythonJSON(t *testing.T) {
	in := `{"a": Infinity, "b": "NaN Infinity", "c": [-Infinity, NaN], "d": "\"Infinity"}`
	want := `{"a": "Infinity", "b": "NaN Infinity", "c": ["-Infinity", "NaN"], "d": "\"Infinity"}`
	if got := string(PythonJSON([]byte(in))); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// FuzzScanner: whatever the input, the values come out in order, each the
// input's bytes at its offset, starting on the line its offset is on, with
// only white space (and a leading byte-order mark) between them; on an
// error, nothing after it.
func FuzzScanner(f *testing.F) {
	for _, s := range []string{"{}", "{\"a\":[1,{\"b\":\"}\"}]}\n[2]", "{\n}\n{\n}", "\xef\xbb\xbf[\"\\\\\"]", "{\"a\": NaN}{", "x"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		s := NewScanner(bytes.NewReader(in), "f", Limits{MaxValueBytes: 1 << 16})
		pos := int64(0)
		if bytes.HasPrefix(in, []byte("\xef\xbb\xbf")) {
			pos = 3
		}
		for s.Scan() {
			v := s.Value()
			if v.Offset < pos || v.Offset+int64(len(v.Data)) > int64(len(in)) {
				t.Fatalf("value %d at %d+%d: outside the input after %d", v.Index, v.Offset, len(v.Data), pos)
			}
			if gap := bytes.Trim(in[pos:v.Offset], " \t\r\n"); len(gap) > 0 {
				t.Fatalf("value %d: %q skipped before it", v.Index, gap)
			}
			if !bytes.Equal(v.Data, in[v.Offset:v.Offset+int64(len(v.Data))]) {
				t.Fatalf("value %d: %q is not the input at its offset", v.Index, v.Data)
			}
			if line := 1 + bytes.Count(in[:v.Offset], []byte("\n")); line != v.Line {
				t.Fatalf("value %d: line %d, want %d", v.Index, v.Line, line)
			}
			if end := v.Line + bytes.Count(v.Data, []byte("\n")); end != v.EndLine {
				t.Fatalf("value %d: end line %d, want %d", v.Index, v.EndLine, end)
			}
			pos = v.Offset + int64(len(v.Data))
		}
		if s.Err() == nil {
			if rest := bytes.Trim(in[pos:], " \t\r\n"); len(rest) > 0 {
				t.Fatalf("%q left unread with no error", rest)
			}
		}
		if s.Scan() {
			t.Fatal("Scan after the end or an error gave a value")
		}
	})
}
