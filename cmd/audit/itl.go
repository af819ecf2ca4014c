package main

import (
	"context"
	"io"
	"slices"

	"github.com/sseaudit/sseaudit/render"
	"github.com/urfave/cli/v3"
)

func itlCommand(e env) *cli.Command {
	return &cli.Command{
		Name:      "itl",
		Usage:     "what AISBench's ITL row is made of: its N, the pooled intervals behind it, the zero intervals, both means",
		ArgsUsage: "TRACE",
		Description: `Replays every request as AISBench's client would have (--framer aisbench) and,
for each stage (whole = total, native = stable), accounts for AISBench's ITL row:

  AISBench's N           requests with a nonzero interval (not the number of intervals)
  requests with intervals  requests with at least one interval (3 or more time points)
  intervals              the pooled intervals behind the ITL statistics
  zero intervals         of which exactly 0 (events completed in one read)
  intervals per request  min, median, max over the stage's requests
  pooled mean            AISBench's ITL Average: np.mean of the concatenation,
                         each request weighing as many intervals as it has
  mean of per-request means  every request with an interval weighing the same

then the findings about ITL and TPOT. --format json writes
stages.<stage>.{aisbench_n, requests_with_intervals, intervals, zero_intervals,
pooled_mean_ms, per_request_mean_ms, ...} (null for a stage without requests).
The stable stage needs the max concurrency C (the trace's sseaudit.max_concurrency
or --max-concurrency); without it only the whole stage is accounted for.

Arguments:
  TRACE   a trace file

Examples:
  audit itl testdata/traces/basic.parquet
  audit itl --format json testdata/traces/basic.jsonl`,
		Flags: slices.Concat(formatFlags(), []cli.Flag{
			&cli.IntFlag{Name: "max-concurrency", Usage: "the configured max concurrency C (overrides the trace's metadata)"},
			&cli.StringFlag{Name: "stats", Usage: "AISBench's statistics columns for its ITL row, comma-separated"},
			framerFlag(),
			traceFormatFlag("in-format"),
			runMetaFlag(),
		}, limitFlags()),
		Action: action(func(ctx context.Context, cmd *cli.Command) error {
			format, err := outputFormat(cmd, textOrJSON...)
			if err != nil {
				return err
			}
			if err := checkStats(cmd); err != nil {
				return err
			}
			b := reportBuild{}
			if s := cmd.String("stats"); s != "" {
				b.cfg.Stats = splitComma(s)
			}
			rep, err := b.run(e, cmd)
			if err != nil {
				return err
			}
			return writeOutput(e, cmd, func(w io.Writer) error {
				if format == "json" {
					return render.ITLJSON(w, rep)
				}
				return render.ITLText(w, rep)
			})
		}),
	}
}
