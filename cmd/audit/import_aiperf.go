package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/trace/importer/aiperf"
)

func init() {
	registerImporter(&importer{
		name: "aiperf",
		usage: "AIPerf's records export profile_export.jsonl (schemas <= 0.2 and 2026: time points from TTFT and the inter-chunk latencies, no bytes; " +
			"checked against profile_export_aiperf.json beside it) or its raw export profile_export_raw.jsonl (--export-level raw: each SSE message " +
			"re-serialised as SSE text at its perf_ns; the original read boundaries and line endings are not kept)",
		run: func(_ context.Context, e env, cmd *cli.Command, src, out string) error {
			f, err := openSource(src)
			if err != nil {
				return err
			}
			defer f.Close()
			var opts aiperf.Options
			if p := aiperf.SummaryBeside(src); p != "" {
				// A summary that does not read is no reason not to import.
				if opts.Summary, err = aiperf.ReadSummary(p); err != nil {
					fmt.Fprintf(e.stderr, "audit: warning: %v: imported without checking against it\n", err)
				}
			}
			rd, err := aiperf.Read(f, src, opts)
			if err != nil {
				return err
			}
			return writeImported(e, cmd, "aiperf", src, out, rd.Extra(), rd)
		},
	})
}
