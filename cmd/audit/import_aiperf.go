package main

import (
	"context"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/trace/importer/aiperf"
)

func init() {
	registerImporter(&importer{
		name: "aiperf",
		usage: "AIPerf's profile_export_raw.jsonl (--export-level raw): each SSE message re-serialised as SSE text at its perf_ns " +
			"(the original read boundaries and line endings are not kept), status, error",
		run: func(_ context.Context, e env, cmd *cli.Command, src, out string) error {
			f, err := openSource(src)
			if err != nil {
				return err
			}
			defer f.Close()
			var opts aiperf.Options
			if p := aiperf.SummaryBeside(src); p != "" {
				if opts.Summary, err = aiperf.ReadSummary(p); err != nil {
					return err
				}
			}
			rd, err := aiperf.Read(f, src, opts)
			if err != nil {
				return err
			}
			return writeImported(e, cmd, "aiperf", src, out, rd.Meta(), rd.Extra(), rd)
		},
	})
}
