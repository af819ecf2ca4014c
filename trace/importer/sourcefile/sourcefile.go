// Package sourcefile reads the files the importers take from other tools:
// one place that opens a file, bounds what it reads, finds its top-level
// JSON values however they are laid out, and names the file and the line
// in every error.
//
// The tools write their results in several layouts, and people change them
// before committing: one JSON object (vLLM's RESULT.json, GenAI-Perf's
// profile_export.json), pretty-printed or not (`python -m json.tool`);
// JSON Lines (AIPerf's records, AISBench's details); runs appended one a
// line (vLLM's --append-result, SGLang's --output-file); pretty-printed
// objects appended one after the other. A Scanner yields the top-level
// values of any of these, each with the line it starts on, and says which
// layout the file has (Layout). It does not parse the values: it finds
// where each one ends (braces and brackets outside strings), so that
// Python's NaN and Infinity, which encoding/json refuses, pass through to
// PythonJSON; the importer then decodes each value.
//
// A LineScanner reads a file line by line, as Python's readline does, for
// the formats that are defined a line at a time (AISBench's details).
package sourcefile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/sseaudit/sseaudit/trace"
)

// Limits bound what is read, so that a hostile file ends in an error that
// names the limit rather than in an out-of-memory kill.
type Limits struct {
	// MaxBytes bounds the whole file; 0 means DefaultMaxBytes.
	MaxBytes int64
	// MaxValueBytes bounds one JSON value or one line; 0 means
	// DefaultMaxValueBytes.
	MaxValueBytes int
}

// Default limits.
const (
	DefaultMaxBytes      = 64 << 30
	DefaultMaxValueBytes = 1 << 30
)

func (l Limits) maxBytes() int64 {
	if l.MaxBytes > 0 {
		return l.MaxBytes
	}
	return DefaultMaxBytes
}

func (l Limits) maxValueBytes() int {
	if l.MaxValueBytes > 0 {
		return l.MaxValueBytes
	}
	return DefaultMaxValueBytes
}

// Errorf is bad input at a line of a file (line 0: the whole file), as a
// *trace.Error.
func Errorf(file string, line int, format string, args ...any) *trace.Error {
	return &trace.Error{File: file, Line: line, RowGroup: -1, Row: -1, Msg: fmt.Sprintf(format, args...)}
}

// Open opens a file to import; a directory is an error that says a file
// was expected.
func Open(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, Errorf(path, 0, "is a directory: want a file")
	}
	return f, nil
}

// Layout is how a file's top-level JSON values are laid out.
type Layout uint8

const (
	// Empty: no value at all (only white space).
	Empty Layout = iota
	// Document: one value, on one line or pretty-printed over several.
	Document
	// Lines: several values, each on a line of its own (JSON Lines, runs
	// appended one a line).
	Lines
	// Concatenated: several values, at least one of them over several
	// lines or two on one line (pretty-printed runs appended).
	Concatenated
)

func (l Layout) String() string {
	switch l {
	case Empty:
		return "empty"
	case Document:
		return "one JSON document"
	case Lines:
		return "JSON Lines"
	case Concatenated:
		return "concatenated JSON documents"
	}
	return fmt.Sprintf("Layout(%d)", l)
}

// Value is one top-level JSON value of a file.
type Value struct {
	Index   int    // 0-based, in file order
	Offset  int64  // byte offset of its first byte
	Line    int    // 1-based line where it starts
	EndLine int    // 1-based line where it ends
	Data    []byte // the value's bytes, from its first to its last byte
}

// Scanner yields the top-level JSON values of a file one at a time.
type Scanner struct {
	name string
	lim  Limits
	r    *bufio.Reader
	line int   // current line, 1-based
	read int64 // bytes read so far
	n    int   // values so far
	cur  Value
	buf  []byte
	err  error

	multiLine, sharedLine bool // for Layout
	lastEnd               int  // EndLine of the previous value
	started               bool // past a byte-order mark
}

// NewScanner reads values from r; name is the file's name for errors.
func NewScanner(r io.Reader, name string, lim Limits) *Scanner {
	return &Scanner{name: name, lim: lim, r: bufio.NewReaderSize(r, 64<<10), line: 1}
}

// errorf ends the scan with bad input at line.
func (s *Scanner) errorf(line int, format string, args ...any) bool {
	s.err = Errorf(s.name, line, format, args...)
	return false
}

// readByte reads one byte, counting bytes and lines; io.EOF at the end.
func (s *Scanner) readByte() (byte, error) {
	c, err := s.r.ReadByte()
	if err != nil {
		return 0, err
	}
	s.read++
	if s.read > s.lim.maxBytes() {
		return 0, fmt.Errorf("more than %d bytes: %w", s.lim.maxBytes(), trace.ErrLimit)
	}
	if c == '\n' {
		s.line++
	}
	return c, nil
}

