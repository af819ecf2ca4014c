package tables_test

import (
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/format"

	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/parquetfile/parquetedit"
	"github.com/sseaudit/sseaudit/trace/tables"
)

// editFooter is parquetedit.EditFooter, failing the test on an error.
func editFooter(t *testing.T, data []byte, edit func(*format.FileMetaData)) []byte {
	t.Helper()
	out, err := parquetedit.EditFooter(data, edit)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// inflateFirstPage is parquetedit.InflateFirstPage, failing the test on an
// error.
func inflateFirstPage(t *testing.T, data []byte, uncompressed int32) []byte {
	t.Helper()
	out, err := parquetedit.InflateFirstPage(data, uncompressed)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestHostileSizes: a table whose metadata or page headers claim sizes its
// bytes cannot hold is refused by the Parquet guard before the library
// allocates for the claim, with an error naming the file and what was
// expected.
func TestHostileSizes(t *testing.T) {
	rs := replayed(t, "../../testdata/traces/basic.parquet")
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, data []byte) []byte
		want   []string // parts of the error, in order
	}{
		// A page header's sizes are int32: 2 GiB is the most one can claim.
		{"page claims 2 GiB", func(t *testing.T, data []byte) []byte { return inflateFirstPage(t, data, math.MaxInt32) },
			[]string{"requests.parquet: row group 0: corrupt parquet file: column chunk 0 (request_id): page at byte 4 claims 2147483647 uncompressed bytes from ",
				" compressed: want at most "}},
		{"column chunk claims a terabyte", func(t *testing.T, data []byte) []byte {
			return editFooter(t, data, func(md *format.FileMetaData) { md.RowGroups[0].Columns[0].MetaData.TotalCompressedSize = 1 << 40 })
		}, []string{"requests.parquet: row group 0: corrupt parquet file: column chunk 0 (request_id) claims bytes 4..1099511627780: want them within the "}},
		{"footer claims 2 GiB", func(t *testing.T, data []byte) []byte {
			out := append([]byte{}, data...)
			binary.LittleEndian.PutUint32(out[len(out)-8:], math.MaxInt32)
			return out
		}, []string{"requests.parquet: footer claims 2147483647 bytes in a file of ", ": want a footer that fits in the file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeTables(t, rs, tables.Meta{Framer: tables.FramerAISBench, MaxConcurrency: 2, SourceTrace: "basic.parquet", Writer: "test"})
			path := filepath.Join(dir, tables.RequestsFile)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, tc.damage(t, data), 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err = readRecords(dir)
			var te *trace.Error
			if !errors.As(err, &te) {
				t.Fatalf("error %T %v: want a *trace.Error", err, err)
			}
			rest := err.Error()
			for _, part := range tc.want {
				i := strings.Index(rest, part)
				if i < 0 {
					t.Fatalf("error\n  %v\nwant it to contain, in order,\n  %q", err, tc.want)
				}
				rest = rest[i+len(part):]
			}
		})
	}
}
