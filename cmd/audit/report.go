package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/calc/ssemetrics"
	"github.com/sseaudit/sseaudit/findings"
	"github.com/sseaudit/sseaudit/internal/atomicfile"
	"github.com/sseaudit/sseaudit/lag"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/render"
	"github.com/sseaudit/sseaudit/render/htmlreport"
	"github.com/sseaudit/sseaudit/samples"
	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/whatif"
)

func reportCommand(e env) *cli.Command {
	return &cli.Command{
		Name:      "report",
		Usage:     "AISBench's results for the whole (total) and native (stable) stages, from the raw bytes",
		ArgsUsage: "TRACE",
		Description: `Replays every request as AISBench's client would have (--framer aisbench), then
computes AISBench's two stages exactly as its Default and Stable calculators do:
the same statistics, rounding, N, stage durations and stable window.

Beside AISBench's table, under its own heading, sseaudit shows what the figures are
made of (docs/metrics.md defines each): its metrics ContentUpdateInterval,
TextUpdateInterval, TTFContent, TTFText and TokensPerEvent with their own N and
samples; any statistic from the raw samples (--stats P99.9, marked * where
AISBench's table lacks it); the ITL accounting (see audit itl); the
WindowedOutputThroughput of the stable window beside AISBench's Output Token
Throughput; SLO attainment per stage (--slo 'TPOT<20ms' --slo 'TTFT<2s': the
requests meeting it, the denominator, the fraction); the stable window explained (in-flight
counts at its defining events, and the windows AISBench's earlier selectors would
have picked); and findings, each with a code, severity, the figure concerned and
its evidence. Each request is also replayed with the sse framer, to tell where a
spec-compliant client reads bytes AISBench's client fails or loses.

--format json puts every metric, AISBench's and sseaudit's, at
metrics.<Name>.<stage> (times in ms, unrounded, with N and samples), the rest
under "sseaudit" and "findings" (schemas/report/v1.schema.json). --format csv
writes every metric of both stages, one row a metric and stage. --format
markdown writes the tables as GitHub markdown, for a pull request comment.

--format html writes one self-contained page (no script, no network: styles
inline, charts as inline SVG; docs/report.md explains how to read it):
AISBench's table beside sseaudit's figures, the in-flight concurrency curve with
C and the stable window, per-request timelines (every request up to 24, else a
fixed-rule sample), the ITL and ContentUpdateInterval distributions, the
what-if deltas of the default policies (content, text, no-usage-tail, no-role;
as audit whatif computes them) and the findings, each linked to its figure. With
--lag-client CLIENT, of a trace audit tap recorded, the page gains the client's lag
against it, the section audit lag --format html writes.

-o FILE writes the output to FILE (atomically) instead of stdout. Text goes in
colour only to a terminal, and never when NO_COLOR is set (--color always or
never overrides). On a terminal, a run longer than a second shows its
progress on stderr.

With --aisbench-out DIR it writes DIR/total.csv, DIR/total.json, DIR/stable.csv and
DIR/stable.json: byte for byte what AISBench writes as <ds>.csv and <ds>.json for
those requests. A stage AISBench could not compute (no stable stage, every request
failed) gets DIR/<stage>.error with AISBench's message instead, and a warning; the
command still exits 0 when the other stage has numbers.

The max concurrency C comes from the trace's sseaudit.max_concurrency, or from
--max-concurrency, which overrides it; the stable stage needs it.

Arguments:
  TRACE   a trace file

Examples:
  audit report testdata/traces/basic.parquet
  audit report --format json testdata/traces/basic.jsonl
  audit report --aisbench-out /tmp/aisbench testdata/traces/basic.arrow
  audit report --stats Average,P50,P99,P99.9 --min-window 1s testdata/traces/basic.jsonl
  audit report --format csv testdata/traces/basic.jsonl
  audit report --format html -o /tmp/report.html testdata/traces/basic.jsonl
  audit report --format markdown testdata/traces/basic.jsonl`,
		Flags: slices.Concat(outputFlags("output: text, json, csv (every metric of both stages, AISBench's and sseaudit's), markdown, or html (one self-contained page with charts)",
			reportFormats...), []cli.Flag{
			enumFlag("color", "auto", "colour the text output: auto (a terminal, NO_COLOR unset), always or never", "auto", "always", "never"),
			&cli.BoolFlag{Name: "summary", Usage: "one screen: the figures most people read first (successes, duration, throughputs, TTFT, TPOT, ITL, E2EL), then where the rest is"},
			&cli.StringFlag{Name: "stage", Usage: "show one stage only in text and markdown: total (whole) or stable (native)"},
			&cli.IntFlag{Name: "width", Value: render.DefaultWidth, Usage: "the widest line of the text report: tables of both stages wider than this show one stage under the other (0: no limit)"},
			&cli.StringFlag{Name: "aisbench-out", Usage: "write AISBench's result files for both stages into this folder"},
			&cli.IntFlag{Name: "max-concurrency", Usage: "the configured max concurrency C (overrides the trace's metadata)"},
			&cli.StringFlag{Name: "stats", Usage: "statistics, comma-separated (default Average,Min,Max,Median,P75,P90,P99): AISBench's table keeps those AISBench accepts; sseaudit's section computes any, P99.9 too, marked * when AISBench's table lacks it"},
			&cli.StringSliceFlag{Name: "slo", Usage: "an objective whose attainment each stage reports, e.g. 'TPOT<20ms', 'TTFT<=2s', 'OutputTokenThroughput>=30' (repeatable)"},
			&cli.DurationFlag{Name: "min-window", Value: time.Duration(findings.DefaultThresholds.MinWindowSeconds * float64(time.Second)), Usage: "report a stable window shorter than this"},
			&cli.IntFlag{Name: "min-window-requests", Value: findings.DefaultThresholds.MinWindowRequests, Usage: "report a stable window with fewer requests than this"},
			&cli.StringFlag{Name: "lag-client", Usage: "with --format html, of a trace audit tap recorded: a section of the client's lag against it; the client's records as audit lag --client takes them (an AISBench work_dir or a trace)"},
			framerFlag(),
			traceFormatFlag("in-format"),
			runMetaFlag(),
		}, limitFlags()),
		Action: action(func(ctx context.Context, cmd *cli.Command) error {
			o, err := reportOptionsFrom(cmd)
			if err != nil {
				return err
			}
			lagClient := cmd.String("lag-client")
			if lagClient != "" && o.format != "html" {
				return usagef("report: --lag-client goes with --format html (audit lag gives the lag as text and JSON)")
			}
			if lagClient != "" && cmd.Args().First() == "-" {
				return usagef("report: --lag-client reads the trace a second time: name it as a file, not -")
			}
			p := newReplayProgress(e.stderr)
			defer p.done()
			b := reportBuild{cfg: o.cfg, progress: p, html: o.format == "html", noteNoC: true}
			rep, err := b.run(e, cmd)
			if err != nil {
				return err
			}
			html := htmlreport.Options{Title: filepath.Base(cmd.Args().First())}
			if b.whatIf != nil {
				p.setPhase("what-if")
				html.WhatIf, html.WhatIfNote = finalizeWhatIf(b.whatIf)
			}
			if lagClient != "" {
				p.setPhase("lag")
				wire := cmd.Args().First()
				rep, err := compareLag(e, cmd, wire, lagClient, 0)
				if err != nil {
					return err
				}
				if html.Lag, err = rep.HTMLSection(lag.Sources{Wire: wire, Client: lagClient}); err != nil {
					return err
				}
			}
			p.done()
			return writeReport(e, cmd, rep, o, html)
		}),
	}
}

