package trace

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Error is bad input in a trace file: where it is and what was expected.
// Unset position fields are left out of the message.
type Error struct {
	File      string // path as given, "-" for stdin
	Line      int    // 1-based line (JSONL), 0 when not applicable
	RowGroup  int    // 0-based row group or record batch, -1 when not applicable
	Row       int64  // 0-based row in the file, -1 when not applicable
	RequestID string
	Column    string
	Msg       string
	Err       error // underlying cause, if any
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	var where []string
	if e.Line > 0 {
		where = append(where, "line "+strconv.Itoa(e.Line))
	}
	if e.RowGroup >= 0 && e.Row < 0 {
		where = append(where, "row group "+strconv.Itoa(e.RowGroup))
	}
	if e.Row >= 0 {
		where = append(where, "row "+strconv.FormatInt(e.Row, 10))
	}
	if e.RequestID != "" {
		where = append(where, "request "+QuoteID(e.RequestID))
	}
	if e.Column != "" {
		where = append(where, "column "+e.Column)
	}
	if len(where) > 0 {
		b.WriteString(": ")
		b.WriteString(strings.Join(where, ", "))
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// maxQuotedID is how much of a request_id an error message shows.
const maxQuotedID = 128

// QuoteID quotes a request_id for a message; an id longer than 128 bytes is
// cut there (at a character boundary) and its length said, so that one
// error is one readable line whatever the file holds.
func QuoteID(id string) string {
	if len(id) <= maxQuotedID {
		return strconv.Quote(id)
	}
	cut := maxQuotedID
	for cut > maxQuotedID-utf8.UTFMax && !utf8.RuneStart(id[cut]) {
		cut--
	}
	return strconv.Quote(id[:cut]) + fmt.Sprintf("... (%d bytes)", len(id))
}

// FileError is an Error about a whole file.
func FileError(file string, err error, format string, args ...any) *Error {
	return &Error{File: file, RowGroup: -1, Row: -1, Msg: fmt.Sprintf(format, args...), Err: err}
}

// RowError is an Error about one row.
func RowError(file string, rowGroup int, row int64, column, format string, args ...any) *Error {
	return &Error{File: file, RowGroup: rowGroup, Row: row, Column: column, Msg: fmt.Sprintf(format, args...)}
}

// ErrLimit is wrapped by errors that exceed a configured limit.
var ErrLimit = errors.New("limit exceeded")

// ErrCut marks a file that ends inside a message (an Arrow IPC stream cut
// inside a record batch: a capture interrupted, a copy cut short): what was
// written before the cut may still be salvaged.
var ErrCut = errors.New("the file ends inside a message: cut short")
