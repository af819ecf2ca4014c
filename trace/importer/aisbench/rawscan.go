package aisbench

import (
	"encoding/binary"
	"errors"
	"net/url"
	"path/filepath"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// rawScan calls fn with the id and blob of every row of numpy_store, in
// table order, through SQLite's own interface (modernc.org/sqlite/lib, the
// library database/sql's driver wraps), the blob a view of SQLite's memory
// that is valid during the call only: fn copies what it keeps.
//
// The driver copies every blob into a new slice of its own; at 100,000
// requests that was 185 MB of fresh memory, and most of the time the
// prefetcher, the slower of the two readers of a work_dir, took. rawScan
// is the prefetcher's fast path only: it reads a database already checked
// by openStore, and any failure of its own (errRawScan) makes the
// prefetcher give the database up, to be read the usual way, which names
// the problem as it always has. An error from fn is returned as it is.
func rawScan(path string, fn func(id int64, blob []byte) error) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return errRawScan
	}
	tls := libc.NewTLS()
	defer tls.Close()
	u := url.URL{Scheme: "file", Path: abs, RawQuery: "mode=ro"}
	name, err := libc.CString(u.String())
	if err != nil {
		return errRawScan
	}
	defer libc.Xfree(tls, name)
	query, err := libc.CString(blobQuery())
	if err != nil {
		return errRawScan
	}
	defer libc.Xfree(tls, query)
	out := libc.Xcalloc(tls, 1, 8) // sqlite3** and sqlite3_stmt**: a pointer's room
	if out == 0 {
		return errRawScan
	}
	defer libc.Xfree(tls, out)

	rc := sqlite3.Xsqlite3_open_v2(tls, name, out, sqlite3.SQLITE_OPEN_READONLY|sqlite3.SQLITE_OPEN_URI, 0)
	db := pointerAt(out)
	if db != 0 {
		defer sqlite3.Xsqlite3_close_v2(tls, db)
	}
	if rc != sqlite3.SQLITE_OK {
		return errRawScan
	}
	if rc := sqlite3.Xsqlite3_prepare_v2(tls, db, query, -1, out, 0); rc != sqlite3.SQLITE_OK {
		return errRawScan
	}
	stmt := pointerAt(out)
	defer sqlite3.Xsqlite3_finalize(tls, stmt)
	for {
		switch rc := sqlite3.Xsqlite3_step(tls, stmt); rc {
		case sqlite3.SQLITE_ROW:
		case sqlite3.SQLITE_DONE:
			return nil
		default:
			return errRawScan
		}
		if sqlite3.Xsqlite3_column_type(tls, stmt, 0) != sqlite3.SQLITE_INTEGER || // text, real, null: the driver's Scan decides
			sqlite3.Xsqlite3_column_int64(tls, stmt, 2) > maxArrayBlob {
			return errRawScan // the usual read says what is wrong
		}
		id := sqlite3.Xsqlite3_column_int64(tls, stmt, 0)
		var blob []byte
		if p := sqlite3.Xsqlite3_column_blob(tls, stmt, 1); p != 0 {
			blob = libc.GoBytes(p, int(sqlite3.Xsqlite3_column_bytes(tls, stmt, 1)))
		}
		if err := fn(id, blob); err != nil {
			return err
		}
	}
}

// errRawScan: rawScan could not read the database; the usual read will
// say why.
var errRawScan = errors.New("raw scan failed")

// pointerAt is the pointer stored at p, in SQLite's memory.
func pointerAt(p uintptr) uintptr {
	b := libc.GoBytes(p, int(unsafe.Sizeof(uintptr(0))))
	if len(b) == 8 {
		return uintptr(binary.NativeEndian.Uint64(b))
	}
	return uintptr(binary.NativeEndian.Uint32(b))
}
