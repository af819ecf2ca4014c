package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/audit/htmlreport"
	"github.com/sseaudit/sseaudit/audit/whatif"
	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/tables"
)

// mergeReportFlags are the flags of audit report that merge takes too, with
// report's own definitions.
var mergeReportFlags = []string{"format", "output", "color", "aisbench-out", "max-concurrency", "stats", "slo", "min-window", "min-window-requests"}

func mergeCommand(e env) *cli.Command {
	var flags []cli.Flag
	for _, f := range reportCommand(e).Flags {
		if slices.Contains(mergeReportFlags, f.Names()[0]) {
			flags = append(flags, f)
		}
	}
	return &cli.Command{
		Name:      "merge",
		Usage:     "the report of a whole trace from the replay tables of its parts (audit replay --format parquet)",
		ArgsUsage: "PARTIAL...",
		Description: `Reads the replay tables that audit replay --format parquet --out-dir wrote for
the parts of a trace (each PARTIAL a directory holding requests.parquet and
events.parquet), rebuilds every request's record exactly (time points to the
last bit, tokens, events, the sse framer's view), and computes and renders the
report as audit report does for the whole trace: the same flags, the same
outputs, the same bytes. Replay the parts on as many machines as you like;
merge where the tables meet.

Order matters: the requests are taken in the order of the arguments, each
partial's in trace order, and AISBench's statistics depend on the order in their
last bits (sums in order, a stable sort for the window). Give the partials in
the order of the trace to get its report.

Checks, each an error naming the partial, the row and what was expected: the
tables' version, the framer and C of every partial (the same everywhere; a
different or missing C is accepted when --max-concurrency gives it), a
request_id in two partials (audit report refuses a trace whose request_ids
repeat), events that do not follow their request, truncated or corrupt files.
The HTML page is titled with the partials' source traces, joined with " + ".

Arguments:
  PARTIAL   a directory written by audit replay --format parquet --out-dir

Examples:
  audit merge cmd/audit/testdata/cli/merge-basic/part1 cmd/audit/testdata/cli/merge-basic/part2
  audit merge --format json cmd/audit/testdata/cli/merge-basic/part1 cmd/audit/testdata/cli/merge-basic/part2`,
		Flags: flags,
		Action: action(func(ctx context.Context, cmd *cli.Command) error {
			partials := cmd.Args().Slice()
			if len(partials) == 0 {
				return usagef("merge: missing PARTIAL (a directory written by audit replay --format parquet --out-dir)")
			}
			opts, err := reportOptionsFrom(cmd)
			if err != nil {
				return err
			}
			c := 0
			if cmd.IsSet("max-concurrency") {
				if c = cmd.Int("max-concurrency"); c < 1 {
					return usagef("merge: --max-concurrency %d: want a positive integer", c)
				}
			}
			m, err := openPartials(partials, c)
			if err != nil {
				return err
			}
			defer m.close()
			var wb *whatif.Builder
			var add func(audit.RequestRecord)
			if opts.format == "html" {
				if wb, err = newDefaultWhatIf(m.meta.MaxConcurrency, opts.cfg.Stats); err != nil {
					return err
				}
				add = wb.Add
			}
			rep, err := m.report(opts.cfg, add)
			if err != nil {
				return err
			}
			var wres *whatif.Result
			var wnote string
			if wb != nil {
				if wres, err = wb.Finalize(); err != nil {
					wnote = "not available: " + strings.TrimPrefix(err.Error(), "whatif: ")
				}
			}
			return writeReport(e, cmd, rep, opts, htmlreport.Options{Title: m.title, WhatIf: wres, WhatIfNote: wnote})
		}),
	}
}

// partials are the replay tables merge reads, open and checked against each
// other.
type partials struct {
	readers []*tables.Reader
	meta    tables.Meta // what they share: the framer, C
	// title names the merged run: the partials' source traces, in order,
	// each once.
	title string
}

// openPartials opens every partial and checks that they were replayed alike:
// one framer, one C (unless maxConcurrency, when not 0, gives it).
func openPartials(dirs []string, maxConcurrency int) (*partials, error) {
	m := &partials{}
	for _, dir := range dirs {
		r, err := tables.Open(dir)
		if err != nil {
			m.close()
			return nil, err
		}
		m.readers = append(m.readers, r)
	}
	first := m.readers[0].Meta()
	m.meta = tables.Meta{Framer: first.Framer, MaxConcurrency: first.MaxConcurrency}
	for i, r := range m.readers[1:] {
		meta := r.Meta()
		if meta.Framer != first.Framer {
			m.close()
			return nil, fmt.Errorf("%s: replayed with the %s framer, %s with the %s framer: want partials replayed alike",
				dirs[i+1], meta.Framer, dirs[0], first.Framer)
		}
		if maxConcurrency == 0 && meta.MaxConcurrency != first.MaxConcurrency {
			m.close()
			return nil, fmt.Errorf("%s: %s is %s, in %s it is %s: want one C for every partial (or give --max-concurrency C)",
				dirs[i+1], tables.KeyMaxConcurrency, concurrencyText(meta.MaxConcurrency), dirs[0], concurrencyText(first.MaxConcurrency))
		}
	}
	if maxConcurrency != 0 {
		m.meta.MaxConcurrency = maxConcurrency
	}
	var names []string
	for _, r := range m.readers {
		if name := r.Meta().SourceTrace; !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	m.title = strings.Join(names, " + ")
	if m.meta.MaxConcurrency == 0 {
		m.close()
		return nil, usagef("merge: %s has no %s: give --max-concurrency C (the stable stage needs it)", dirs[0], tables.KeyMaxConcurrency)
	}
	return m, nil
}

func concurrencyText(c int) string {
	if c == 0 {
		return "missing"
	}
	return strconv.Itoa(c)
}

// report feeds every request of every partial, in order, to one
// audit.Builder (and to add, when set) and finalizes the report.
func (m *partials) report(cfg audit.Config, add func(audit.RequestRecord)) (*audit.Report, error) {
	cfg.MaxConcurrency = m.meta.MaxConcurrency
	b := audit.NewBuilder(cfg)
	type place struct {
		partial int
		row     int64
	}
	seen := map[string]place{}
	for i, r := range m.readers {
		for r.Scan() {
			rec := r.Record()
			if first, dup := seen[rec.ID]; dup {
				e := trace.RowError(r.RequestsPath(), -1, r.Row(), "request_id",
					"request_id also at %s row %d: want each request in one partial (audit report refuses a trace whose request_ids repeat)",
					m.readers[first.partial].RequestsPath(), first.row)
				e.RequestID = rec.ID
				return nil, e
			}
			seen[rec.ID] = place{i, r.Row()}
			b.Add(rec)
			if add != nil {
				add(rec)
			}
		}
		if err := r.Err(); err != nil {
			return nil, err
		}
	}
	// As audit report does: the readers' garbage goes back to the operating
	// system before Finalize allocates its pools, so that the two peaks do
	// not add up.
	m.close()
	seen = nil
	debug.FreeOSMemory()
	return b.Finalize()
}

// close closes every reader; a second call does nothing.
func (m *partials) close() {
	for _, r := range m.readers {
		r.Close()
	}
	m.readers = nil
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
