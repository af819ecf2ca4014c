package main

import (
	"context"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/trace/importer/sglang"
)

func init() {
	registerImporter(&importer{
		name: "sglang",
		usage: "the --output-file of sglang.bench_serving --output-details (runs appended one a line: --run N; pretty-printed reads too): " +
			"time points from ttfts and itls with every start at 0 (no start times: no timeline, no stable stage), token counts; no bytes",
		flags: func() []cli.Flag {
			return []cli.Flag{
				&cli.IntFlag{Name: "sglang-run", Usage: "sglang: the older spelling of --run"},
			}
		},
		run: func(_ context.Context, e env, cmd *cli.Command, src, out string) error {
			run, err := importRun(cmd, "sglang-run")
			if err != nil {
				return err
			}
			f, err := openSource(src)
			if err != nil {
				return err
			}
			defer f.Close()
			rd, err := sglang.Read(f, src, sglang.Options{Run: run})
			if err != nil {
				return err
			}
			return writeImported(e, cmd, "sglang", src, out, nil, rd)
		},
	})
}
