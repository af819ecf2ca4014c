package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/check"
	"github.com/sseaudit/sseaudit/lag"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/tap"
	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/importer/aisbench"
)

func checkCommand(e env) *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "recompute an AISBench report from its run and list every cell that does not follow",
		ArgsUsage: "--aisbench-dir DIR [--trace TRACE] | --csv FILE.csv --json FILE.json TRACE",
		// A claim may hold commas: --claim is repeated, never split.
		DisableSliceFlagSeparator: true,
		Description: `Recomputes AISBench's figures from the run's requests, as AISBench's own code would
(the same statistics, rounding, N, stages), and compares them with the report cell
by cell: every statistic of <ds>.csv, its N, and every entry of <ds>.json. Each cell
that differs is listed with the metric, stage, statistic, the reported and the
recomputed text, and the likely cause when a rule explains it:
  trace-vs-details  (with --trace) the details give the reported value, the trace another
  format          the same number written differently
  rounding        the raw value rounded another way (decimals, truncation, digits)
  subset          computed on fewer requests (exactly a prefix or suffix when it is one)
  more-requests   computed on more requests than the files hold (lost records, another run)
  stage           the other stage's value
  missing, extra  a cell AISBench writes that the report lacks, or the reverse
  not-computable  AISBench could not have computed the stage from this data
  hand-edit       no rule explains it

--aisbench-dir reads a work_dir (or its performances/<model> folder) as 'audit import
--from aisbench' does, and its own <ds>.csv and <ds>.json. With --trace, the figures
are recomputed from the raw trace's bytes instead, and every request on which the
trace and the details disagree (success, number of time points, TTFT or E2EL beyond
--tolerance, token counts) is listed too. When that trace is audit tap's (recorded
between the client and the server in the same run), the requests are matched as
'audit lag' matches them, and the client's lag against the wire is a section of the
output, with the client-lag finding. Without a directory, --csv and --json name the
report and TRACE the data.

Then the lints, each a finding: the audit's own findings for the report's stage; a
quoted statistic the table lacks (--claim 'P95(TTFT)=812ms'); per-card figures with
each divisor labelled (--cards 16 or P8+D8, also to test '--claim "Output Token
Throughput per card=512"'); request throughput below the configured --rate, with the
shares of the concurrency limit, ramp-up and residence time; input throughput that
counts prefix-cached prompt tokens (when the trace's usage carries
prompt_tokens_details.cached_tokens); P90(E2EL) quoted as P90(TTFT) + L x P90(TPOT)
(--claim 'P90(E2EL)=5230ms' or --claim 'P90(E2EL)=P90(TTFT)+1024*P90(TPOT)').

Exit 0 when every cell agrees (and every claim holds), 3 when any differs, 1 on bad
input.

Examples:
  audit check --aisbench-dir testdata/aisbench/basic
  audit check --aisbench-dir testdata/aisbench/from-trace --trace testdata/traces/basic.jsonl
  $ audit check --aisbench-dir testdata/tap/aisbench/slow/work_dir --trace testdata/tap/aisbench/slow/wire.arrows   (exit 3: the client lags the wire)
  audit check --aisbench-dir testdata/aisbench/failures --cards P8+D8 --claim 'P90(TTFT)@stable=358.2ms'
  audit check --csv testdata/aisbench/cached.total.csv --json testdata/aisbench/cached.total.json testdata/aisbench/cached.jsonl`,
		Flags: slices.Concat(formatFlags(), []cli.Flag{
			&cli.StringFlag{Name: "aisbench-dir", Usage: "an AISBench work_dir or its performances/<model> folder"},
			&cli.StringFlag{Name: "model", Usage: "the model folder, when the work_dir holds several"},
			&cli.StringFlag{Name: "dataset", Usage: "the dataset abbreviation, when the folder holds several"},
			&cli.BoolFlag{Name: "allow-dangling", Usage: "a record whose time points are missing from its database is a failed request (as AISBench's summarizer does) rather than an error"},
			&cli.StringFlag{Name: "trace", Usage: "with --aisbench-dir: recompute from this raw trace and compare it with the details"},
			&cli.StringFlag{Name: "csv", Usage: "the reported <ds>.csv (default: the run's own)"},
			&cli.StringFlag{Name: "json", Usage: "the reported <ds>.json (default: the run's own)"},
			&cli.IntFlag{Name: "max-concurrency", Usage: "the configured max concurrency C (default: the run's <ds>.json or the trace's metadata, else the report's Max Concurrency)"},
			&cli.FloatFlag{Name: "rate", Usage: "the configured request rate (req/s), to explain a lower request throughput"},
			&cli.StringFlag{Name: "cards", Usage: "the cards per-card figures divide by: a count (16) or prefill+decode (P8+D8)"},
			&cli.StringSliceFlag{Name: "claim", Usage: "a figure quoted from the report's prose, to test (repeatable): 'P95(TTFT)=812ms', 'P90(E2EL)@stable=5.2s', 'Output Token Throughput per card=512', 'P90(E2EL)=P90(TTFT)+1024*P90(TPOT)'"},
			&cli.FloatFlag{Name: "tolerance", Value: check.DefaultTolerance, Usage: "seconds a trace's TTFT or E2EL may differ from the details' before it is reported"},
			framerFlag(),
			traceFormatFlag("in-format"),
		}, limitFlags()),
		Action: action(func(ctx context.Context, cmd *cli.Command) error {
			opts, err := checkOptions(cmd)
			if err != nil {
				return err
			}
			format, err := outputFormat(cmd, textOrJSON...)
			if err != nil {
				return err
			}
			in, err := checkInput(e, cmd)
			if err != nil {
				return err
			}
			res, err := check.Run(*in, opts)
			if err != nil {
				return err
			}
			err = writeOutput(e, cmd, func(w io.Writer) error {
				if format == "json" {
					return res.WriteJSON(w)
				}
				return res.WriteText(w)
			})
			if err != nil {
				return err
			}
			if res.Discrepant() {
				return exitCode(exitDiscrepancy)
			}
			return nil
		}),
	}
}

