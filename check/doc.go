// Package check compares a report as it was handed over — AISBench's <ds>.csv
// and <ds>.json — with the report recomputed from the run's own data, cell by
// cell, and lints it.
//
//	in := check.Input{Reported: ..., Records: ...}  // the files and the requests
//	res, err := check.Run(in, check.Options{...}) // recompute, compare, lint
//	res.WriteText(w)                               // or WriteJSON
//	if res.Discrepant() { ... }                    // audit check exits 3
//
// The recomputed files are rendered by the audit package's own AISBench
// writers (byte for byte what AISBench writes), so a cell differs only when
// the reported text differs. Each difference gets its likely cause: rounding,
// a subset of the requests (the prefix or suffix that reproduces it is named),
// the other stage, a format change, or a hand edit. With a raw trace beside the
// run's details, the two are compared request by request first. The lints
// (a statistic quoted but absent, a per-card figure without its divisor, a
// request throughput below the configured rate, cached prefix tokens counted as
// input, a P90 quoted as a sum of P90s) join the audit's own findings.
package check
