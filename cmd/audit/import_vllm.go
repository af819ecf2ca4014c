package main

import (
	"context"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/trace/importer/vllmbench"
)

func init() {
	registerImporter(&importer{
		name: "vllm",
		usage: "the RESULT.json of vllm bench serve --save-result --save-detailed: time points rebuilt from start_times, ttfts and itls, " +
			"token counts from the lens; no bytes, no events",
		run: func(_ context.Context, e env, cmd *cli.Command, src, out string) error {
			f, err := openSource(src)
			if err != nil {
				return err
			}
			defer f.Close()
			rd, err := vllmbench.Read(f, src, 0)
			if err != nil {
				return err
			}
			return writeImported(e, cmd, "vllm", src, out, rd.Meta(), nil, rd)
		},
	})
}
