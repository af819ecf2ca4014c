package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/whatif"
)

func whatifCommand(e env) *cli.Command {
	return &cli.Command{
		Name:      "whatif",
		Usage:     "AISBench's figures again with only some events keeping their time points, beside the original",
		ArgsUsage: "TRACE",
		// keep=content,reasoning is one policy: --policy is repeated, never split.
		DisableSliceFlagSeparator: true,
		Description: `Replays every request as AISBench's client would have, then, for each policy,
keeps only the time points of the recorded events the policy selects (t0 always
stays) and computes both of AISBench's stages again from them, exactly as
AISBench would. The original (aisbench) figures come first and are never altered;
each policy follows with its deltas against them: how many requests' tm (last time
point) moved and by how much, E2EL, TTFT, TPOT and ITL (mean, P90, N, samples),
Concurrency, Output Token Throughput and the stable window. A request left with
fewer than 2 time points becomes a failure, as AISBench would make it.

Policies (--policy, repeatable; default: content, text, no-usage-tail, no-role):
  aisbench         every recorded event (the original)
  content          events carrying non-empty content
  text             events carrying content or reasoning
  no-usage-tail    drop usage-only and metadata-only events after the last text event
  no-role          drop the leading role-only events
  keep=C,C,...     events of the classes named: ` + strings.Join(keepClassNames(), ", ") + `

Token counts are never changed: a policy only moves time points. Traces of
time_points_s carry no events and cannot be filtered (exit 1). docs/whatif.md
defines every figure.

Arguments:
  TRACE   a trace file

Examples:
  audit whatif testdata/traces/basic.parquet
  audit whatif --policy no-usage-tail --policy keep=content,reasoning --per-request testdata/traces/basic.jsonl
  audit whatif --format json --policy content testdata/traces/basic.arrow`,
		Flags: slices.Concat(formatFlags(), []cli.Flag{
			&cli.StringSliceFlag{Name: "policy", Usage: "a what-if policy (repeatable): aisbench, content, text, no-usage-tail, no-role or keep=CLASS,..."},
			&cli.BoolFlag{Name: "per-request", Usage: "list every request's tm, E2E and TPOT under every policy"},
			&cli.IntFlag{Name: "max-concurrency", Usage: "the configured max concurrency C (overrides the trace's metadata)"},
			framerFlag(),
			traceFormatFlag("in-format"),
			runMetaFlag(),
		}, limitFlags()),
		Action: action(func(ctx context.Context, cmd *cli.Command) error {
			path, err := oneArg(cmd, "TRACE")
			if err != nil {
				return err
			}
			format, err := outputFormat(cmd, textOrJSON...)
			if err != nil {
				return err
			}
			names := cmd.StringSlice("policy")
			if len(names) == 0 {
				names = whatif.DefaultPolicies
			}
			var policies []whatif.Policy
			seen := map[string]bool{}
			for _, n := range names {
				p, err := whatif.ParsePolicy(n)
				if err != nil {
					var pe *whatif.PolicyError
					if errors.As(err, &pe) {
						return usagef("whatif: --policy %q: %s", pe.Policy, pe.Msg)
					}
					return err
				}
				if seen[p.Name()] {
					return usagef("whatif: --policy %q given twice", p.Name())
				}
				seen[p.Name()] = true
				policies = append(policies, p)
			}
			r, err := openTrace(e, cmd, path, "in-format")
			if err != nil {
				return err
			}
			defer r.Close()
			c, err := maxConcurrency(cmd, r.Info(), true)
			if err != nil {
				return err
			}
			noTimeline, _ := r.Info().Meta.Get(trace.KeyStartTimes)
			b, err := whatif.NewBuilder(whatif.Config{MaxConcurrency: c, NoTimeline: noTimeline, Policies: policies})
			if err != nil {
				return err
			}
			err = record.Each(r, recordOptions(cmd), func(rr *record.Replayed) error {
				b.Add(rr.Record)
				return nil
			})
			if err != nil {
				return err
			}
			res, err := b.Finalize()
			if err != nil {
				return fmt.Errorf("%s: %w", r.Info().Path, err)
			}
			opt := whatif.RenderOptions{PerRequest: cmd.Bool("per-request")}
			return writeOutput(e, cmd, func(w io.Writer) error {
				if format == "json" {
					return res.WriteJSON(w, opt)
				}
				return res.WriteText(w, opt)
			})
		}),
	}
}

// keepClassNames are the class names keep= accepts.
func keepClassNames() []string {
	names := make([]string, len(whatif.KeepClasses))
	for i, c := range whatif.KeepClasses {
		names[i] = c.String()
	}
	return names
}
