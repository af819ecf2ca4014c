package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/comparison"
	"github.com/sseaudit/sseaudit/record/partial"
	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/tables"
)

func diffCommand(e env) *cli.Command {
	return &cli.Command{
		Name:      "diff",
		Usage:     "compare two runs: each metric's change with its interval and significance, what changed in the streams, a gate for CI",
		ArgsUsage: "A B",
		Description: `Compares run B against run A, as benchstat compares benchmarks: for each stage
(--stage) and metric — E2EL, TTFT, TPOT, ITL, ContentUpdateInterval, TTFContent,
OutputTokenThroughput, OutputTokens (one value a request; ITL and
ContentUpdateInterval: the mean of the request's intervals, since pooled
intervals are not independent samples), and the run's OutputThroughput,
RequestThroughput and SuccessRate — each run's median and the report's Average
with N, the change of the median in % with its 95% bootstrap interval (over
requests, seeded: the same input gives the same bytes), and the p-value of a
two-sided Mann-Whitney U test on the per-request values, as
scipy.stats.mannwhitneyu computes it; "~" when the change is not significant
(p >= --alpha). Run-level metrics are one value a run: no test.

When the runs hold the same requests (the same request_ids, or the same
prompts; --pair) they are paired: the test is Wilcoxon's signed-rank on each
pair's values, as scipy.stats.wilcoxon computes it, and the interval resamples
pairs.

Attribution lists what changed in the streams themselves, so that a change that
comes from the streams' shape is told apart from a server that got slower: events
a request by class (and the ITL intervals they add), the class of the first and
last recorded events (where TTFT and E2EL end), token-count sources, framing
constructs AISBench's client mishandles, the stable window, failures by cause.

--fail-on 'METRIC[.STAT] OP VALUE' (repeatable) is a condition under which the
comparison fails with exit 3: a signed VALUE is a change of B against A,
relative with % ('ITL.Average>+5%') or absolute in the metric's unit
('TPOT.P90>+2ms'); an unsigned VALUE is B's own level ('success<99.5%'). STAT is
one of the report's statistics (Average, Median, Min, Max, Pnn: pooled over
intervals for ITL, as audit report computes them); without it, the median
compared above. A change of a per-request metric violates the condition only
when it is significant; levels and run-level metrics need no test. It is
evaluated in every stage compared; the violated ones are listed (and named on
stderr). docs/diff.md defines every field, with a worked example.

A and B are traces (any format) or replay tables (a directory written by audit
replay --format parquet -o DIR), replayed with --framer. The max
concurrency C comes from each run's metadata, or from --max-concurrency for
both; a run without C has no stable stage.

Exit codes: 0 ok, 1 bad input, 2 usage, 3 a --fail-on condition violated.

Arguments:
  A   the base run: a trace file, or a replay tables directory
  B   the run compared against it

Examples:
  audit diff testdata/diff/itl20.parquet testdata/diff/itl23.parquet
  audit diff --stage total --metric ITL,TPOT,E2EL testdata/diff/itl20.parquet testdata/diff/itl23.parquet
  audit diff --format json --fail-on 'ITL.Average>+20%' --fail-on 'success<99.5%' testdata/diff/itl20.parquet testdata/diff/itl23.parquet
  audit diff --format markdown testdata/diff/itl20.parquet testdata/diff/itl20-no-usage-tail.parquet
  audit diff testdata/traces/basic.parquet testdata/traces/basic.jsonl
  audit diff cmd/audit/testdata/cli/merge-basic/part1 cmd/audit/testdata/cli/merge-basic/part2`,
		Flags: append([]cli.Flag{
			enumFlag("stage", "all", "stages compared: all (total and stable), total or stable", "all", "total", "stable"),
			&cli.StringFlag{Name: "metric", Usage: "metrics shown, comma-separated (default all: " + comparison.Names() + ")"},
			&cli.FloatFlag{Name: "alpha", Value: comparison.DefaultAlpha, Usage: "significance level: a change is significant when its p-value is below it"},
			&cli.StringSliceFlag{Name: "fail-on", Usage: "a condition that fails the comparison (exit 3), e.g. 'ITL.Average>+5%', 'TPOT.P90>+2ms', 'success<99.5%' (repeatable)"},
			enumFlag("pair", string(comparison.PairAuto), "pair the runs' requests: auto (when they hold the same requests), request_id, prompt or none", comparison.PairModes...),
			&cli.IntFlag{Name: "max-concurrency", Usage: "the configured max concurrency C of both runs (overrides their metadata)"},
			framerFlag(),
			traceFormatFlag("in-format"),
		}, append(outputFlags("output: text, json, markdown (for a pull request comment) or csv", diffFormats...), limitFlags()...)...),
		Action: action(func(ctx context.Context, cmd *cli.Command) error {
			o, err := diffOptionsFrom(cmd)
			if err != nil {
				return err
			}
			format, err := outputFormat(cmd, diffFormats...)
			if err != nil {
				return err
			}
			var sides [2]*comparison.Side
			for k, path := range o.paths {
				if sides[k], err = readDiffSide(e, cmd, path, o); err != nil {
					return err
				}
			}
			c, err := comparison.Compare(sides[0], sides[1], o.opts)
			if err != nil {
				return err
			}
			if err := writeOutput(e, cmd, func(w io.Writer) error { return writeDiff(w, c, format) }); err != nil {
				return err
			}
			if c.Failed() {
				for _, r := range c.FailOn {
					if r.Violated {
						fmt.Fprintf(e.stderr, "audit: diff: --fail-on %q violated\n", r.Text)
					}
				}
				return exitCode(exitDiscrepancy)
			}
			return nil
		}),
	}
}

