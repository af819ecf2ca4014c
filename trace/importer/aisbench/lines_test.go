package aisbench

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestEachParsed: lines parsed in parallel batches reach fn in file order
// with their numbers and lengths, as eachLine gives them; an error from fn
// stops it at that line, a read error (a line over the bound) comes after
// every line before it; at GOMAXPROCS 1, 2 and 4, with lines that fill
// batches by count and by bytes, one too long for its batch to be reused,
// and a last line without its newline.
func TestEachParsed(t *testing.T) {
	var sb strings.Builder
	lines := 3*batchLines + 17
	for i := range lines {
		n := 1 + i%13
		if i%500 == 7 {
			n = batchBytes / 3 // a few long lines fill batches by bytes
		}
		if i == 2000 {
			n = maxReusedBatch + 1 // a batch too large to reuse
		}
		fmt.Fprintf(&sb, "%d:%s", i+1, strings.Repeat("x", n))
		if i < lines-1 {
			sb.WriteString("\n")
		}
	}
	path := filepath.Join(t.TempDir(), "lines.jsonl")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	type seen struct {
		line, n int
		text    string
	}
	var want []seen
	if err := eachLine(path, 0, func(line int, b []byte) error {
		want = append(want, seen{line, len(b), string(b)})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(want) != lines {
		t.Fatalf("eachLine: %d lines, want %d", len(want), lines)
	}
	parse := func(line int, b []byte) string { return fmt.Sprintf("%d|%s", line, b) }
	errFn := errors.New("fn failed")
	for _, procs := range []int{1, 2, 4} {
		for _, stopAt := range []int{-1, 1, batchLines, batchLines + 1, lines} {
			for _, maxLine := range []int{0, batchBytes / 4} {
				t.Run(fmt.Sprintf("procs%d/stop%d/max%d", procs, stopAt, maxLine), func(t *testing.T) {
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
					var got []seen
					err := eachParsed(path, maxLine, parse, func(line, n int, v string) error {
						if line == stopAt {
							return errFn
						}
						if v != fmt.Sprintf("%d|%s", line, want[line-1].text) {
							t.Fatalf("line %d parsed as %.40q", line, v)
						}
						got = append(got, seen{line, n, want[line-1].text})
						return nil
					})
					n := lines
					switch {
					case stopAt > 0 && (maxLine == 0 || stopAt <= 8): // fn's error comes before any line over the bound
						n = stopAt - 1
						if !errors.Is(err, errFn) {
							t.Fatalf("err %v, want fn's", err)
						}
					case maxLine > 0:
						n = 7 // line 8 is over the bound
						var e *Error
						if !errors.As(err, &e) || e.Line != 8 || !strings.Contains(e.Error(), "more than") {
							t.Fatalf("err %v, want line 8 over the bound", err)
						}
					case err != nil:
						t.Fatal(err)
					}
					if len(got) != n {
						t.Fatalf("fn saw %d lines, want %d", len(got), n)
					}
					for i, g := range got {
						if g != want[i] {
							t.Fatalf("line %d: %v, want %v", i+1, g, want[i])
						}
					}
				})
			}
		}
	}
}
