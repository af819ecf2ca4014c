package main

import (
	"context"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/trace/importer/genaiperf"
)

func init() {
	registerImporter(&importer{
		name: "genai-perf",
		usage: "GenAI-Perf's profile_export.json: raw response text a read with ns times (status assumed 200 when responses came; " +
			"transport errors and status codes are not recorded) (--genai-perf-experiment)",
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
			rd, err := genaiperf.Read(f, src, genaiperf.Options{Experiment: int(cmd.Int("genai-perf-experiment"))})
			if err != nil {
				return err
			}
			return writeImported(e, cmd, "genai-perf", src, out, rd.Meta(), genaiperf.Extra, rd)
		},
	})
}
