package main

import (
	"context"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/trace/importer/vllmbench"
)

func init() {
	registerImporter(&importer{
		name: "vllm",
		usage: "the RESULT.json of vllm bench serve --save-result --save-detailed (one run, pretty-printed or not, or appended runs: --run N): " +
			"time points rebuilt from start_times (every start 0 before vLLM PR #32667), ttfts and itls, token counts from the lens; no bytes, no events",
		run: func(_ context.Context, e env, cmd *cli.Command, src, out string) error {
			run, err := importRun(cmd)
			if err != nil {
				return err
			}
			f, err := openSource(src)
			if err != nil {
				return err
			}
			defer f.Close()
			rd, err := vllmbench.Read(f, src, vllmbench.Options{Run: run})
			if err != nil {
				return err
			}
			return writeImported(e, cmd, "vllm", src, out, nil, rd)
		},
	})
}
