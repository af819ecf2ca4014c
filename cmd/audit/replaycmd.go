package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/record/partial"
	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/tables"
)

func replayCommand(e env) *cli.Command {
	return &cli.Command{
		Name:      "replay",
		Usage:     "what AISBench's client would have recorded for each request, one JSON line a request",
		ArgsUsage: "TRACE",
		Description: `For each request, in trace order: request_id, success, error, time_points_ns (t0
first, on the trace's clock; null for traces made of time_points_s), time_points_s
(what AISBench would have recorded: float64(ns)/1e9), input_tokens, output_tokens
(null when unknown) and token_source, events (count by class) and bytes (count by
bucket; they sum to the body size).

--format parquet -o DIR writes the replay as two tables instead, for
DuckDB, Spark or Trino and for audit merge: DIR/requests.parquet (one row a
request, in trace order: AISBench's time points, tokens, TTFT, E2EL, TPOT, ITL
intervals, events by class, body bytes, the sse framer's view) and
DIR/events.parquet (one row a framed event), defined in
schemas/replay-tables-v1.md. The requests are replayed as audit report replays
them (with the sse framer too, for the aisbench framer), so that audit merge
of the tables of a trace's parts gives the report of the whole trace. The
max concurrency C (the trace's, or --max-concurrency) goes into the files'
metadata. Each file is written to a temporary file and renamed into place.

Arguments:
  TRACE   a trace file

Examples:
  audit replay testdata/traces/basic.parquet
  audit replay --framer sse testdata/traces/basic.jsonl
  audit replay --format parquet -o /tmp/basic-tables testdata/traces/basic.parquet`,
		Flags: append([]cli.Flag{
			enumFlag("format", "jsonl", "output: jsonl (one line a request) or parquet (two tables in a directory)", "jsonl", "parquet"),
			&cli.StringFlag{Name: "output", Aliases: []string{"o", "out-dir"}, Usage: "jsonl: write the lines to this file (atomically) instead of stdout; parquet: the directory to write requests.parquet and events.parquet into (made if missing)"},
			&cli.IntFlag{Name: "max-concurrency", Usage: "with --format parquet: the configured max concurrency C to record (overrides the trace's metadata)"},
			framerFlag(),
			traceFormatFlag("in-format"),
			runMetaFlag(),
		}, limitFlags()...),
		Action: action(func(ctx context.Context, cmd *cli.Command) error {
			path, err := oneArg(cmd, "TRACE")
			if err != nil {
				return err
			}
			format, dir := cmd.String("format"), cmd.String("output")
			switch {
			case format == "parquet" && dir == "":
				return usagef("replay: --format parquet needs -o DIR (or --out-dir DIR)")
			case format == "jsonl" && cmd.IsSet("max-concurrency"):
				return usagef("replay: --max-concurrency goes with --format parquet")
			}
			r, err := openTrace(e, cmd, path, "in-format")
			if err != nil {
				return err
			}
			defer r.Close()
			if format == "parquet" {
				return writeReplayTables(cmd, r, dir)
			}
			opts := recordOptions(cmd)
			opts.KeepReplay = true
			return writeOutput(e, cmd, func(w io.Writer) error {
				bw := bufio.NewWriter(w)
				err := record.Each(r, opts, func(rr *record.Replayed) error {
					return writeReplayLine(bw, rr.Replay)
				})
				if ferr := bw.Flush(); err == nil {
					err = ferr
				}
				return err
			})
		}),
	}
}

// writeReplayTables replays every request of r as audit report does and
// writes the replay tables into dir.
func writeReplayTables(cmd *cli.Command, r trace.Reader, dir string) error {
	info := r.Info()
	// Without C the tables are still whole: audit merge asks for it then.
	c, err := maxConcurrency(cmd, info, false)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	w, err := tables.Create(dir, tables.Meta{Framer: cmd.String("framer"), MaxConcurrency: c,
		SourceTrace: filepath.Base(info.Path), Writer: "sseaudit " + version})
	if err != nil {
		return err
	}
	var events []tables.EventRow // reused from request to request: Write keeps none
	opts := recordOptions(cmd)
	opts.Spec, opts.KeepReplay = true, true
	err = record.Each(r, opts, func(rr *record.Replayed) error {
		var request tables.RequestRow
		request, events = partial.Rows(events[:0], rr.T0Ns, rr.Replay, rr.Record)
		return w.Write(request, events)
	})
	if err != nil {
		w.Abort()
		return err
	}
	return w.Close()
}

// replayLine is one line of `audit replay`.
type replayLine struct {
	RequestID    string           `json:"request_id"`
	Success      bool             `json:"success"`
	Error        string           `json:"error"`
	TimePointsNs []int64          `json:"time_points_ns"`
	TimePointsS  []float64        `json:"time_points_s"`
	InputTokens  *int64           `json:"input_tokens"`
	OutputTokens *int64           `json:"output_tokens"`
	TokenSource  string           `json:"token_source"`
	Events       map[string]int   `json:"events"`
	Bytes        map[string]int64 `json:"bytes"`
	BodyBytes    int64            `json:"body_bytes"`
}

func writeReplayLine(w io.Writer, res *replay.Result) error {
	l := replayLine{
		RequestID: res.RequestID, Success: res.Success, Error: res.ErrorInfo,
		TimePointsNs: res.TimePointsNs, TimePointsS: res.TimePointsS,
		InputTokens: res.InputTokens, OutputTokens: res.OutputTokens, TokenSource: res.TokenSource,
		Events: map[string]int{}, Bytes: map[string]int64{}, BodyBytes: res.Bytes.Sum(),
	}
	if l.TimePointsS == nil {
		l.TimePointsS = []float64{}
	}
	for _, c := range replay.Classes {
		l.Events[c.String()] = res.Counts[c]
	}
	for _, b := range replay.Buckets {
		l.Bytes[b.String()] = res.Bytes[b]
	}
	b, err := json.Marshal(l)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}
