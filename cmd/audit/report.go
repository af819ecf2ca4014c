package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/audit/htmlreport"
	"github.com/sseaudit/sseaudit/audit/whatif"
	"github.com/sseaudit/sseaudit/trace"
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
as audit whatif computes them) and the findings, each linked to its figure.

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
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "format", Value: "text", Usage: "output: text, json, csv (every metric of both stages, AISBench's and sseaudit's), markdown, or html (one self-contained page with charts)"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the output to this file instead of stdout"},
			&cli.StringFlag{Name: "color", Value: "auto", Usage: "colour the text output: auto (a terminal, NO_COLOR unset), always or never"},
			&cli.StringFlag{Name: "aisbench-out", Usage: "write AISBench's result files for both stages into this folder"},
			&cli.IntFlag{Name: "max-concurrency", Usage: "the configured max concurrency C (overrides the trace's metadata)"},
			&cli.StringFlag{Name: "stats", Usage: "statistics, comma-separated (default Average,Min,Max,Median,P75,P90,P99): AISBench's table keeps those AISBench accepts; sseaudit's section computes any, P99.9 too, marked * when AISBench's table lacks it"},
			&cli.StringSliceFlag{Name: "slo", Usage: "an objective whose attainment each stage reports, e.g. 'TPOT<20ms', 'TTFT<=2s', 'OutputTokenThroughput>=30' (repeatable)"},
			&cli.DurationFlag{Name: "min-window", Value: time.Duration(audit.DefaultThresholds.MinWindowSeconds * float64(time.Second)), Usage: "report a stable window shorter than this"},
			&cli.IntFlag{Name: "min-window-requests", Value: audit.DefaultThresholds.MinWindowRequests, Usage: "report a stable window with fewer requests than this"},
			framerFlag(),
			traceFormatFlag("in-format"),
		}, limitFlags()...),
		Action: action(func(ctx context.Context, cmd *cli.Command) error {
			o, err := reportOptionsFrom(cmd)
			if err != nil {
				return err
			}
			opts := buildOptions{progress: newProgress(e.stderr)}
			var wb *whatif.Builder
			if o.format == "html" {
				// The what-if of the default policies, from the same records.
				opts.add = func(rec audit.RequestRecord) {
					if wb != nil {
						wb.Add(rec)
					}
				}
				opts.beforeReplay = func(c int) error {
					var err error
					wb, err = newDefaultWhatIf(c, o.cfg.Stats)
					return err
				}
			}
			rep, err := buildReportWith(e, cmd, o.cfg, true, opts)
			if err != nil {
				opts.progress.done()
				return err
			}
			var wres *whatif.Result
			var wnote string
			if wb != nil {
				opts.progress.phase("what-if")
				if wres, err = wb.Finalize(); err != nil {
					wnote = "not available: " + strings.TrimPrefix(err.Error(), "whatif: ")
				}
			}
			opts.progress.done()
			return writeReport(e, cmd, rep, o, htmlreport.Options{Title: filepath.Base(cmd.Args().First()), WhatIf: wres, WhatIfNote: wnote})
		}),
	}
}

// reportOptions are the rendering choices and the audit configuration of
// report's flags.
type reportOptions struct {
	format, color string
	cfg           audit.Config
}

