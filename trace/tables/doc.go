// Package tables writes and reads the replay tables of a trace
// (schemas/replay-tables-v1.md): two Parquet files in one directory,
// requests.parquet (one row a request, in trace order) and events.parquet
// (one row a framed event), holding what AISBench's client recorded and
// everything audit.Builder needs, so that many runs can be aggregated with
// SQL and replays of a trace's parts merged back into one report.
//
// The package deals in plain rows, RequestRow and EventRow, and knows
// neither replay's results nor audit's records: partial.Rows and
// partial.Record (package audit/partial) convert. A caller hands a Writer each request's
// rows in trace order; the Writer fills in the keys that tie them together,
// streams them out a row group at a time and renames both files into place
// on Close. A Reader goes the other way, a request at a time: Scan, Request
// and Events (the rows, from which partial.Record rebuilds the
// record exactly, float bits included), Err. Both files are checked against
// each other (the events of a request follow its row, in order, and match
// its counts and time points) and every breach is a *trace.Error naming the
// file, the row and what was expected.
//
// The package sits at the bottom of the data flow (trace → replay → audit →
// report) with the other packages under trace/, the only ones that know
// Parquet: it imports neither replay nor audit. Its class and framer names
// are replay's, as audit/partial's TestTableNames checks.
package tables
