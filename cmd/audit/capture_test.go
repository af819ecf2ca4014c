package main

import (
	"bytes"
	"io"
	"os"
	"testing"
)

// The capture progress line: drawn with --progress always, never with
// never, and with auto only on a terminal (not a file, not a buffer).
func TestCaptureProgressBarMode(t *testing.T) {
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	for _, c := range []struct {
		w    io.Writer
		mode string
		on   bool
	}{
		{devNull, "auto", false}, {new(bytes.Buffer), "auto", false},
		{new(bytes.Buffer), "always", true}, {devNull, "never", false},
	} {
		if got := newCaptureProgress(c.w, c.mode, 10).progress != nil; got != c.on {
			t.Errorf("%T, --progress %s: drawn %v, want %v", c.w, c.mode, got, c.on)
		}
	}
}
