package tables_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/tables"
)

// editFooter decodes the footer of a Parquet file, lets edit change it and
// re-encodes it: a way to make files whose metadata lies.
func editFooter(t *testing.T, data []byte, edit func(*format.FileMetaData)) []byte {
	t.Helper()
	var proto thrift.CompactProtocol
	n := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	start := len(data) - 8 - n
	var md format.FileMetaData
	if err := thrift.Unmarshal(&proto, data[start:len(data)-8], &md); err != nil {
		t.Fatal(err)
	}
	edit(&md)
	footer, err := thrift.Marshal(&proto, &md)
	if err != nil {
		t.Fatal(err)
	}
	out := append(append([]byte{}, data[:start]...), footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	return append(out, "PAR1"...)
}

// inflateFirstPage rewrites the header of the file's first page (at byte 4)
// to claim uncompressed bytes, shifting the footer's offsets to match.
func inflateFirstPage(t *testing.T, data []byte, uncompressed int32) []byte {
	t.Helper()
	var proto thrift.CompactProtocol
	rest := bytes.NewReader(data[4:])
	var h format.PageHeader
	if err := thrift.NewDecoder(proto.NewReader(rest)).Decode(&h); err != nil {
		t.Fatal(err)
	}
	n := len(data) - 4 - rest.Len()
	h.UncompressedPageSize = uncompressed
	header, err := thrift.Marshal(&proto, &h)
	if err != nil {
		t.Fatal(err)
	}
	delta := int64(len(header) - n)
	out := append(append(append([]byte{}, data[:4]...), header...), data[4+n:]...)
	return editFooter(t, out, func(md *format.FileMetaData) {
		shift := func(off *int64) {
			if *off > 4 {
				*off += delta
			}
		}
		for i := range md.RowGroups {
			rg := &md.RowGroups[i]
			shift(&rg.FileOffset)
			for j := range rg.Columns {
				c := &rg.Columns[j]
				shift(&c.FileOffset)
				shift(&c.MetaData.DataPageOffset)
				shift(&c.MetaData.DictionaryPageOffset)
				shift(&c.MetaData.IndexPageOffset)
				shift(&c.OffsetIndexOffset)
				shift(&c.ColumnIndexOffset)
				shift(&c.MetaData.BloomFilterOffset)
				if i == 0 && j == 0 {
					c.MetaData.TotalCompressedSize += delta
				}
			}
		}
	})
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
