package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/tracegen"
)

func genCommand(e env) *cli.Command {
	var lines []string
	for _, p := range tracegen.Profiles() {
		lines = append(lines, fmt.Sprintf("  %-18s %s", p.Name, p.Description))
	}
	return &cli.Command{
		Name:      "gen",
		Usage:     "generate a synthetic trace whose truth is known (deterministic from a seed)",
		ArgsUsage: "--profile P --requests N --concurrency C --seed S -o TRACE",
		Description: `Writes a trace of N requests sent by a closed loop of C clients (each sends its
next request when its previous one ends), every event, read boundary and arrival
time decided from the seed: the same flags give the same bytes. Requests are
generated one at a time and streamed to the writer, so a trace of any size
(--requests 100000 --output-tokens 512 is over 1 GB) never sits in memory. Each
request's prompt is kept in the extra column "prompt" (what serve --match uses).

Profiles (--profile):
` + strings.Join(lines, "\n") + `

Examples:
  audit gen --profile chat --requests 10 --concurrency 2 --seed 1 -o /tmp/gen.parquet
  audit gen --profile mixed --requests 50 --concurrency 4 --seed 7 -o /tmp/gen-mixed.arrows
  audit gen --profile network --requests 2 --output-tokens 3 --seed 1 -o -`,
		Flags: []cli.Flag{
			enumFlag("profile", "chat", "what the streams look like: "+strings.Join(tracegen.ProfileNames(), ", "), tracegen.ProfileNames()...),
			&cli.IntFlag{Name: "requests", Value: 100, Usage: "requests to generate"},
			&cli.IntFlag{Name: "concurrency", Value: 1, Usage: "clients of the closed loop (the trace's max_concurrency)"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of every random choice"},
			enumFlag("api", "chat", "chat (chat.completion.chunk) or completions (text_completion)", "chat", "completions"),
			&cli.IntFlag{Name: "output-tokens", Value: 64, Usage: "mean completion tokens a request (drawn in [n/2, 3n/2])"},
			&cli.IntFlag{Name: "input-tokens", Value: 128, Usage: "prompt words a request (the prompt_tokens usage reports)"},
			&cli.DurationFlag{Name: "ttft", Value: 120 * time.Millisecond, Usage: "mean time to the first read"},
			&cli.DurationFlag{Name: "itl", Value: 20 * time.Millisecond, Usage: "mean gap between reads"},
			&cli.DurationFlag{Name: "min-gap", Value: time.Millisecond, Usage: "smallest gap between two reads (so that serve keeps read boundaries)"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "the trace to write (required; - is JSONL on stdout)"},
			traceOutFlag(),
			&cli.Int64Flag{Name: "row-group-requests", Usage: "requests a Parquet row group or Arrow batch holds at most (default 1024)"},
		},
		Action: action(func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Present() {
				return usagef("gen: unexpected arguments: %s", strings.Join(cmd.Args().Slice(), " "))
			}
			out := cmd.String("output")
			if out == "" {
				return usagef("gen: missing -o TRACE")
			}
			o := tracegen.Options{
				Profile: cmd.String("profile"), Requests: int(cmd.Int("requests")), Concurrency: int(cmd.Int("concurrency")),
				Seed: cmd.Uint64("seed"), API: cmd.String("api"),
				OutputTokens: int(cmd.Int("output-tokens")), InputTokens: int(cmd.Int("input-tokens")),
				TTFT: cmd.Duration("ttft"), ITL: cmd.Duration("itl"), MinGap: cmd.Duration("min-gap"),
			}
			if o.Requests < 0 || o.Concurrency < 1 || o.OutputTokens < 1 || o.InputTokens < 1 || o.TTFT <= 0 || o.ITL <= 0 || o.MinGap <= 0 {
				return usagef("gen: --requests must be 0 or more; --concurrency, --output-tokens, --input-tokens, --ttft, --itl and --min-gap positive")
			}
			meta, err := tracegen.Meta(o)
			if err != nil {
				return usagef("gen: %v", err)
			}
			if _, err := lookupFormat(cmd, "trace-format", out); err != nil {
				return err
			}
			w, err := trace.Create(out, cmd.String("trace-format"), e.stdout, trace.WriteOptions{
				Meta: meta, Extra: tracegen.Extra(), RowGroupRequests: int(cmd.Int64("row-group-requests")),
			})
			if err != nil {
				return fmt.Errorf("%s: %w", out, err)
			}
			st, err := tracegen.Generate(o, w)
			if err != nil {
				w.Abort()
				return fmt.Errorf("%s: %w", out, err)
			}
			if err := w.Close(); err != nil {
				return fmt.Errorf("%s: %w", out, err)
			}
			fmt.Fprintf(e.stderr, "gen: %d requests (%d failed), %d reads, %d body bytes, profile %s, seed %d → %s\n",
				st.Requests, st.Failed, st.Chunks, st.BodyBytes, o.Profile, o.Seed, out)
			return nil
		}),
	}
}