// reportFormats are report's (and merge's) output formats, text first.
var reportFormats = []string{"text", "json", "csv", "markdown", "html"}

// reportOptions are the rendering choices and the audit configuration of
// report's flags.
type reportOptions struct {
	format, color string
	summary       bool
	render        render.Options // the stage shown and the width (text, markdown)
	cfg           audit.Config
}

// reportOptionsFrom checks report's flags on cmd and builds the audit
// configuration they give.
func reportOptionsFrom(cmd *cli.Command) (reportOptions, error) {
	o := reportOptions{color: cmd.String("color"), summary: cmd.Bool("summary")}
	o.render.Width = cmd.Int("width")
	if o.render.Width < 0 {
		return o, usagef("%s: --width %d: want 0 (no limit) or more columns", cmd.Name, o.render.Width)
	}
	if s := cmd.String("stage"); s != "" {
		st, err := aisbench.ParseStage(s)
		if err != nil {
			return o, usagef("%s: --stage %q: want total (whole) or stable (native)", cmd.Name, s)
		}
		o.render.Stage = st
	}
	var err error
	if o.format, err = outputFormat(cmd, reportFormats...); err != nil {
		return o, err
	}
	if err := checkStats(cmd); err != nil {
		return o, err
	}
	if o.summary && o.format != "text" && o.format != "markdown" {
		return o, usagef("%s: --summary goes with text (or markdown) output, not %s", cmd.Name, o.format)
	}
	if s := cmd.String("stats"); s != "" {
		o.cfg.Stats = splitComma(s)
	}
	for _, text := range cmd.StringSlice("slo") {
		slo, err := ssemetrics.ParseSLO(text)
		if err != nil {
			return o, usagef("%s: --slo: %v", cmd.Name, strings.TrimPrefix(err.Error(), "ssemetrics: "))
		}
		o.cfg.SLOs = append(o.cfg.SLOs, slo)
	}
	if d := cmd.Duration("min-window"); d <= 0 {
		return o, usagef("%s: --min-window %v: want a positive duration", cmd.Name, d)
	} else {
		o.cfg.Thresholds.MinWindowSeconds = d.Seconds()
	}
	if n := cmd.Int("min-window-requests"); n < 1 {
		return o, usagef("%s: --min-window-requests %d: want a positive integer", cmd.Name, n)
	} else {
		o.cfg.Thresholds.MinWindowRequests = n
	}
	return o, nil
}

