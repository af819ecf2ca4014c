package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/trace/importer/genaiperf"
)

func init() {
	registerImporter(&importer{
		name: "genai-perf",
		usage: "GenAI-Perf's profile_export.json (openai: raw response text a read with ns times, status assumed 200 when responses came; " +
			"Triton kinds and perf_analyzer's own --profile-export-file: time points from the response times, no bytes; " +
			"checked against <stem>_genai_perf.json beside it) (--genai-perf-experiment)",
		flags: func() []cli.Flag {
			return []cli.Flag{
				&cli.IntFlag{Name: "genai-perf-experiment", Value: -1, Usage: "genai-perf: the 0-based experiment to import, when the file holds several"},
			}
		},
		run: func(_ context.Context, e env, cmd *cli.Command, src, out string) error {
			f, err := openSource(src)
			if err != nil {
				return err
			}
			defer f.Close()
			opts := genaiperf.Options{Experiment: int(cmd.Int("genai-perf-experiment"))}
			if p := genaiperf.SummaryBeside(src); p != "" {
				// A summary that does not read is no reason not to import.
				if opts.Summary, err = genaiperf.ReadSummary(p); err != nil {
					fmt.Fprintf(e.stderr, "audit: warning: %v: imported without checking against it\n", err)
				}
			}
			rd, err := genaiperf.Read(f, src, opts)
			if err != nil {
				return err
			}
			return writeImported(e, cmd, "genai-perf", src, out, genaiperf.Extra, rd)
		},
	})
}
