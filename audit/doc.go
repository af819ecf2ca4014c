// Package audit assembles the audit of one run: AISBench's figures, exactly
// as AISBench computes them, and sseaudit's beside them, never in their
// place. It is the thin layer over the calculators; each job is a package
// of its own (docs/architecture.md draws the pipeline):
//
//	record      a trace's requests replayed into records (record.Each)
//	run         the records kept compactly, time points in a samples.Store
//	calc/aisbench    AISBench's stages, window and result files
//	calc/ssemetrics  sseaudit's metrics, ITL accounting, SLOs
//	findings    what a reviewer should know, a rule a function
//	figures     the data the HTML page draws
//	render      text, markdown, CSV and JSON of a Report
//
// # Accumulate
//
// A Builder only collects requests, in trace order:
//
//	b := audit.NewBuilder(audit.Config{MaxConcurrency: 8})
//	for _, rec := range records { // record.Request, from record.Each
//		b.Add(rec)
//	}
//
// # Finalize
//
// Finalize derives every successful request's values in one parallel pass
// over its time points (AISBench's _calc_perf_data and sseaudit's facts
// together), then computes both stages (aisbench.Calc's Total and Stable),
// sseaudit's figures over each stage's requests, the stable window
// explained, the findings and the figures, and frees the run's memory:
//
//	rep, err := b.Finalize()
//
// Where AISBench raises, a stage holds an *aisbench.AISBenchError with its
// message; where its numbers cannot be known exactly (token counts it would
// have taken from its tokenizer, an unknown max concurrency, a NaN time
// point), the stage holds an error saying so instead of a guess.
//
// # Render
//
// A Report is data only; rendering computes nothing:
//
//	render.Text(w, rep)                           // both stages side by side
//	render.JSON(w, rep)                           // schemas/report/v1.schema.json
//	rep.WriteStageCSV(w, aisbench.StageTotal)     // AISBench's <ds>.csv, byte for byte
//	htmlreport.Write(w, rep, htmlreport.Options{}) // one self-contained page
package audit
