package capture

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/arrowfile"
)

// File is a trace being captured: an Arrow IPC stream (.arrows) written
// straight to its final path, one whole record batch at a time. Whatever
// the writer produces is held in memory until a batch is complete and then
// written with one write call, so the file always ends at a message
// boundary; the stream reader takes a file cut there (by a crash or a kill
// -9) as complete up to its last batch. The file appears under its name
// already holding the stream's schema (and an empty batch), so that a
// capture killed before its first batch leaves a valid, empty trace.
// `audit convert` makes a finished file of it.
type File struct {
	path    string
	f       fileWriter
	pending bytes.Buffer
	w       trace.RequestWriter
	flusher interface{ Flush() error }
	closed  bool

	buffered int   // requests handed to the writer, not yet on disk
	onDisk   int   // requests in the complete batches on disk
	err      error // the write that failed: nothing more is written
	partial  bool  // that write left part of a batch on disk
}

// fileWriter is what a File writes to (an *os.File; a test's full disk).
type fileWriter interface {
	io.Writer
	Sync() error
	Close() error
}

// DefaultFlushEvery is how many requests a record batch holds at most.
const DefaultFlushEvery = 8

// ErrExists is wrapped by CreateFile's error when the file exists.
var ErrExists = errors.New("already exists")

// CreateFile starts a capture file at path, which must not exist and must
// end in .arrows. flushEvery bounds a record batch in requests
// (DefaultFlushEvery when 0).
func CreateFile(path string, opts trace.WriteOptions, flushEvery int) (*File, error) {
	if ext := strings.ToLower(filepath.Ext(path)); ext != ".arrows" {
		return nil, fmt.Errorf("%s: a trace recorded live is an Arrow IPC stream, readable when cut short: want a .arrows file (convert it afterwards with audit convert)", path)
	}
	if flushEvery <= 0 {
		flushEvery = DefaultFlushEvery
	}
	opts.RowGroupRequests = flushEvery
	if _, ok := opts.Meta.Get(trace.KeySchemaVersion); !ok {
		opts.Meta.Set(trace.KeySchemaVersion, trace.SchemaVersion)
	}
	exists := func() error {
		return fmt.Errorf("%s: %w: a trace recorded live never overwrites one; remove it or choose another -o", path, ErrExists)
	}
	if _, err := os.Lstat(path); err == nil {
		return nil, exists()
	}
	cf := &File{path: path}
	w, err := arrowfile.NewStreamWriter(&cf.pending, opts)
	if err != nil {
		return nil, err
	}
	cf.w = w
	cf.flusher, _ = w.(interface{ Flush() error })
	if err := w.(interface{ Start() error }).Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// The schema is written to a new file beside path, which is then
	// linked to path: a link never replaces a file, and path never exists
	// without its schema.
	tmp := fmt.Sprintf("%s.tmp-%d-%d", path, os.Getpid(), time.Now().UnixNano())
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	cf.f = f
	err = cf.commit()
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = os.Link(tmp, path)
		if errors.Is(err, os.ErrExist) {
			err = exists()
		} else if err != nil {
			// A file system without hard links: create path itself.
			err = cf.createDirectly(tmp)
		}
	}
	os.Remove(tmp)
	if err != nil {
		cf.f.Close()
		return nil, err
	}
	return cf, nil
}

// createDirectly creates cf.path (not there) and writes the schema written
// to tmp again, for a file system without hard links.
func (cf *File) createDirectly(tmp string) error {
	head, err := os.ReadFile(tmp)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(cf.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%s: %w: a trace recorded live never overwrites one; remove it or choose another -o", cf.path, ErrExists)
	}
	if err != nil {
		return err
	}
	cf.f.Close()
	cf.f = f
	if _, err := f.Write(head); err != nil {
		f.Close()
		os.Remove(cf.path)
		return err
	}
	return nil
}

// Path is the file's path.
func (cf *File) Path() string { return cf.path }

// Requests is the number of requests on disk: those of the record batches
// written whole. After a failed write (a full disk) it is what the file,
// salvaged if it ends inside a batch (Partial), holds.
func (cf *File) Requests() int { return cf.onDisk }

// Partial reports whether a failed write left part of a record batch at
// the end of the file: audit capture --salvage keeps the batches before.
func (cf *File) Partial() bool { return cf.partial }

// commit writes what the writer produced, a whole number of messages, in
// one write; the requests handed to it are then on disk. After a failed
// write nothing more is written: bytes after a partial batch would make
// the file unreadable, even by Salvage.
func (cf *File) commit() error {
	if cf.err != nil {
		return cf.err
	}
	if cf.pending.Len() == 0 {
		return nil
	}
	n, err := cf.f.Write(cf.pending.Bytes())
	cf.pending.Reset()
	if err != nil {
		cf.err = fmt.Errorf("%s: %w", cf.path, err)
		cf.partial = n > 0
		return cf.err
	}
	cf.onDisk += cf.buffered
	cf.buffered = 0
	return nil
}

// Write adds a request; every few requests a record batch reaches the file.
func (cf *File) Write(r *trace.Request) error {
	if cf.err != nil {
		return cf.err
	}
	if err := cf.w.Write(r); err != nil {
		return fmt.Errorf("%s: %w", cf.path, err)
	}
	cf.buffered++
	return cf.commit()
}

// Flush writes the requests not yet in the file as a record batch.
func (cf *File) Flush() error {
	if cf.err != nil {
		return cf.err
	}
	if cf.flusher != nil {
		if err := cf.flusher.Flush(); err != nil {
			return fmt.Errorf("%s: %w", cf.path, err)
		}
	}
	return cf.commit()
}

// Close writes what is left and the end-of-stream marker, and syncs the
// file to disk. After a failed write it writes nothing more.
func (cf *File) Close() error {
	if cf.closed {
		return cf.err
	}
	cf.closed = true
	var err error
	if cf.err == nil {
		if werr := cf.w.Close(); werr != nil {
			err = fmt.Errorf("%s: %w", cf.path, werr)
		}
		if cerr := cf.commit(); err == nil {
			err = cerr
		}
	} else {
		cf.w.Close()
		err = cf.err
	}
	if serr := cf.f.Sync(); err == nil && serr != nil {
		err = fmt.Errorf("%s: %w", cf.path, serr)
	}
	if cerr := cf.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("%s: %w", cf.path, cerr)
	}
	return err
}

// Remove closes the file and removes it: a capture that never reached its
// server leaves nothing behind to block the next try.
func (cf *File) Remove() error {
	if !cf.closed {
		cf.closed = true
		cf.w.Close()
		cf.f.Close()
	}
	return os.Remove(cf.path)
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
