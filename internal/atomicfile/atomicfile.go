// Package atomicfile writes an output file so that a reader never sees it
// half-written and a failure leaves what was there before: the bytes go to
// a temporary file beside the target, renamed into place once complete.
// Every file sseaudit writes goes through it (traces, replay tables,
// reports, AISBench's result files).
//
// The file gets the mode an editor would give it: an existing target's
// mode (a private 0600 trace stays private), else 0666 less the umask, as
// os.Create makes files. A target that exists and is not a regular file (a
// character device such as /dev/null, a named pipe) is written through,
// never replaced by a regular file.
package atomicfile

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// File is an output being written. Write to it, then Commit (or Abort).
type File struct {
	*os.File
	path    string
	through bool        // writing the target itself (not a regular file)
	mode    fs.FileMode // for the temporary file at Commit
	done    bool
}

// Create starts writing path.
func Create(path string) (*File, error) {
	st, err := os.Stat(path)
	switch {
	case err == nil && !st.Mode().IsRegular():
		if st.IsDir() {
			return nil, fmt.Errorf("%s: is a directory", path)
		}
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		return &File{File: f, path: path, through: true}, nil
	case err != nil && !os.IsNotExist(err):
		return nil, err
	}
	mode := newFileMode()
	if err == nil {
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	return &File{File: tmp, path: path, mode: mode}, nil
}

// Path is the target's path.
func (f *File) Path() string { return f.path }

// Commit finishes the file: synced to disk, given its mode and renamed into
// place. On failure nothing is left but the target as it was.
func (f *File) Commit() error {
	if f.done {
		return nil
	}
	f.done = true
	if f.through {
		return f.Close()
	}
	err := f.Sync()
	if err == nil {
		// CreateTemp makes the file private; the output is an ordinary file.
		err = f.Chmod(f.mode)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), f.path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// Abort drops what was written; the target is left as it was.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.Close()
	if !f.through {
		os.Remove(f.Name())
	}
}

// WriteFile renders into memory, then writes path atomically: a render
// error leaves path as it was. Errors name the path.
func WriteFile(path string, render func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	f, err := Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}