// reportOptionsFrom checks report's flags on cmd and builds the audit
// configuration they give.
func reportOptionsFrom(cmd *cli.Command) (reportOptions, error) {
	o := reportOptions{format: cmd.String("format"), color: cmd.String("color")}
	switch o.format {
	case "text", "json", "csv", "markdown", "html":
	default:
		return o, usagef("%s: --format %q: want text, json, csv, markdown or html", cmd.Name, o.format)
	}
	if o.color != "auto" && o.color != "always" && o.color != "never" {
		return o, usagef("%s: --color %q: want auto, always or never", cmd.Name, o.color)
	}
	if s := cmd.String("stats"); s != "" {
		o.cfg.Stats = splitComma(s)
	}
	for _, text := range cmd.StringSlice("slo") {
		slo, err := audit.ParseSLO(text)
		if err != nil {
			return o, usagef("%s: --slo: %v", cmd.Name, strings.TrimPrefix(err.Error(), "audit: "))
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
func newDefaultWhatIf(maxConcurrency int, stats []string) (*whatif.Builder, error) {
	var policies []whatif.Policy
	for _, name := range whatif.DefaultPolicies {
		p, err := whatif.ParsePolicy(name)
		if err != nil {
			return nil, err
		}
		policies = append(policies, p)
	}
	return whatif.NewBuilder(whatif.Config{MaxConcurrency: maxConcurrency, Stats: stats, Policies: policies})
}

// writeReport writes AISBench's files (--aisbench-out) and renders the
// report in the chosen format to -o or stdout.
func writeReport(e env, cmd *cli.Command, rep *audit.Report, o reportOptions, html htmlreport.Options) error {
	if dir := cmd.String("aisbench-out"); dir != "" {
		if err := writeAISBenchFiles(e, rep, dir); err != nil {
			return err
		}
	}
	render := func(w io.Writer) error {
		switch o.format {
		case "json":
			return rep.WriteJSON(w)
		case "csv":
			return rep.WriteCSV(w)
		case "markdown":
			return rep.WriteMarkdown(w)
		case "html":
			return htmlreport.Write(w, rep, html)
		}
		if o.color == "always" || (o.color == "auto" && cmd.String("output") == "" && wantColor(e.stdout)) {
			return rep.WriteTextColor(w)
		}
		return rep.WriteText(w)
	}
	if path := cmd.String("output"); path != "" {
		return writeFileAtomic(path, render)
	}
	return render(e.stdout)
}

// buildReport replays every request of the command's TRACE with the chosen
// framer (what AISBench's client recorded) and, for the aisbench framer, with
// the sse framer too (what a spec-compliant client sees in the same bytes),
// then finalizes the report. cfg.MaxConcurrency comes from the flags or the
// trace; without needC an unknown C leaves the stable stage without numbers
// instead of failing.
func buildReport(e env, cmd *cli.Command, cfg audit.Config, needC bool) (*audit.Report, error) {
	return buildReportWith(e, cmd, cfg, needC, buildOptions{})
}

// buildOptions are buildReport's extras: a progress display, and a second
// consumer of every record (the what-if of the HTML report), set up once C
// is known.
type buildOptions struct {
	progress     *progress
	beforeReplay func(maxConcurrency int) error
	add          func(audit.RequestRecord)
}

func buildReportWith(e env, cmd *cli.Command, cfg audit.Config, needC bool, opts buildOptions) (*audit.Report, error) {
	path, err := oneArg(cmd, "TRACE")
	if err != nil {
		return nil, err
	}
	framer, err := framerFrom(cmd)
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
	c, err := maxConcurrency(cmd, r.Info())
	var ue *usageError
	if err != nil && (needC || cmd.IsSet("max-concurrency") || !errors.As(err, &ue)) {
		return nil, err
	}
	cfg.MaxConcurrency = c
	if opts.beforeReplay != nil {
		if err := opts.beforeReplay(c); err != nil {
			return nil, err
		}
	}
	b := audit.NewBuilder(cfg)
	// Each request is replayed on its own (with AISBench's framer, and with
	// the sse framer for the framing facts), in parallel; the records come
	// back in trace order.
	newReplay := newReplayWork(r.Info().Path, replayOptions(cmd, framer), false)
	newWork := func() func(*trace.Request) (audit.RequestRecord, error) {
		work := newReplay()
		return func(req *trace.Request) (audit.RequestRecord, error) {
			out, err := work(req)
			return out.record, err
		}
	}
	err = mapOrdered(r, newWork, func(rec audit.RequestRecord) error {
		b.Add(rec)
		if opts.add != nil {
			opts.add(rec)
		}
		opts.progress.tick()
		return nil
	})
	if err != nil {
		return nil, err
	}
	opts.progress.phase("finalizing")
	// Every request is read: the reader and its buffers go before Finalize
	// (its Close error was ignored before as now).
	open = false
	_ = r.Close()
	r = nil
	return finalize(b)
}

// finalizeGCPercent is the collector's GOGC while Finalize runs. Its live
// heap is mostly the Builder's pointer-free time points and events, and it
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

// maxConcurrency is --max-concurrency, else the trace's metadata. The stable
// stage cannot be computed without it: a usage error.
func maxConcurrency(cmd *cli.Command, info trace.Info) (int, error) {
	if cmd.IsSet("max-concurrency") {
		c := cmd.Int("max-concurrency")
		if c < 1 {
			return 0, usagef("%s: --max-concurrency %d: want a positive integer", cmd.Name, c)
		}
		return c, nil
	}
	c, ok, err := info.Meta.MaxConcurrency()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", info.Path, err)
	}
	if !ok {
		return 0, usagef("%s: %s has no %s: give --max-concurrency C (the stable stage needs it)", cmd.Name, info.Path, trace.KeyMaxConcurrency)
	}
	return c, nil
}

// writeAISBenchFiles writes <stage>.csv and <stage>.json, or <stage>.error,
// for both stages. Stale files of the other kind are removed, so the folder
// always describes this run alone.
func writeAISBenchFiles(e env, rep *audit.Report, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	failed := 0
	for _, st := range audit.Stages {
		base := filepath.Join(dir, string(st))
		if msg := rep.StageError(st); msg != "" {
			failed++
			fmt.Fprintf(e.stderr, "audit: warning: %s stage: %s (wrote %s.error)\n", st, msg, base)
			if err := writeFileAtomic(base+".error", func(w io.Writer) error { return rep.WriteAISBenchError(w, st) }); err != nil {
				return err
			}
			removeIfExists(base+".csv", base+".json")
			continue
		}
		if err := writeFileAtomic(base+".csv", func(w io.Writer) error { return rep.WriteAISBenchCSV(w, st) }); err != nil {
			return err
		}
		if err := writeFileAtomic(base+".json", func(w io.Writer) error { return rep.WriteAISBenchJSON(w, st) }); err != nil {
			return err
		}
		removeIfExists(base + ".error")
	}
	if failed == len(audit.Stages) {
		return errors.New("AISBench would have computed neither stage (see the .error files)")
	}
	return nil
}

func removeIfExists(paths ...string) {
	for _, p := range paths {
		os.Remove(p)
	}
}

// writeFileAtomic renders into memory, then writes a temporary file and
// renames it into place.
func writeFileAtomic(path string, render func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
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

// progress shows, on a terminal's stderr, how far a long run has come: after
// progressDelay, at most every progressEvery, a bar that sweeps (the trace's
// request count is not known ahead), the requests replayed, their rate and
// the phase. It draws nothing elsewhere, and clears its line when done. A nil
// *progress does nothing.
type progress struct {
	w        io.Writer
	now      func() time.Time
	start    time.Time
	last     time.Time
	n        int
	phaseMsg string
	drawn    bool
}

const (
	progressDelay = time.Second
	progressEvery = 100 * time.Millisecond
	progressWidth = 20
)

// newProgress returns a progress display for stderr, nil when it is not a
// terminal.
func newProgress(stderr io.Writer) *progress {
	if !isTerminal(stderr) {
		return nil
	}
	return newProgressTo(stderr, time.Now)
}

func newProgressTo(w io.Writer, now func() time.Time) *progress {
	t := now()
	return &progress{w: w, now: now, start: t, phaseMsg: "replaying"}
}

// tick counts one request.
func (p *progress) tick() {
	if p == nil {
		return
	}
	p.n++
	if p.n%64 == 0 || p.n < 64 {
		p.maybeDraw(false)
	}
}

// phase names what the run does now, and draws it when the run is long.
func (p *progress) phase(msg string) {
	if p == nil {
		return
	}
	p.phaseMsg = msg
	p.maybeDraw(true)
}

func (p *progress) maybeDraw(force bool) {
	t := p.now()
	elapsed := t.Sub(p.start)
	if elapsed < progressDelay || (!force && t.Sub(p.last) < progressEvery) {
		return
	}
	p.last = t
	pos := int(elapsed/(progressEvery)) % (2 * (progressWidth - 3))
	if pos >= progressWidth-3 {
		pos = 2*(progressWidth-3) - pos
	}
	bar := strings.Repeat(" ", pos) + "===" + strings.Repeat(" ", progressWidth-3-pos)
	rate := ""
	if p.phaseMsg == "replaying" {
		rate = fmt.Sprintf(", %.0f req/s", float64(p.n)/elapsed.Seconds())
	}
	fmt.Fprintf(p.w, "\r\x1b[K[%s] %s: %d requests%s, %.1f s", bar, p.phaseMsg, p.n, rate, elapsed.Seconds())
	p.drawn = true
}

// done clears the progress line.
func (p *progress) done() {
	if p == nil || !p.drawn {
		return
	}
	fmt.Fprint(p.w, "\r\x1b[K")
	p.drawn = false
}