// Scan moves to the next value; it returns false at the end of the file or
// on an error (Err).
func (s *Scanner) Scan() bool {
	if s.err != nil {
		return false
	}
	if !s.started {
		s.started = true
		if b, _ := s.r.Peek(3); bytes.Equal(b, []byte("\xef\xbb\xbf")) {
			s.r.Discard(3)
			s.read += 3
		}
	}
	// White space before the value.
	var c byte
	for {
		var err error
		c, err = s.readByte()
		if err == io.EOF {
			return false
		}
		if err != nil {
			return s.ioError(err)
		}
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			break
		}
	}
	start, offset := s.line, s.read-1
	if c != '{' && c != '[' {
		return s.errorf(start, "%s: want a JSON object (or array) here", quoteByte(c))
	}
	if s.n > 0 && start == s.lastEnd {
		s.sharedLine = true
	}
	s.buf = append(s.buf[:0], c)
	depth, inStr, esc := 1, false, false
	max := s.lim.maxValueBytes()
	for depth > 0 {
		c, err := s.readByte()
		if err == io.EOF {
			return s.errorf(start, "the JSON value that starts here is cut short at the end of the file (line %d): want it whole", s.line)
		}
		if err != nil {
			return s.ioError(err)
		}
		if len(s.buf) >= max {
			s.err = fmt.Errorf("%w: %w", Errorf(s.name, start, "a JSON value of more than %d bytes", max), trace.ErrLimit)
			return false
		}
		s.buf = append(s.buf, c)
		switch {
		case inStr && esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case inStr && c == '"':
			inStr = false
		case inStr:
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		}
	}
	if s.line != start {
		s.multiLine = true
	}
	s.cur = Value{Index: s.n, Offset: offset, Line: start, EndLine: s.line, Data: s.buf}
	s.lastEnd = s.line
	s.n++
	return true
}

// ioError ends the scan with a read error or the byte limit (which wraps
// trace.ErrLimit).
func (s *Scanner) ioError(err error) bool {
	s.err = fmt.Errorf("%s: line %d: %w", s.name, s.line, err)
	return false
}

// Value is the current value; its Data is valid until the next Scan.
func (s *Scanner) Value() *Value { return &s.cur }

// Err is what ended the scan, if not the end of the file.
func (s *Scanner) Err() error { return s.err }

// Layout is the layout of the values scanned so far: the file's layout
// once Scan has returned false without an error.
func (s *Scanner) Layout() Layout {
	switch {
	case s.n == 0:
		return Empty
	case s.n == 1:
		return Document
	case s.multiLine || s.sharedLine:
		return Concatenated
	}
	return Lines
}

// ReadAll reads every value of r (each Data its own copy) and the file's
// layout.
func ReadAll(r io.Reader, name string, lim Limits) ([]Value, Layout, error) {
	s := NewScanner(r, name, lim)
	var vals []Value
	for s.Scan() {
		v := *s.Value()
		v.Data = bytes.Clone(v.Data)
		vals = append(vals, v)
	}
	return vals, s.Layout(), s.Err()
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", string(rune(c)))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// LineScanner reads a file a line at a time, as Python's readline does:
// the last line may lack its newline; a line keeps no "\n" (nor "\r\n").
type LineScanner struct {
	name string
	sc   *bufio.Scanner
	line int
	max  int
	read int64
	lim  Limits
	err  error
}

// NewLineScanner reads lines from r; name is the file's name for errors.
func NewLineScanner(r io.Reader, name string, lim Limits) *LineScanner {
	sc := bufio.NewScanner(r)
	max := lim.maxValueBytes()
	sc.Buffer(make([]byte, 0, min(1<<20, max)), max)
	return &LineScanner{name: name, sc: sc, max: max, lim: lim}
}

// Scan moves to the next line.
func (l *LineScanner) Scan() bool {
	if l.err != nil {
		return false
	}
	if !l.sc.Scan() {
		if err := l.sc.Err(); err != nil {
			if errors.Is(err, bufio.ErrTooLong) {
				l.err = fmt.Errorf("%w: %w", Errorf(l.name, l.line+1, "a line of more than %d bytes", l.max), trace.ErrLimit)
			} else {
				l.err = fmt.Errorf("%s: line %d: %w", l.name, l.line+1, err)
			}
		}
		return false
	}
	l.line++
	l.read += int64(len(l.sc.Bytes())) + 1
	if l.read > l.lim.maxBytes() {
		l.err = fmt.Errorf("%w: %w", Errorf(l.name, l.line, "more than %d bytes", l.lim.maxBytes()), trace.ErrLimit)
		return false
	}
	return true
}

// Line is the current line's 1-based number.
func (l *LineScanner) Line() int { return l.line }

// Bytes is the current line, valid until the next Scan.
func (l *LineScanner) Bytes() []byte { return l.sc.Bytes() }

// Err is what ended the scan, if not the end of the file.
func (l *LineScanner) Err() error { return l.err }

// PythonJSON turns the non-standard number literals Python's json module
// writes (NaN, Infinity, -Infinity, as in "request_rate": Infinity),
// outside strings, into JSON strings ("Infinity"), so that encoding/json
// reads the value: a field that wants a number then fails with an error
// naming it, and a rate of "Infinity" is no rate.
func PythonJSON(b []byte) []byte {
	var out []byte // nil until something changes
	last := 0      // b[last:i] is not yet in out
	inStr, esc := false, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		if c == '"' {
			inStr = true
			continue
		}
		for _, lit := range []string{"-Infinity", "Infinity", "NaN"} {
			if bytes.HasPrefix(b[i:], []byte(lit)) {
				out = append(append(out, b[last:i]...), '"')
				out = append(append(out, lit...), '"')
				i += len(lit) - 1
				last = i + 1
				break
			}
		}
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// EpochLike is a time in ns past which a tool's clock is taken to count
// from 1970 rather than from boot (about 11.6 days).
const EpochLike = 1e15

// EpochOffset is what to subtract from the times of a file whose first
// request starts at first: for an epoch clock (perf_analyzer's, AIPerf's
// records), the whole second before it, so that AISBench's float-second
// arithmetic keeps nanosecond resolution; 0 for any other clock.
func EpochOffset(first int64) int64 {
	if first > EpochLike {
		return first - first%1e9
	}
	return 0
}