// diffOptions are diff's arguments and flags, checked.
type diffOptions struct {
	paths     [2]string
	opts      comparison.Options
	needC     bool // --stage stable: a run without C is a usage error
	stats     []string
	framer    string
	maxConcur int
}

// diffOptionsFrom checks diff's arguments and flags.
func diffOptionsFrom(cmd *cli.Command) (*diffOptions, error) {
	args := cmd.Args().Slice()
	if len(args) != 2 {
		return nil, usagef("diff: want two runs, A and B, got %d argument(s)", len(args))
	}
	if args[0] == "-" && args[1] == "-" {
		return nil, usagef("diff: only one of A and B can be - (stdin)")
	}
	o := &diffOptions{paths: [2]string{args[0], args[1]}, framer: cmd.String("framer")}
	switch s := cmd.String("stage"); s {
	case "all":
	default:
		st, _ := aisbench.ParseStage(s)
		o.opts.Stages = []aisbench.Stage{st}
		o.needC = st == aisbench.StageStable
	}
	if s := cmd.String("metric"); s != "" {
		for _, name := range splitComma(s) {
			d, ok := comparison.Lookup(strings.TrimSpace(name))
			if !ok {
				return nil, usagef("diff: --metric: unknown metric %q (want %s)", name, comparison.Names())
			}
			o.opts.Metrics = append(o.opts.Metrics, d.Name)
		}
	}
	o.opts.Alpha = cmd.Float("alpha")
	if !(o.opts.Alpha > 0 && o.opts.Alpha < 1) {
		return nil, usagef("diff: --alpha %v: want a number between 0 and 1", o.opts.Alpha)
	}
	for _, text := range cmd.StringSlice("fail-on") {
		f, err := comparison.ParseFailOn(text)
		if err != nil {
			return nil, usagef("diff: %v", err)
		}
		o.opts.FailOn = append(o.opts.FailOn, f)
	}
	o.stats = comparison.Stats(o.opts.FailOn)
	o.opts.Pair = comparison.PairMode(cmd.String("pair"))
	c, err := maxConcurrencyFlag(cmd)
	if err != nil {
		return nil, err
	}
	o.maxConcur = c
	return o, nil
}

// readDiffSide reads one run: a replay tables directory, or a trace
// replayed with --framer.
func readDiffSide(e env, cmd *cli.Command, path string, o *diffOptions) (*comparison.Side, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return readDiffTables(path, o)
	}
	r, err := openTrace(e, cmd, path, "in-format")
	if err != nil {
		return nil, err
	}
	defer r.Close()
	c, err := maxConcurrency(cmd, r.Info(), o.needC)
	if err != nil {
		return nil, err
	}
	noTimeline, _ := r.Info().Meta.Get(trace.KeyStartTimes)
	b := comparison.NewBuilder(comparison.Config{Name: path, MaxConcurrency: c, NoTimeline: noTimeline, Stats: o.stats})
	opts := recordOptions(cmd)
	opts.Spec = true
	if err := b.AddTrace(r, opts); err != nil {
		return nil, err
	}
	return b.Finalize()
}

// readDiffTables reads the replay tables in dir, replayed as --framer
// says.
func readDiffTables(dir string, o *diffOptions) (*comparison.Side, error) {
	r, err := tables.Open(dir)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	meta := r.Meta()
	if meta.Framer != o.framer {
		return nil, fmt.Errorf("%s: replayed with the %s framer: give --framer %s to compare it", dir, meta.Framer, meta.Framer)
	}
	c := meta.MaxConcurrency
	if o.maxConcur != 0 {
		c = o.maxConcur
	}
	if c == 0 && o.needC {
		return nil, usagef("diff: %s has no %s: give --max-concurrency C (the stable stage needs it)", dir, tables.KeyMaxConcurrency)
	}
	b := comparison.NewBuilder(comparison.Config{Name: dir, MaxConcurrency: c, Stats: o.stats})
	for r.Scan() {
		row := r.Request()
		req := comparison.Request{Record: partial.Record(row, r.Events()), TokenSource: row.TokenSource}
		if row.Error != nil {
			req.Error = *row.Error
		}
		for i, n := range row.ClassCounts() {
			req.Events[replay.Classes[i]] = int(*n)
		}
		b.Add(req)
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return b.Finalize()
}

// diffFormats are diff's output formats, the default first.
var diffFormats = []string{"text", "json", "markdown", "csv"}

// writeDiff renders the comparison in the chosen format.
func writeDiff(w io.Writer, c *comparison.Comparison, format string) error {
	switch format {
	case "json":
		return c.WriteJSON(w)
	case "markdown":
		return c.WriteMarkdown(w)
	case "csv":
		return c.WriteCSV(w)
	}
	return c.WriteText(w)
}