// newDefaultWhatIf is the what-if of the default policies the HTML report
// shows.
func newDefaultWhatIf(cfg audit.Config) (*whatif.Builder, error) {
	var policies []whatif.Policy
	for _, name := range whatif.DefaultPolicies {
		p, err := whatif.ParsePolicy(name)
		if err != nil {
			return nil, err
		}
		policies = append(policies, p)
	}
	return whatif.NewBuilder(whatif.Config{MaxConcurrency: cfg.MaxConcurrency, Stats: cfg.Stats, NoTimeline: cfg.NoTimeline, Policies: policies})
}

// finalizeWhatIf is the HTML report's what-if, or the note saying why it
// has none.
func finalizeWhatIf(wb *whatif.Builder) (*whatif.Result, string) {
	res, err := wb.Finalize()
	if err != nil {
		return nil, "not available: " + strings.TrimPrefix(err.Error(), "whatif: ")
	}
	return res, ""
}

// writeReport writes AISBench's files (--aisbench-out) and renders the
// report in the chosen format to -o or stdout.
func writeReport(e env, cmd *cli.Command, rep *audit.Report, o reportOptions, html htmlreport.Options) error {
	if dir := cmd.String("aisbench-out"); dir != "" {
		if err := writeAISBenchFiles(e, rep, dir); err != nil {
			return err
		}
	}
	write := func(w io.Writer) error {
		switch o.format {
		case "json":
			return render.JSON(w, rep)
		case "csv":
			return render.CSV(w, rep)
		case "markdown":
			return render.MarkdownWith(w, rep, o.render)
		case "html":
			return htmlreport.Write(w, rep, html)
		}
		opts := o.render
		opts.Color = o.color == "always" || (o.color == "auto" && cmd.String("output") == "" && wantColor(e.stdout))
		if o.summary {
			return render.Summary(w, rep, opts)
		}
		return render.TextWith(w, rep, opts)
	}
	return writeOutput(e, cmd, write)
}

// reportBuild replays every request of a command's TRACE and builds its
// report: report, itl and (for the HTML page) the what-if of the same
// records.
type reportBuild struct {
	cfg audit.Config
	// needC: an unknown C is a usage error (else the stable stage has no
	// numbers); noteNoC: an unknown C is said on stderr.
	needC, noteNoC bool
	progress       *replayProgress
	html           bool            // also the what-if of the default policies
	whatIf         *whatif.Builder // with html, once C is known
}

// run replays every request of the command's TRACE with the chosen framer
// (what AISBench's client recorded) and, for the aisbench framer, with the
// sse framer too (what a spec-compliant client sees in the same bytes), in
// parallel, then finalizes the report.
func (b *reportBuild) run(e env, cmd *cli.Command) (*audit.Report, error) {
	path, err := oneArg(cmd, "TRACE")
	if err != nil {
		return nil, err
	}
	r, err := openTrace(e, cmd, path, "in-format")
	if err != nil {
		return nil, err
	}
	open := true
	defer func() {
		if open {
			r.Close()
		}
	}()
	c, err := maxConcurrency(cmd, r.Info(), b.needC)
	if err != nil {
		return nil, err
	}
	if c == 0 && b.noteNoC {
		noMaxConcurrency(e, cmd.Name, path, trace.KeyMaxConcurrency)
	}
	b.cfg.MaxConcurrency = c
	b.cfg.NoTimeline, _ = r.Info().Meta.Get(trace.KeyStartTimes)
	if b.html {
		if b.whatIf, err = newDefaultWhatIf(b.cfg); err != nil {
			return nil, err
		}
	}
	ab := audit.NewBuilder(b.cfg)
	opts := recordOptions(cmd)
	opts.Spec = true
	err = record.Each(r, opts, func(rr *record.Replayed) error {
		ab.Add(rr.Record)
		if b.whatIf != nil {
			b.whatIf.Add(rr.Record)
		}
		b.progress.tick()
		return nil
	})
	if err != nil {
		return nil, err
	}
	b.progress.setPhase("finalizing")
	// Every request is read: the reader and its buffers go before Finalize
	// (its Close error was ignored before as now).
	open = false
	_ = r.Close()
	r = nil
	return finalize(ab)
}

