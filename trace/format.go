package trace

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/sseaudit/sseaudit/internal/atomicfile"
)

// Format is one file format a trace can be stored in. Formats register
// themselves (package trace/parquet, trace/arrow); JSONL is built in.
type Format struct {
	Name       string   // "parquet", "arrow", "arrows", "jsonl"
	Extensions []string // with the dot: ".parquet"
	// Open reads a trace from src. It returns a *Error for bad input.
	Open func(src Source) (Reader, error)
	// NewWriter starts writing a trace to w.
	NewWriter func(w io.Writer, opts WriteOptions) (RequestWriter, error)
	// Layouts the writer can write; the first is the default.
	Layouts []Layout
}

// Source is an open input file. Stdin is spooled to a temporary file first,
// so every format can seek.
type Source struct {
	Name   string // as the user named it; "-" for stdin
	File   *os.File
	Size   int64
	Limits Limits
}

var (
	formatsMu sync.RWMutex
	formats   = map[string]*Format{}
)

// Register makes a format available to Open and Create.
func Register(f *Format) {
	formatsMu.Lock()
	defer formatsMu.Unlock()
	formats[f.Name] = f
}

// Formats lists the registered format names, sorted.
func Formats() []string {
	formatsMu.RLock()
	defer formatsMu.RUnlock()
	var names []string
	for n := range formats {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// LookupFormat finds a format by name, or by path extension when name is
// empty.
func LookupFormat(name, path string) (*Format, error) {
	formatsMu.RLock()
	defer formatsMu.RUnlock()
	if name != "" {
		if f, ok := formats[name]; ok {
			return f, nil
		}
		return nil, fmt.Errorf("unknown format %q: want one of %s", name, strings.Join(formatNamesLocked(), ", "))
	}
	ext := strings.ToLower(filepath.Ext(path))
	if path == "-" {
		ext = ".jsonl"
	}
	for _, f := range formats {
		for _, e := range f.Extensions {
			if e == ext {
				return f, nil
			}
		}
	}
	return nil, fmt.Errorf("%s: cannot tell the format from the extension %q: want .parquet, .arrow, .arrows or .jsonl, or name the format with a flag", path, ext)
}

func formatNamesLocked() []string {
	var names []string
	for n := range formats {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// OpenOptions tune Open.
type OpenOptions struct {
	Format string // empty: from the extension
	Limits Limits // zero: DefaultLimits
	Stdin  io.Reader
}

// Open opens the trace at path ("-" for stdin, which is spooled to a
// temporary file).
func Open(path string, opts OpenOptions) (Reader, error) {
	f, err := LookupFormat(opts.Format, path)
	if err != nil {
		return nil, err
	}
	if opts.Limits == (Limits{}) {
		opts.Limits = DefaultLimits
	}
	var file *os.File
	var cleanup func()
	if path == "-" {
		in := opts.Stdin
		if in == nil {
			in = os.Stdin
		}
		if file, cleanup, err = spool(in, "stdin"); err != nil {
			return nil, err
		}
	} else {
		file, err = os.Open(path)
		if err != nil {
			return nil, err
		}
		cleanup = func() { file.Close() }
	}
	st, err := file.Stat()
	if err != nil {
		cleanup()
		return nil, err
	}
	if st.IsDir() {
		cleanup()
		return nil, FileError(path, nil, "is a directory: want a trace file")
	}
	if st.Mode()&os.ModeNamedPipe != 0 && path != "-" {
		// A pipe named by its path (a FIFO, <(zcat x.jsonl.gz)) has no
		// size and cannot seek: spooled as stdin is. (A device such as
		// /dev/zero is not: it may never end.)
		pipe := file
		file, cleanup, err = spool(pipe, path)
		pipe.Close()
		if err != nil {
			return nil, err
		}
		if st, err = file.Stat(); err != nil {
			cleanup()
			return nil, err
		}
	}
	r, err := f.Open(Source{Name: path, File: file, Size: st.Size(), Limits: opts.Limits})
	if err != nil {
		cleanup()
		return nil, err
	}
	return &closingReader{Reader: r, cleanup: cleanup}, nil
}

// spool copies in to a temporary file, opened at its start, and returns
// it with the function that closes (and removes) it.
func spool(in io.Reader, what string) (*os.File, func(), error) {
	tmp, err := os.CreateTemp("", "sseaudit-stdin-*")
	if err != nil {
		return nil, nil, fmt.Errorf("spooling %s: %w", what, err)
	}
	// Unlinked at once where the system allows it (the open file stays
	// readable): a process killed while reading leaves nothing behind.
	// Elsewhere (Windows) it is removed on Close.
	unlinked := os.Remove(tmp.Name()) == nil
	cleanup := func() {
		tmp.Close()
		if !unlinked {
			os.Remove(tmp.Name())
		}
	}
	if _, err := io.Copy(tmp, in); err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("reading %s: %w", what, err)
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		cleanup()
		return nil, nil, err
	}
	return tmp, cleanup, nil
}

type closingReader struct {
	Reader
	cleanup func()
	once    sync.Once
}

// Info leaves out the sseaudit.extra_kind.* keys: the kinds are in
// Info.Extra, and every writer records them again as its format needs.
func (c *closingReader) Info() Info {
	info := c.Reader.Info()
	var meta Meta
	for _, kv := range info.Meta {
		if !strings.HasPrefix(kv.Key, KeyExtraKindPrefix) {
			meta = append(meta, kv)
		}
	}
	info.Meta = meta
	return info
}

func (c *closingReader) Close() error {
	err := c.Reader.Close()
	c.once.Do(c.cleanup)
	return err
}

// Writer writes a trace file atomically (package atomicfile): to a
// temporary file beside the target, renamed into place by Close. Abort
// removes the temporary file.
type Writer struct {
	file *atomicfile.File // nil for stdout
	out  io.Writer
	rw   RequestWriter
	done bool
}

// Create starts writing a trace to path ("-" for stdout) in the named format
// (empty: from the extension).
func Create(path, format string, stdout io.Writer, opts WriteOptions) (*Writer, error) {
	f, err := LookupFormat(format, path)
	if err != nil {
		return nil, err
	}
	if opts.Layout == "" {
		opts.Layout = f.Layouts[0]
	}
	if !containsLayout(f.Layouts, opts.Layout) {
		return nil, fmt.Errorf("the %s format cannot hold the %s layout", f.Name, opts.Layout)
	}
	if _, ok := opts.Meta.Get(KeySchemaVersion); !ok {
		opts.Meta.Set(KeySchemaVersion, SchemaVersion)
	}
	w := &Writer{}
	if path == "-" {
		if stdout == nil {
			stdout = os.Stdout
		}
		w.out = stdout
	} else {
		if w.file, err = atomicfile.Create(path); err != nil {
			return nil, err
		}
		w.out = w.file
	}
	w.rw, err = f.NewWriter(w.out, opts)
	if err != nil {
		w.Abort()
		return nil, err
	}
	return w, nil
}

func containsLayout(ls []Layout, l Layout) bool {
	for _, x := range ls {
		if x == l {
			return true
		}
	}
	return false
}

// Write writes one request.
func (w *Writer) Write(r *Request) error { return w.rw.Write(r) }

// Close finishes the file and moves it into place.
func (w *Writer) Close() error {
	if w.done {
		return nil
	}
	w.done = true
	err := w.rw.Close()
	if w.file == nil {
		return err
	}
	if err != nil {
		w.file.Abort()
		return err
	}
	return w.file.Commit()
}

// Abort drops what was written; the target is left untouched.
func (w *Writer) Abort() {
	if w.done {
		return
	}
	w.done = true
	if w.file != nil {
		w.file.Abort()
	}
}

// Copy writes every request of r to w. It does not close either.
func Copy(w *Writer, r Reader) (int64, error) {
	var n int64
	for r.Scan() {
		if err := w.Write(r.Request()); err != nil {
			return n, err
		}
		n++
	}
	return n, r.Err()
}

// IsBadInput reports whether err is about the input's content (exit 1 with a
// clear message) rather than the environment.
func IsBadInput(err error) bool {
	var e *Error
	return errors.As(err, &e)
}
