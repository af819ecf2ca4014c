//go:build unix

package trace

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestOpenPipe: a trace named by a path that is a pipe (a FIFO, or
// bash's process substitution: audit report <(zcat trace.jsonl.gz), which
// is /dev/fd/63) was opened as a file: its size is 0 and it cannot seek.
// JSONL read the pipe whole in its first pass and then failed on "seek
// /dev/fd/63: illegal seek" (no *trace.Error); Parquet and Arrow said the
// file was "0 bytes long ... (truncated or not Parquet)". Open spools stdin
// to a temporary file "so every format can seek"; a pipe given by its path
// needs the same.
func TestOpenPipe(t *testing.T) {
	data, err := os.ReadFile("../testdata/traces/basic.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(t.TempDir(), "trace.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		w.Write(data)
	}()
	r, err := Open(fifo, OpenOptions{})
	if err != nil {
		t.Fatalf("Open(a FIFO holding basic.jsonl): %v", err)
	}
	defer r.Close()
	n := 0
	for r.Scan() {
		n++
	}
	if err := r.Err(); err != nil || n != 10 {
		t.Fatalf("read %d requests, error %v: want the 10 requests of basic.jsonl", n, err)
	}
}
