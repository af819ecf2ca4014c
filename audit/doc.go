// Package audit recomputes AISBench's streaming performance results exactly:
// the two stages its calculators report, the <ds>.csv and <ds>.json files it
// writes, and a report that sets the stages side by side.
//
// It takes plain Go values, never trace files: one RequestRecord per request,
// in trace order (AISBench's details order), holding the success flag, the
// time points in float seconds (t0 first, as AISBench's client records them)
// and the token counts, nil when unknown.
//
// # Accumulate
//
// A Builder only collects requests:
//
//	b := audit.NewBuilder(audit.Config{MaxConcurrency: 8})
//	for _, rec := range records {
//		b.Add(rec)
//	}
//
// # Finalize
//
// Finalize does all the arithmetic, once, in AISBench's order and with its
// numerics (numpy 1.24's pairwise mean and linear percentile, Python's
// left-to-right sum and correctly rounded round(x, 4), numpy's rint-based
// rounding where AISBench rounds an np.float64; see pynum.go):
//
//	rep, err := b.Finalize()
//
// It derives per-request values as the summarizer's _calc_perf_data does
// (E2EL, TTFT, TPOT, the ITL intervals, throughputs), then the two stages:
//
//   - total (DefaultPerfMetricCalculator, the article's "whole"): every
//     successful request; T = last end - first start.
//   - stable (StablePerfMetricCalculator, the article's "native"): the window
//     from the second request start that brings the in-flight count to the max
//     concurrency to the last event that leaves it there; the requests that
//     start inside it; T = window length; Concurrency capped at C.
//
// Each stage keeps every metric's raw values (seconds stay seconds), the
// unrounded and the rounded statistics, AISBench's N, the rows AISBench removes
// and why, the common metrics, and for stable the window. AISBench's own
// quirks are reproduced and recorded as data: the stable stage's
// failure-index quirk (FailureIndexQuirk.Changed says it altered the counts),
// ITL removal when the first request's intervals are all zero, TPOT's N.
// Where AISBench raises, the stage holds an *AISBenchError with its message
// (ErrNoStableStage, ErrAllRequestsFailed); where its numbers cannot be known
// exactly (token counts it would have taken from its tokenizer, an unknown
// max concurrency), the stage holds an error saying so instead of a guess.
//
// # Render
//
// Rendering never computes a metric; it formats what Finalize stored:
//
//	rep.WriteAISBenchCSV(w, audit.StageTotal)  // <ds>.csv, byte for byte
//	rep.WriteAISBenchJSON(w, audit.StageTotal) // <ds>.json, byte for byte
//	rep.StageError(audit.StageStable)          // <stage>.error's message
//	rep.WriteText(w)                           // both stages side by side
//	rep.WriteJSON(w)                           // full precision, schemas/report/v1.schema.json
//
// # Beside AISBench's figures
//
// Finalize also computes, under their own names and never in place of
// AISBench's, what those figures are made of (../docs/metrics.md defines each):
//
//   - StageResult.ITL: the ITL accounting (AISBench's N against the pooled
//     intervals, zero intervals, intervals per request, pooled mean against
//     the mean of per-request means);
//   - StageResult.SSE: ContentUpdateInterval, TextUpdateInterval, TTFContent,
//     TTFText and TokensPerEvent, each with its own N and samples, from the
//     recorded events (RequestRecord.Events);
//   - MetricResult.Extra: statistics AISBench's table lacks (P99.9), from the
//     same raw values (Report.AllStats);
//   - StageResult.SLOs: attainment of Config.SLOs;
//   - StageResult.Windowed: WindowedOutputThroughput of the stable window;
//   - Report.Window: the stable window explained, with the windows AISBench's
//     earlier selectors (1242df6, 3774965) would have picked;
//   - Report.Findings: code, severity, figure, evidence. Findings about
//     framings AISBench's client mishandles need RequestRecord.Spec, which
//     RecordFromReplays fills from an sse-framer replay of the same bytes.
//
// WriteText prints them after AISBench's table, WriteJSON under metrics (with
// "source": "sseaudit"), "sseaudit" and "findings", WriteCSV one row a metric
// and stage; WriteITLText and WriteITLJSON are `audit itl`.
//
// The golden files in ../testdata/oracle/stages come from AISBench's own
// summarizer and calculators (regen.sh there); the tests compare the files
// byte for byte and every statistic bit for bit.
package audit
