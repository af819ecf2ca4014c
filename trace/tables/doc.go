// Package tables writes and reads the replay tables of a trace
// (schemas/replay-tables-v1.md): two Parquet files in one directory,
// requests.parquet (one row a request, in trace order) and events.parquet
// (one row a framed event), holding what AISBench's client recorded and
// everything audit.Builder needs, so that many runs can be aggregated with
// SQL and replays of a trace's parts merged back into one report.
//
// The pipeline: a caller replays each request (package replay) and builds
// its audit.RequestRecord, then hands both to a Writer in trace order; the
// Writer streams rows out a row group at a time and renames both files into
// place on Close. A Reader goes the other way, a request at a time: Scan,
// Record (the audit.RequestRecord rebuilt exactly, float bits included),
// Err. Both files are checked against each other (the events of a request
// follow its row, in order) and every breach is a *trace.Error naming the
// file, the row and what was expected.
//
// The package sits after audit in the data flow (trace → replay → audit →
// tables): it stores audit's records, and audit never sees Parquet.
package tables
