// Package parquetfile reads and writes sseaudit traces (schemas/trace-v1.md)
// as Parquet files, in the nested layout (one row a request, chunks as a
// LIST column) and the flat layout (one row a chunk).
//
// Reading goes row group by row group and, within one, column by column: the
// parquet library parses the footer, and the reader decodes the pages itself
// (pages.go, pagevalues.go, encoding.go, lzstream.go), each leaf column in a
// goroutine of its own, up to two windows ahead. A page of up to 4 MiB is a
// window, decompressed whole; a larger one (DuckDB writes a row group's
// column as pages of up to ~100 MB) is decompressed as a stream and cut into
// windows of about 1 MiB of values. The reader takes each row's values
// straight from the windows (columns.go), so memory is bounded by three
// windows a column plus the requests being produced, whatever the writer's
// row groups and pages. Before anything the file claims is allocated for (the
// footer, a column chunk, a page), the guards in guard.go check the claim
// against the bytes really there, and each page is held to the size its
// header claims as it decompresses; the replay tables' reader (trace/tables)
// uses the guards too, through Guard. The reader accepts the list encodings and types other writers use
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
