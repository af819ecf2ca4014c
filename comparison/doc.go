// Package comparison compares two runs of a streaming benchmark, as
// benchstat compares two sets of benchmark results: for each stage and
// metric, each run's center, the change with its confidence interval, a
// significance test, and "~" when nothing changed; then what changed in
// the streams themselves, and the --fail-on conditions of a CI gate.
//
// The pipeline, for each run: Builder.Add takes the run's requests in trace
// order (Builder.AddTrace replays a trace with record.Each; audit diff
// turns replay tables into Requests itself), each a record.Request with
// what the replay said of its stream (events by class, token source,
// error). Builder.Finalize computes AISBench's stages and sseaudit's
// metrics with the calculators audit report uses (calc/aisbench,
// calc/ssemetrics) and keeps a Side: every stage's per-request values of
// each metric (Metrics), the report's statistics of them, the common
// metrics and the window, the facts of each request's stream; the run's
// time points are freed.
//
// Compare(a, b, Options) pairs the runs when they hold the same requests
// (PairMode), compares every metric of every stage (package stattest: the
// Mann-Whitney U test, or Wilcoxon's signed-rank test on pairs, as SciPy
// computes them; a seeded bootstrap interval of the change of the median),
// runs the attribution rules (a table of small functions, in a fixed
// order) and evaluates the --fail-on expressions (ParseFailOn). The
// Comparison is data only: WriteText, WriteMarkdown, WriteCSV and
// WriteJSON print it through packages table and unit and compute nothing.
//
// docs/diff.md defines every figure and key, with a worked example.
package comparison
