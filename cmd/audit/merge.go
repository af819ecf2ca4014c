package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/record/partial"
	"github.com/sseaudit/sseaudit/render/htmlreport"
	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/tables"
	"github.com/sseaudit/sseaudit/whatif"
)

// mergeReportFlags are the flags of audit report that merge takes too, with
// report's own definitions.
var mergeReportFlags = []string{"format", "output", "color", "summary", "stage", "width", "aisbench-out", "max-concurrency", "stats", "slo", "min-window", "min-window-requests"}

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
		Description: `Reads the replay tables that audit replay --format parquet -o DIR wrote for
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
  PARTIAL   a directory written by audit replay --format parquet -o DIR

Examples:
  audit merge cmd/audit/testdata/cli/merge-basic/part1 cmd/audit/testdata/cli/merge-basic/part2
  audit merge --format json cmd/audit/testdata/cli/merge-basic/part1 cmd/audit/testdata/cli/merge-basic/part2`,
		Flags: flags,
		Action: action(func(ctx context.Context, cmd *cli.Command) error {
			partials := cmd.Args().Slice()
			if len(partials) == 0 {
				return usagef("merge: missing PARTIAL (a directory written by audit replay --format parquet -o DIR)")
			}
			opts, err := reportOptionsFrom(cmd)
			if err != nil {
				return err
			}
			c, err := maxConcurrencyFlag(cmd)
			if err != nil {
				return err
			}
			m, err := openPartials(partials, c)
			if err != nil {
				return err
			}
			defer m.close()
			if m.meta.MaxConcurrency == 0 {
				noMaxConcurrency(e, "merge", partials[0], tables.KeyMaxConcurrency)
			}
			var wb *whatif.Builder
			var add func(record.Request)
			if opts.format == "html" {
				cfg := opts.cfg
				cfg.MaxConcurrency = m.meta.MaxConcurrency
				if wb, err = newDefaultWhatIf(cfg); err != nil {
					return err
				}
				add = wb.Add
			}
			rep, err := m.report(opts.cfg, add)
			if err != nil {
				return err
			}
			html := htmlreport.Options{Title: m.title}
			if wb != nil {
				html.WhatIf, html.WhatIfNote = finalizeWhatIf(wb)
			}
			return writeReport(e, cmd, rep, opts, html)
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
func (m *partials) report(cfg audit.Config, add func(record.Request)) (*audit.Report, error) {
	cfg.MaxConcurrency = m.meta.MaxConcurrency
	b := audit.NewBuilder(cfg)
	type place struct {
		partial int
		row     int64
	}
	seen := map[string]place{}
	for i, r := range m.readers {
		for r.Scan() {
			rec := partial.Record(r.Request(), r.Events())
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
	// As audit report does (finalize): the readers go first.
	m.close()
	seen = nil
	return finalize(b)
}

// close closes every reader; a second call does nothing.
func (m *partials) close() {
	for _, r := range m.readers {
		r.Close()
	}
	m.readers = nil
}