func checkOptions(cmd *cli.Command) (check.Options, error) {
	var opts check.Options
	if cmd.IsSet("rate") {
		opts.Rate = cmd.Float("rate")
		if !(opts.Rate > 0) {
			return opts, usagef("check: --rate %v: want a positive request rate (req/s)", opts.Rate)
		}
	}
	if s := cmd.String("cards"); s != "" {
		c, err := check.ParseCards(s)
		if err != nil {
			return opts, usagef("check: --%v", err)
		}
		opts.Cards = c
	}
	for _, s := range cmd.StringSlice("claim") {
		c, err := check.ParseClaim(s)
		if err != nil {
			return opts, usagef("check: --%v", err)
		}
		opts.Claims = append(opts.Claims, c)
	}
	return opts, nil
}

// checkInput gathers the report, the records and C from the command line.
func checkInput(e env, cmd *cli.Command) (*check.Input, error) {
	dir := cmd.String("aisbench-dir")
	var in check.Input
	csvPath, jsonPath := cmd.String("csv"), cmd.String("json")
	c, err := maxConcurrencyFlag(cmd)
	if err != nil {
		return nil, err
	}
	tracePath := cmd.String("trace")
	if dir != "" {
		if cmd.Args().Present() {
			return nil, usagef("check: with --aisbench-dir the trace is --trace TRACE, not an argument (got %s)", cmd.Args().First())
		}
		run, err := aisbench.Load(dir, aisbench.Options{Model: cmd.String("model"), Dataset: cmd.String("dataset"), AllowDangling: cmd.Bool("allow-dangling")})
		if err != nil {
			return nil, err
		}
		if csvPath == "" {
			csvPath = run.CSV
		}
		if jsonPath == "" {
			jsonPath = run.JSON
		}
		if csvPath == "" && jsonPath == "" {
			return nil, fmt.Errorf("%s: no %s.csv and no %s.json: nothing to check (a run cut short leaves none; 'audit import --from aisbench' and 'audit report --aisbench-out' recompute them)", run.Dir, run.Dataset, run.Dataset)
		}
		if c == 0 {
			c = run.MaxConcurrency
		}
		detailsOpts := recordOptions(cmd)
		detailsOpts.Framer = replay.AISBench // what AISBench's client recorded, whatever --framer says
		details, err := replayRecords(aisbenchReader(run), detailsOpts, nil)
		if err != nil {
			return nil, err
		}
		in.Records, in.Source, in.Notes = details, detailsSource(run), run.Notes
		if tracePath != "" {
			tr, err := openTrace(e, cmd, tracePath, "in-format")
			if err != nil {
				return nil, err
			}
			defer tr.Close()
			var cached []*int64
			recs, err := replayRecords(tr, recordOptions(cmd), &cached)
			if err != nil {
				return nil, err
			}
			if c == 0 {
				if c, err = maxConcurrency(cmd, tr.Info(), false); err != nil {
					return nil, err
				}
			}
			in.Records, in.Details, in.CachedTokens, in.Source = recs, details, cached, tracePath
			if src, _ := tr.Info().Meta.Get(trace.KeySource); src == tap.Source {
				var order []int
				if in.Lag, order, in.DetailsPairs, err = checkLag(e, cmd, tracePath, run); err != nil {
					return nil, err
				}
				in.LagSources = lag.Sources{Wire: tracePath, Client: run.Dir}
				in.Records, in.CachedTokens = inOrder(in.Records, order), inOrder(in.CachedTokens, order)
				in.Notes = append(in.Notes, "the trace is audit tap's: its requests were matched with the details' as audit lag matches them (by prompt, else by order and time) and are compared, and recomputed, in the details' order")
			}
		}
	} else {
		if tracePath != "" {
			return nil, usagef("check: --trace goes with --aisbench-dir; without it, TRACE is the argument")
		}
		if csvPath == "" && jsonPath == "" {
			return nil, usagef("check: want --aisbench-dir DIR, or --csv FILE.csv and/or --json FILE.json with a TRACE")
		}
		path, err := oneArg(cmd, "TRACE")
		if err != nil {
			return nil, err
		}
		tr, err := openTrace(e, cmd, path, "in-format")
		if err != nil {
			return nil, err
		}
		defer tr.Close()
		var cached []*int64
		recs, err := replayRecords(tr, recordOptions(cmd), &cached)
		if err != nil {
			return nil, err
		}
		if c == 0 {
			if c, err = maxConcurrency(cmd, tr.Info(), false); err != nil {
				return nil, err
			}
		}
		in.Records, in.CachedTokens, in.Source = recs, cached, path
	}
	rep, err := check.ReadReported(csvPath, jsonPath)
	if err != nil {
		return nil, err
	}
	in.Reported = rep
	if c == 0 {
		c = rep.MaxConcurrency()
	}
	if c == 0 {
		return nil, usagef("check: max concurrency unknown (no --max-concurrency, no %s in the trace, no Max Concurrency in the report): give --max-concurrency C", trace.KeyMaxConcurrency)
	}
	in.MaxConcurrency = c
	in.Tolerance = cmd.Float("tolerance")
	return &in, nil
}

