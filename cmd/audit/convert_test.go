package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConvertRoundTrip: JSONL → Parquet → Arrow → Arrow stream → JSONL, in
// both layouts, gives back the same bytes for JSONL this tool wrote.
func TestConvertRoundTrip(t *testing.T) {
	src := filepath.Join("testdata", "traces", "basic.jsonl")
	want, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, layout := range []string{"nested", "flat"} {
		t.Run(layout, func(t *testing.T) {
			dir := t.TempDir()
			steps := []string{"a.parquet", "b.arrow", "c.arrows", "d.parquet", "e.jsonl"}
			in := src
			for _, s := range steps {
				out := filepath.Join(dir, s)
				args := []string{"convert", in, "-o", out, "--row-group-requests", "3"}
				if !strings.HasSuffix(s, ".jsonl") {
					args = append(args, "--layout", layout)
				}
				if _, stderr, code := runCLI(t, "", args...); code != 0 {
					t.Fatalf("convert %s -> %s: exit %d: %s", in, out, code, stderr)
				}
				in = out
			}
			got, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("JSONL after the round trip differs from %s:\n%s", src, got)
			}
		})
	}
}

// TestConvertExtraColumnsSurvive: extra columns of every kind go through
// every format and come back as they were.
func TestConvertExtraColumnsSurvive(t *testing.T) {
	in := `{"run": {"extra_kind.b": "binary", "extra_kind.f": "float64", "extra_kind.i": "int64", "extra_kind.j": "json", "extra_kind.ok": "bool", "extra_kind.s": "string", "schema_version": 1}}
{"request_id": "a", "t0_ns": 1, "b": "AAE=", "f": 1.5, "i": -3, "j": {"x":[1,"y"]}, "ok": true, "s": "é"}
{"request_id": "b", "t0_ns": 2, "chunks": [], "b": null, "f": null, "i": 7, "j": null, "ok": false, "s": null}
`
	dir := t.TempDir()
	src := filepath.Join(dir, "in.jsonl")
	os.WriteFile(src, []byte(in), 0o644)
	prev := src
	for _, s := range []string{"a.arrow", "b.parquet", "c.arrows", "d.jsonl"} {
		out := filepath.Join(dir, s)
		if _, stderr, code := runCLI(t, "", "convert", prev, "-o", out); code != 0 {
			t.Fatalf("convert to %s: exit %d: %s", s, code, stderr)
		}
		prev = out
	}
	got, _ := os.ReadFile(prev)
	if string(got) != in {
		t.Errorf("after the round trip:\n%s\nwant\n%s", got, in)
	}
}

// TestConvertNoHalfWrittenOutput: a conversion that fails part way leaves
// no output file.
func TestConvertNoHalfWrittenOutput(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(src, []byte(`{"request_id": "a", "t0_ns": 1}
{"request_id": "b", "t0_ns": 5, "chunks": [{"t_ns": 9, "data": "x"}, {"t_ns": 8, "data": "y"}]}
`), 0o644)
	for _, ext := range []string{".parquet", ".arrow", ".arrows", ".jsonl"} {
		out := filepath.Join(dir, "out"+ext)
		_, stderr, code := runCLI(t, "", "convert", src, "-o", out)
		if code != 1 || !strings.Contains(stderr, `bad.jsonl: line 2, request "b", column chunks: chunk 1: t_ns 8 goes back from 9`) {
			t.Errorf("%s: exit %d, stderr %q", ext, code, stderr)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s exists after a failed conversion", out)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("the folder holds %d files after failed conversions, want only the input", len(ents))
	}
}
