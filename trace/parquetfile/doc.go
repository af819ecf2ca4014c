// Package parquetfile reads and writes sseaudit traces (schemas/trace-v1.md)
// as Parquet files, in the nested layout (one row a request, chunks as a
// LIST column) and the flat layout (one row a chunk).
//
// Reading goes row group by row group and, within one, column by column: each
// leaf column's pages are decoded by the library in a goroutine of their own,
// up to two pages ahead, and the reader takes each row's values straight from
// the decoded pages (columns.go), so memory is bounded by three pages a
// column plus the requests being produced. Before the parquet library
// allocates for anything the file claims (the footer, a column chunk, a
// page), the guards in guard.go check the claim against the bytes really
// there; the replay tables' reader (trace/tables) uses them too, through
// Guard. The reader accepts the list encodings and types other writers use
// (DuckDB, Arrow, Spark); every request goes through a trace.Checker. Flat
// files are first scanned by their request_id column alone to learn whether
// each request's rows are contiguous; the grouping itself is trace's
// (trace.NewFlatReader).
//
// Writing produces the canonical types: String BYTE_ARRAY for utf8, 3-level
// LISTs named list/element, zstd compression, row groups of at most
// WriteOptions.RowGroupRequests requests or MaxRowGroupBodyBytes body bytes.
// In the flat layout the request-level columns are dictionary-encoded, and
// the reader compares their dictionary indexes instead of their values.
package parquetfile

import "github.com/sseaudit/sseaudit/trace"

func init() {
	trace.Register(&trace.Format{Name: "parquet", Extensions: []string{".parquet"}, Open: Open,
		NewWriter: NewWriter, Layouts: []trace.Layout{trace.Nested, trace.Flat}})
}
