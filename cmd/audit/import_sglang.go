package main

import (
	"context"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/trace/importer/sglang"
)

func init() {
	registerImporter(&importer{
		name: "sglang",
		usage: "the --output-file of sglang.bench_serving --output-details: time points from ttfts and itls with every start at 0 " +
			"(no start times: no timeline, no stable stage), token counts; no bytes (--sglang-run)",
		flags: func() []cli.Flag {
			return []cli.Flag{
				&cli.IntFlag{Name: "sglang-run", Usage: "sglang: the run (1-based line) to import, when the file holds several"},
			}
		},
		run: func(_ context.Context, e env, cmd *cli.Command, src, out string) error {
			f, err := openSource(src)
			if err != nil {
				return err
			}
			defer f.Close()
			run := int(cmd.Int("sglang-run"))
			if run < 0 {
				return usagef("import: --sglang-run %d: want a positive line number", run)
			}
			rd, err := sglang.Read(f, src, run, 0)
			if err != nil {
				return err
			}
			return writeImported(e, cmd, "sglang", src, out, rd.Meta(), nil, rd)
		},
	})
}
