package main

import (
	"context"
	"io"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/tools"
	"github.com/sseaudit/sseaudit/trace"
)

func toolsCommand(e env) *cli.Command {
	return &cli.Command{
		Name:      "tools",
		Usage:     "what each benchmark tool (AISBench, vLLM, SGLang, EvalScope) would have reported from the same bytes, and why they differ",
		ArgsUsage: "TRACE",
		Description: `Replays every request through each tool's own client framing and request
function and computes its metrics with its own code, pinned to a commit
(docs/tools.md cites every rule):

  aisbench  AISBench (the total stage, as audit report computes it)
  vllm      vllm bench serve (vLLM 2f41c894e320): each read stripped, then
            StreamedResponseHandler; calculate_metrics; --percentile-metrics
            ttft,tpot,itl,e2el --metric-percentiles 99
  sglang    SGLang's bench_serving (db570fe619ae): aiohttp's lines, each
            stripped; calculate_metrics
  evalscope EvalScope perf (fde259d2a32a): each read decoded, CRLF made LF,
            blocks' data lines joined; MetricsAccumulator and
            get_percentile_results (P99 the sorted values' [int(n*0.99)])

A run's duration, which vLLM and SGLang take from their wall clock, is the
trace's span: the first t0 to the last end (EvalScope takes its own from its
requests: the first start to the last completion). The chat or completions request
function is chosen by --api, else the trace's metadata, else the payloads.

Text, markdown and HTML print one table (a row a quantity, a column a tool),
then why the tools differ: each tool recomputed with one of its rules switched
to AISBench's at a time, each quantity that moves attributed to that rule,
and each tool with every rule switched, against AISBench. Then the keys the
bytes cannot give (a tokenizer, the dataset, the run's arguments) and why.
--format json writes tools.<tool>.result (the tool's keys as it saves them,
unrounded), .not_computed, .source, .notes, .summary, then why and residual.

Arguments:
  TRACE   a trace file

Examples:
  audit tools testdata/traces/basic.parquet
  audit tools --tool vllm,sglang --format json testdata/traces/basic.jsonl
  audit tools --format html -o /tmp/tools.html testdata/traces/basic.arrow`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "tool", Usage: "the tools, comma-separated, in the table's order: " + strings.Join(tools.Names(), ", ") + " (default: all)"},
			enumFlag("api", "auto", "the endpoint the trace streamed from: chat, completions or auto (the trace's metadata, else the payloads)", "auto", "chat", "completions"),
			traceFormatFlag("in-format"),
			runMetaFlag(),
		}, append(outputFlags("output: text, json, markdown or html", "text", "json", "markdown", "html"), limitFlags()...)...),
		Action: action(func(ctx context.Context, cmd *cli.Command) error {
			path, err := oneArg(cmd, "TRACE")
			if err != nil {
				return err
			}
			list, err := tools.ParseList(cmd.String("tool"))
			if err != nil {
				return usagef("tools: --tool: %v", err)
			}
			format, err := outputFormat(cmd, "text", "json", "markdown", "html")
			if err != nil {
				return err
			}
			if _, err := lookupFormat(cmd, "in-format", path); err != nil {
				return err
			}
			if path == "-" {
				return usagef("tools: the trace is read once for each tool's framing: give a file, not stdin")
			}
			opts := tools.Options{Tools: list, Why: true, MaxEventBytes: limitsFrom(cmd).MaxEventBytes}
			if api := cmd.String("api"); api != "auto" {
				opts.API = api
			}
			rep, err := tools.Run(func() (trace.Reader, error) { return openTrace(e, cmd, path, "in-format") }, opts)
			if err != nil {
				return err
			}
			write := func(w io.Writer) error {
				switch format {
				case "json":
					return rep.WriteJSON(w)
				case "markdown":
					return rep.WriteMarkdown(w)
				case "html":
					return rep.WriteHTML(w)
				}
				return rep.WriteText(w)
			}
			return writeOutput(e, cmd, write)
		}),
	}
}
