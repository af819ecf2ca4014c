//go:build linux

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// The output files of issue 21: report -o and convert -o write through a
// target that is not a regular file (a character device, reached here by a
// symlink so that a regression replaces the link, not /dev/null), keep an
// existing file's mode and honour the umask (internal/atomicfile).

// outputCommands are the commands of the issue, each writing to {}.
var outputCommands = map[string][]string{
	"report":  {"report", "--format", "text", "testdata/traces/basic.jsonl", "-o"},
	"convert": {"convert", "testdata/traces/basic.jsonl", "-o"},
}

func TestIssue21OutputThroughDevice(t *testing.T) {
	for name, args := range outputCommands {
		t.Run(name, func(t *testing.T) {
			link := filepath.Join(t.TempDir(), "out.parquet")
			if err := os.Symlink(os.DevNull, link); err != nil {
				t.Fatal(err)
			}
			_, stderr, code := runCLI(t, "", append(args, link)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			st, err := os.Lstat(link)
			if err != nil || st.Mode()&os.ModeSymlink == 0 {
				t.Fatalf("%s is no longer a symlink to %s: %v, %v", link, os.DevNull, st.Mode(), err)
			}
			dev, err := os.Stat(os.DevNull)
			if err != nil || dev.Mode()&os.ModeCharDevice == 0 {
				t.Fatalf("%s is no longer a character device: %v", os.DevNull, err)
			}
		})
	}
}

func TestIssue21OutputKeepsModeAndUmask(t *testing.T) {
	for name, args := range outputCommands {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			// An existing private file stays private.
			private := filepath.Join(dir, "private.parquet")
			if err := os.WriteFile(private, []byte("old"), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, stderr, code := runCLI(t, "", append(args, private)...); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if st, err := os.Stat(private); err != nil || st.Mode().Perm() != 0o600 || st.Size() <= 3 {
				t.Errorf("existing 0600 file: mode %v, size %d (%v): want 0600, rewritten", st.Mode().Perm(), st.Size(), err)
			}
			// A new file gets 0666 less the umask: read when the program
			// starts, so the command runs in a child process started
			// under umask 027.
			fresh := filepath.Join(dir, "new.parquet")
			old := syscall.Umask(0o027)
			_, stderr, code, _ := runHostileChild(t, append(args, fresh))
			syscall.Umask(old)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if st, err := os.Stat(fresh); err != nil || st.Mode().Perm() != 0o640 {
				t.Errorf("new file under umask 027: mode %v (%v), want 0640", st.Mode().Perm(), err)
			}
		})
	}
}
