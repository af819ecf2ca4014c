package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// A new file gets 0666 less the umask; an existing file keeps its mode; a
// failed render leaves the target as it was and no temporary file behind.
func TestWriteFileModes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	write := func(s string) error {
		return WriteFile(path, func(w io.Writer) error { _, err := io.WriteString(w, s); return err })
	}
	if err := write("one"); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if got, want := st.Mode().Perm(), newFileMode(); got != want {
		t.Errorf("new file: mode %v, want %v (0666 less the umask)", got, want)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := write("two"); err != nil {
		t.Fatal(err)
	}
	st, _ = os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("rewritten 0600 file: mode %v, want it kept", st.Mode().Perm())
	}
	boom := errors.New("boom")
	if err := WriteFile(path, func(w io.Writer) error { io.WriteString(w, "partial"); return boom }); !errors.Is(err, boom) {
		t.Fatalf("render error: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "two" {
		t.Errorf("after a failed render the file holds %q, want the old %q", b, "two")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d files in the folder, want only the target: %v", len(entries), entries)
	}
}

// A character device is written through, not replaced by a regular file.
func TestWriteThroughDevice(t *testing.T) {
	if _, err := os.Stat(os.DevNull); err != nil || runtime.GOOS == "windows" {
		t.Skip("no", os.DevNull)
	}
	if err := WriteFile(os.DevNull, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(os.DevNull)
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("%s is no longer a character device: %v %v", os.DevNull, st.Mode(), err)
	}
	f, err := Create(filepath.Join(t.TempDir()))
	if err == nil {
		f.Abort()
		t.Error("Create of a directory succeeded")
	}
}

// Abort leaves nothing; Commit twice is harmless.
func TestAbortAndCommit(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(filepath.Join(dir, "a"))
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("x")
	f.Abort()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("after Abort: %v", entries)
	}
	f, _ = Create(filepath.Join(dir, "b"))
	f.WriteString("y")
	if err := f.Commit(); err != nil || f.Commit() != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "b")); string(b) != "y" {
		t.Errorf("committed %q", b)
	}
}