// noMaxConcurrency says on stderr that only the whole stage has numbers.
func noMaxConcurrency(e env, command, path, key string) {
	fmt.Fprintf(e.stderr, "audit: %s: %s has no %s: the whole (total) stage is reported; the native (stable) stage needs --max-concurrency C\n", command, path, key)
}

// finalizeGCPercent is the collector's GOGC while Finalize runs. Its live
// heap is mostly the run's pointer-free time points and events, and it
// allocates little beside them, so a tight collector costs little there
// (no CPU difference measured on the 1 GB trace) and keeps the peak near
// what is live: 98 -> 83 MiB peak RSS on that trace (docs/performance.md).
const finalizeGCPercent = 25

// finalize is b.Finalize once every request is read: the replay's garbage
// (bodies, replay results, the reader's pages) goes back to the operating
// system first, so that the two phases' peaks do not add up in the
// resident set, and the collector is tight while it runs (unless the
// environment sets GOGC: then it is the user's).
func finalize(b *audit.Builder) (*audit.Report, error) {
	debug.FreeOSMemory()
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(finalizeGCPercent))
	}
	return b.Finalize()
}

// writeAISBenchFiles writes <stage>.csv and <stage>.json, or <stage>.error,
// for both stages. Stale files of the other kind are removed, so the folder
// always describes this run alone.
func writeAISBenchFiles(e env, rep *audit.Report, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	failed := 0
	for _, st := range aisbench.Stages {
		base := filepath.Join(dir, string(st))
		if msg := rep.StageError(st); msg != "" {
			failed++
			fmt.Fprintf(e.stderr, "audit: warning: %s stage: %s (wrote %s.error)\n", st, msg, base)
			if err := atomicfile.WriteFile(base+".error", func(w io.Writer) error { return rep.WriteStageError(w, st) }); err != nil {
				return err
			}
			removeIfExists(base+".csv", base+".json")
			continue
		}
		if err := atomicfile.WriteFile(base+".csv", func(w io.Writer) error { return rep.WriteStageCSV(w, st) }); err != nil {
			return err
		}
		var noTimeline *aisbench.NoTimelineError
		if err := rep.WriteStageJSON(io.Discard, st); errors.As(err, &noTimeline) {
			// The per-request rows stand; the common metrics divide by a
			// timeline the trace does not have.
			fmt.Fprintf(e.stderr, "audit: warning: %s stage: %s.json not written: %v\n", st, base, noTimeline)
			removeIfExists(base+".json", base+".error")
			continue
		}
		if err := atomicfile.WriteFile(base+".json", func(w io.Writer) error { return rep.WriteStageJSON(w, st) }); err != nil {
			return err
		}
		removeIfExists(base + ".error")
	}
	if failed == len(aisbench.Stages) {
		return errors.New("AISBench would have computed neither stage (see the .error files)")
	}
	return nil
}

func removeIfExists(paths ...string) {
	for _, p := range paths {
		os.Remove(p)
	}
}

// splitComma splits a comma-separated flag value.
func splitComma(s string) []string { return strings.Split(s, ",") }

// wantColor: colour on a terminal only, and never with NO_COLOR set to
// anything but the empty string (no-color.org).
func wantColor(w io.Writer) bool {
	if os.Getenv("NO_COLOR") != "" {
		return false
	}
	return isTerminal(w)
}

// isTerminal reports whether w is a terminal (not merely a character device
// such as /dev/null).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// checkStats refuses a --stats list with a name neither AISBench nor
// sseaudit computes (a mistyped "p99" would silently shrink AISBench's
// table): a usage error naming the accepted spellings. Names sseaudit
// computes and AISBench's table does not (P99.9) are kept: AISBench's
// files then show what AISBench would have made of them.
func checkStats(cmd *cli.Command) error {
	s := cmd.String("stats")
	if s == "" {
		return nil
	}
	for _, name := range splitComma(s) {
		if _, ok := samples.ParseStatistic(name); !ok {
			return usagef("%s: --stats: unknown statistic %q: want Average, Min, Max, Median, Pnn (P1 to P99, as AISBench's table takes them) or a percentile such as P99.9 (sseaudit's figures)", cmd.Name, name)
		}
	}
	return nil
}
