package capture

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/arrowfile"
)

// File is a trace being captured: an Arrow IPC stream (.arrows) written
// straight to its final path, one whole record batch at a time. Whatever
// the writer produces is held in memory until a batch is complete and then
// written with one write call, so the file always ends at a message
// boundary; the stream reader takes a file cut there (by a crash or a kill
// -9) as complete up to its last batch. `audit convert` makes a finished
// file of it.
type File struct {
	path    string
	f       *os.File
	pending bytes.Buffer
	w       trace.RequestWriter
	flusher interface{ Flush() error }
	closed  bool
}

// DefaultFlushEvery is how many requests a record batch holds at most.
const DefaultFlushEvery = 8

// CreateFile starts a capture file at path, which must not exist and must
// end in .arrows. flushEvery bounds a record batch in requests
// (DefaultFlushEvery when 0).
func CreateFile(path string, opts trace.WriteOptions, flushEvery int) (*File, error) {
	if ext := strings.ToLower(filepath.Ext(path)); ext != ".arrows" {
		return nil, fmt.Errorf("%s: capture writes an Arrow IPC stream, readable when cut short: want a .arrows file (convert it afterwards with audit convert)", path)
	}
	if flushEvery <= 0 {
		flushEvery = DefaultFlushEvery
	}
	opts.RowGroupRequests = flushEvery
	if _, ok := opts.Meta.Get(trace.KeySchemaVersion); !ok {
		opts.Meta.Set(trace.KeySchemaVersion, trace.SchemaVersion)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("%s: already exists: capture never overwrites a trace; remove it or choose another -o", path)
		}
		return nil, err
	}
	cf := &File{path: path, f: f}
	w, err := arrowfile.NewStreamWriter(&cf.pending, opts)
	if err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	cf.w = w
	cf.flusher, _ = w.(interface{ Flush() error })
	return cf, nil
}

// Path is the file's path.
func (cf *File) Path() string { return cf.path }

func (cf *File) commit() error {
	if cf.pending.Len() == 0 {
		return nil
	}
	_, err := cf.f.Write(cf.pending.Bytes())
	cf.pending.Reset()
	if err != nil {
		return fmt.Errorf("%s: %w", cf.path, err)
	}
	return nil
}

// Write adds a request; every few requests a record batch reaches the file.
func (cf *File) Write(r *trace.Request) error {
	if err := cf.w.Write(r); err != nil {
		return fmt.Errorf("%s: %w", cf.path, err)
	}
	return cf.commit()
}

// Flush writes the requests not yet in the file as a record batch.
func (cf *File) Flush() error {
	if cf.flusher != nil {
		if err := cf.flusher.Flush(); err != nil {
			return fmt.Errorf("%s: %w", cf.path, err)
		}
	}
	return cf.commit()
}

// Close writes what is left and the end-of-stream marker, and syncs the
// file to disk.
func (cf *File) Close() error {
	if cf.closed {
		return nil
	}
	cf.closed = true
	err := cf.w.Close()
	if err != nil {
		err = fmt.Errorf("%s: %w", cf.path, err)
	}
	if cerr := cf.commit(); err == nil {
		err = cerr
	}
	if serr := cf.f.Sync(); err == nil && serr != nil {
		err = fmt.Errorf("%s: %w", cf.path, serr)
	}
	if cerr := cf.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("%s: %w", cf.path, cerr)
	}
	return err
}

// Salvage copies the part of a capture file cut short in the middle of a
// record batch (a full disk, a partial write) that reads back — every
// complete batch — to dst, which must not exist. It returns the number of
// requests kept and the number of bytes left behind. A file cut at a batch
// boundary (what a crash or kill -9 of capture leaves) needs no salvage:
// audit convert reads it as it is.
func Salvage(src, dst string) (requests, dropped int64, err error) {
	in, err := os.Open(src)
	if err != nil {
		return 0, 0, err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return 0, 0, err
	}
	end, _, err := arrowfile.StreamPrefix(in, st.Size())
	if err != nil {
		return 0, 0, fmt.Errorf("%s: not a cut-short Arrow IPC stream: %w", src, err)
	}
	if end == 0 {
		return 0, st.Size(), fmt.Errorf("%s: no complete Arrow IPC message at its start (not an Arrow IPC stream, or cut before its schema): nothing to salvage", src)
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return 0, 0, fmt.Errorf("%s: already exists: choose another -o", dst)
		}
		return 0, 0, err
	}
	_, err = io.Copy(out, io.NewSectionReader(in, 0, end))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		requests, err = countRequests(dst)
	}
	if err != nil {
		os.Remove(dst)
		return 0, 0, err
	}
	return requests, st.Size() - end, nil
}

func countRequests(path string) (int64, error) {
	r, err := trace.Open(path, trace.OpenOptions{Format: "arrows"})
	if err != nil {
		return 0, err
	}
	defer r.Close()
	var n int64
	for r.Scan() {
		n++
	}
	return n, r.Err()
}