// checkLag is the client's lag when --trace is audit tap's trace of the
// run: the work_dir's time points against the wire's, as audit lag
// compares them. order lists the trace's requests: those matched in the
// details' order, then the rest; pairs gives each details request's place
// in order, -1 when none matched it.
func checkLag(e env, cmd *cli.Command, wirePath string, run *aisbench.Run) (*lag.Report, []int, []int, error) {
	wire, known, err := readWire(e, cmd, wirePath)
	if err != nil {
		return nil, nil, nil, err
	}
	client := lag.FromTimePoints(run.TraceRequests())
	rep := lag.Compare(wire, client, lag.Options{Known: known})
	if rep.Compared == 0 {
		return nil, nil, nil, fmt.Errorf("check: %s is audit tap's trace, but no request of %s that succeeded matches a successful one of it (%d and %d requests, %d matched): are they the same run?", wirePath, run.Dir, len(client), len(wire), rep.Matched)
	}
	wireOf := make([]int, len(client))
	for i := range wireOf {
		wireOf[i] = -1
	}
	placed := make([]bool, len(wire))
	for _, p := range lag.Match(wire, client) {
		wireOf[p.Client], placed[p.Wire] = p.Wire, true
	}
	// The matched wire requests in the details' order, then the others in
	// the wire's; pairs[i] is the place in order of details request i's.
	var order []int
	pairs := make([]int, len(client))
	for i, w := range wireOf {
		pairs[i] = -1
		if w >= 0 {
			pairs[i] = len(order)
			order = append(order, w)
		}
	}
	for w, ok := range placed {
		if !ok {
			order = append(order, w)
		}
	}
	return rep, order, pairs, nil
}

// inOrder is xs in the order of the indexes (nil stays nil).
func inOrder[T any](xs []T, order []int) []T {
	if xs == nil {
		return nil
	}
	out := make([]T, 0, len(order))
	for _, i := range order {
		out = append(out, xs[i])
	}
	return out
}

func detailsSource(run *aisbench.Run) string {
	if run.FromTmp {
		return filepath.Join(run.Dir, "tmp") + " (the run was cut short)"
	}
	return run.Details
}

// sliceReader serves a run's requests as a trace.Reader, so that they go
// through the same replay as an imported trace; they are in memory, so the
// replay shares their time points instead of copying them.
type sliceReader struct {
	reqs []trace.Request
	i    int
	info trace.Info
}

func aisbenchReader(run *aisbench.Run) trace.Reader {
	return &sliceReader{reqs: run.TimedRequests(), i: -1, info: trace.Info{Path: run.Dir, Meta: run.Meta(0)}}
}

func (s *sliceReader) Scan() bool {
	s.i++
	return s.i < len(s.reqs)
}
func (s *sliceReader) Request() *trace.Request { return &s.reqs[s.i] }
func (s *sliceReader) Err() error              { return nil }
func (s *sliceReader) Info() trace.Info        { return s.info }
func (s *sliceReader) Close() error            { return nil }
func (s *sliceReader) Len() int                { return len(s.reqs) }
func (s *sliceReader) InMemory()               {}

// replayRecords replays every request into the record AISBench's summarizer
// sees; cached, when not nil, receives each request's cached prompt tokens
// (of its last usage, AISBench's rule).
func replayRecords(r trace.Reader, opts record.Options, cached *[]*int64) ([]record.Request, error) {
	var recs []record.Request
	if m, ok := r.(trace.MemoryReader); ok {
		recs = make([]record.Request, 0, m.Len())
	}
	sawCached := false
	opts.KeepReplay = cached != nil
	err := record.Each(r, opts, func(rr *record.Replayed) error {
		recs = append(recs, rr.Record)
		if cached != nil {
			var c *int64
			for _, ev := range rr.Replay.Events {
				if ev.Usage != nil {
					c = ev.Usage.CachedTokens
				}
			}
			if c != nil {
				sawCached = true
			}
			*cached = append(*cached, c)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if cached != nil && !sawCached {
		*cached = nil
	}
	return recs, nil
}
