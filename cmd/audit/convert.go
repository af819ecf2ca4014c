package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/trace"
)

func convertCommand(e env) *cli.Command {
	return &cli.Command{
		Name:      "convert",
		Usage:     "convert a trace between Parquet, Arrow IPC (file and stream) and JSONL",
		ArgsUsage: "IN -o OUT",
		Description: `Copies every request, chunk, byte, metadata entry and extra column. Formats
follow the file extensions (.parquet, .arrow, .arrows, .jsonl); - is JSONL on stdin
or stdout. The output is written to a temporary file and renamed into place only
when complete, so a failed conversion leaves no half-written file.

Arguments:
  IN   the trace to read

Examples:
  audit convert testdata/traces/basic.jsonl -o /tmp/basic.parquet
  audit convert --layout flat testdata/traces/basic.parquet -o /tmp/basic-flat.arrow
  audit convert testdata/traces/basic.arrow -o -`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "the trace to write (required)"},
			traceOutFlag(),
			enumFlag("layout", "", "output layout: nested or flat (Parquet and Arrow only; default nested)", string(trace.Nested), string(trace.Flat)),
			&cli.Int64Flag{Name: "row-group-requests", Usage: "requests a Parquet row group or Arrow batch holds at most (default 1024)"},
			traceFormatFlag("in-format"),
			runMetaFlag(),
		}, limitFlags()...),
		Action: action(func(ctx context.Context, cmd *cli.Command) error {
			in, err := oneArg(cmd, "input trace IN")
			if err != nil {
				return err
			}
			out := cmd.String("output")
			if out == "" {
				return usagef("convert: missing -o OUT")
			}
			layout := trace.Layout(cmd.String("layout"))
			if _, err := lookupFormat(cmd, "trace-format", out); err != nil {
				return err
			}
			r, err := openRawTrace(e, cmd, in, "in-format")
			if err != nil {
				return err
			}
			defer r.Close()
			info := r.Info()
			w, err := trace.Create(out, cmd.String("trace-format"), e.stdout, trace.WriteOptions{
				Meta: info.Meta, Extra: info.Extra, Layout: layout,
				RowGroupRequests: int(cmd.Int64("row-group-requests")),
			})
			if err != nil {
				return fmt.Errorf("%s: %w", out, err)
			}
			if _, err := trace.Copy(w, r); err != nil {
				w.Abort()
				return err
			}
			if err := w.Close(); err != nil {
				return fmt.Errorf("%s: %w", out, err)
			}
			return nil
		}),
	}
}
