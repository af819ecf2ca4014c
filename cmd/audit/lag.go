package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/lag"
	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/importer/aisbench"
)

func lagCommand(e env) *cli.Command {
	return &cli.Command{
		Name:      "lag",
		Usage:     "the client's lag: what a benchmark client recorded against what audit tap saw on the wire",
		ArgsUsage: "--wire RUN.arrows --client CLIENT",
		Description: `Compares the time points a benchmark client recorded with the arrival of the same
events at audit tap, between the client and the server, in the same run. When the
client is the bottleneck (a Python event loop at high concurrency), its time points
lag the wire, and its TTFT, ITL and TPOT carry its own delay.

--wire is the tap's trace; --client the client's records: an AISBench work_dir (or
its performances/<model> folder), or a trace (audit import --from vllm|sglang|
genai-perf|aiperf makes one of another tool's export). Requests are matched by
prompt where both sides know it (the tap records it; an AISBench work_dir does
not), then by order and time. A client trace without send times (a vLLM result
before start_times) is refused. The clocks' offset (client = wire + offset) is
bounded by the requests (sent before the tap gets them) and the events (they
reach the client after the tap): a clock the tap recorded (CLOCK_MONOTONIC, which
Python's time.perf_counter reads on Linux, or the wall clock) that lies within the
bounds is taken; else the upper bound (the least-lagged event has no lag).

Each client time point is aligned with a wire event (one to one when both count
the same events; else in time order: a point takes the events that arrived before
it, which it merged) and its lag is its time minus the event's arrival minus the
offset. The output: the matching, the offset, events merged, timed only by the
client or never timed, the lag's distribution and its growth with the requests in
flight on the wire, the client's TTFT, ITL, TPOT and E2EL (AISBench's formulas)
from its own time points and with the wire's times, and the client-lag finding
when the median lag is at least --threshold of the wire's mean ITL. When the
offset is inconsistent (its low bound above its high bound: requests matched
wrongly, or clocks that drift), the lag is not to be trusted: the finding is
lag-offset-inconsistent, naming the two requests, never client-lag. When it has
no high bound (every compared client counts more events than the wire) and no
known clock lies above its low bound, every lag is an upper bound: the finding
is lag-offset-unbounded, never client-lag.

Examples:
  audit lag --wire testdata/tap/aisbench/fast/wire.arrows --client testdata/tap/aisbench/fast/work_dir
  audit lag --format json --wire testdata/tap/aisbench/slow/wire.arrows --client testdata/tap/aisbench/slow/work_dir
  audit lag -o /tmp/lag.html --wire testdata/tap/aisbench/slow/wire.arrows --client testdata/tap/aisbench/slow/work_dir
  $ audit lag --wire run.arrows --client client.jsonl   (client.jsonl: audit import --from vllm ...)`,
		Flags: slices.Concat(outputFlags("output: text, json or html", lagFormats...), []cli.Flag{
			&cli.StringFlag{Name: "wire", Usage: "the trace audit tap recorded (required)"},
			&cli.StringFlag{Name: "client", Usage: "the client's records: an AISBench work_dir or a trace (required)"},
			&cli.Float64Flag{Name: "threshold", Value: lag.DefaultThreshold, Usage: "client-lag finding when the median lag is at least this fraction of the wire's mean ITL"},
			framerFlag(),
			traceFormatFlag("in-format"),
		}, limitFlags()),
		Action: action(func(ctx context.Context, cmd *cli.Command) error {
			format, err := outputFormat(cmd, lagFormats...)
			if err != nil {
				return err
			}
			if cmd.Args().Present() {
				return usagef("lag: unexpected arguments: %v (give --wire and --client)", cmd.Args().Slice())
			}
			wirePath, clientPath := cmd.String("wire"), cmd.String("client")
			if wirePath == "" || clientPath == "" {
				return usagef("lag: want --wire RUN.arrows and --client CLIENT")
			}
			if t := cmd.Float64("threshold"); !(t > 0) {
				return usagef("lag: --threshold %v: want a positive fraction", t)
			}
			rep, err := compareLag(e, cmd, wirePath, clientPath, cmd.Float64("threshold"))
			if err != nil {
				return err
			}
			src := lag.Sources{Wire: wirePath, Client: clientPath}
			return writeOutput(e, cmd, func(w io.Writer) error {
				switch format {
				case "json":
					return rep.WriteJSON(w, src)
				case "html":
					return rep.WriteHTML(w, src)
				}
				return rep.WriteText(w, src)
			})
		}),
	}
}

var lagFormats = []string{"text", "json", "html"}

// compareLag reads the tap's trace and the client's records and compares
// them (threshold 0: lag's default).
func compareLag(e env, cmd *cli.Command, wirePath, clientPath string, threshold float64) (*lag.Report, error) {
	wire, known, err := readWire(e, cmd, wirePath)
	if err != nil {
		return nil, err
	}
	client, err := readClient(e, cmd, clientPath)
	if err != nil {
		return nil, err
	}
	rep := lag.Compare(wire, client, lag.Options{Threshold: threshold, Known: known})
	if rep.Compared == 0 {
		return nil, fmt.Errorf("lag: no request of %s that succeeded matches a successful one of %s (%d and %d requests, %d matched): are they the same run?", clientPath, wirePath, len(client), len(wire), rep.Matched)
	}
	return rep, nil
}

// readWire reads the tap's trace, and the clocks its metadata names.
func readWire(e env, cmd *cli.Command, path string) ([]lag.Request, []lag.Known, error) {
	r, err := openTrace(e, cmd, path, "in-format")
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	known := lag.KnownOffsets(r.Info().Meta)
	reqs, err := lag.Read(r, recordOptions(cmd))
	return reqs, known, err
}

// readClient reads the client's records: an AISBench work_dir, else a
// trace.
func readClient(e env, cmd *cli.Command, path string) ([]lag.Request, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		run, err := aisbench.Load(path, aisbench.Options{})
		if err != nil {
			return nil, err
		}
		return lag.FromTimePoints(run.TraceRequests()), nil
	}
	r, err := openTrace(e, cmd, path, "")
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if v, ok := r.Info().Meta.Get(trace.KeyStartTimes); ok {
		return nil, fmt.Errorf("lag: %s: the client's send times are not known (%s = %q): its time points are on no clock the wire's can be set against", path, trace.KeyStartTimes, v)
	}
	return lag.Read(r, recordOptions(cmd))
}
