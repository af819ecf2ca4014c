package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/audit/partial"
	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/tables"
)

func framerFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "framer", Value: string(replay.AISBench),
		Usage: "how the body is cut into events: aisbench (AISBench's client to the letter) or sse (the WHATWG parser)"}
}

// replayOptions are the replay options of a command: its framer and the
// --max-event-bytes limit.
func replayOptions(cmd *cli.Command, f replay.Framer) replay.Options {
	return replay.Options{Framer: f, MaxEventBytes: limitsFrom(cmd).MaxEventBytes}
}

func framerFrom(cmd *cli.Command) (replay.Framer, error) {
	f := replay.Framer(cmd.String("framer"))
	if f != replay.AISBench && f != replay.SSE {
		return "", usagef("%s: --framer %q: want aisbench or sse", cmd.Name, f)
	}
	return f, nil
}

// replayEach replays every request of r in trace order and hands each result
// to fn. A request whose bytes do not add up is an error naming it.
func replayEach(r trace.Reader, opts replay.Options, fn func(*trace.Request, *replay.Result) error) error {
	var rp replay.Replayer
	for r.Scan() {
		req := r.Request()
		res, err := rp.Replay(req, opts)
		if err != nil {
			return fmt.Errorf("%s: %w", r.Info().Path, err) // replay names the request
		}
		if err := fn(req, res); err != nil {
			return err
		}
	}
	return r.Err()
}

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

--format parquet --out-dir DIR writes the replay as two tables instead, for
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
  audit replay --format parquet --out-dir /tmp/basic-tables testdata/traces/basic.parquet`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "format", Value: "jsonl", Usage: "output: jsonl (one line a request, on stdout) or parquet (two tables in --out-dir)"},
			&cli.StringFlag{Name: "out-dir", Usage: "with --format parquet: the directory to write requests.parquet and events.parquet into (made if missing)"},
			&cli.IntFlag{Name: "max-concurrency", Usage: "with --format parquet: the configured max concurrency C to record (overrides the trace's metadata)"},
			framerFlag(),
			traceFormatFlag("in-format"),
		}, limitFlags()...),
		Action: action(func(ctx context.Context, cmd *cli.Command) error {
			path, err := oneArg(cmd, "TRACE")
			if err != nil {
				return err
			}
			format, dir := cmd.String("format"), cmd.String("out-dir")
			switch {
			case format != "jsonl" && format != "parquet":
				return usagef("replay: --format %q: want jsonl or parquet", format)
			case format == "parquet" && dir == "":
				return usagef("replay: --format parquet needs --out-dir DIR")
			case format == "jsonl" && (dir != "" || cmd.IsSet("max-concurrency")):
				return usagef("replay: --out-dir and --max-concurrency go with --format parquet")
			}
			framer, err := framerFrom(cmd)
			if err != nil {
				return err
			}
			r, err := openTrace(e, cmd, path, "in-format")
			if err != nil {
				return err
			}
			defer r.Close()
			if format == "parquet" {
				return writeReplayTables(cmd, r, framer, dir)
			}
			bw := bufio.NewWriter(e.stdout)
			err = replayEach(r, replayOptions(cmd, framer), func(_ *trace.Request, res *replay.Result) error {
				return writeReplayLine(bw, res)
			})
			if ferr := bw.Flush(); err == nil {
				err = ferr
			}
			return err
		}),
	}
}

// writeReplayTables replays every request of r as audit report does and
// writes the replay tables into dir.
func writeReplayTables(cmd *cli.Command, r trace.Reader, framer replay.Framer, dir string) error {
	info := r.Info()
	c, err := maxConcurrency(cmd, info)
	var ue *usageError
	if err != nil && (cmd.IsSet("max-concurrency") || !errors.As(err, &ue)) {
		return err
	}
	// Without C the tables are still whole: audit merge asks for it then.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	w, err := tables.Create(dir, tables.Meta{Framer: string(framer), MaxConcurrency: c,
		SourceTrace: filepath.Base(info.Path), Writer: "sseaudit " + version})
	if err != nil {
		return err
	}
	var events []tables.EventRow // reused from request to request: Write keeps none
	err = mapOrdered(r, newReplayWork(info.Path, replayOptions(cmd, framer), true), func(rr replayedRequest) error {
		var request tables.RequestRow
		request, events = partial.Rows(events[:0], rr.t0Ns, rr.result, rr.record)
		return w.Write(request, events)
	})
	if err != nil {
		w.Abort()
		return err
	}
	return w.Close()
}

// replayedRequest is one request replayed: the trace's t0, what the framer
// replayed and the record audit.Builder takes.
type replayedRequest struct {
	t0Ns   int64
	result *replay.Result
	record audit.RequestRecord
}

// newReplayWork returns a work function for mapOrdered that replays a
// request for report, merge's partials and the replay tables alike: with
// opts' framer, and for the aisbench framer with the sse framer too (sharing
// one memo, so that each payload both framers cut alike is parsed once)
// unless the body holds nothing the two framers cut differently, giving the
// replay (when keepResult; else result is nil and the worker's replayers
// reuse the replays' memory for the next request) and the record
// audit.Builder takes.
func newReplayWork(path string, opts replay.Options, keepResult bool) func() func(*trace.Request) (replayedRequest, error) {
	return func() func(*trace.Request) (replayedRequest, error) {
		var rp, spec replay.Replayer
		var memo replay.VerdictMemo
		ropts, sopts := opts, replay.Options{Framer: replay.SSE, MaxEventBytes: opts.MaxEventBytes}
		if opts.Framer != replay.SSE {
			ropts.Memo, sopts.Memo = &memo, &memo
		}
		return func(req *trace.Request) (replayedRequest, error) {
			memo.Reset()
			res, err := rp.Replay(req, ropts)
			if err != nil {
				return replayedRequest{}, fmt.Errorf("%s: %w", path, err) // replay names the request
			}
			out := replayedRequest{t0Ns: req.T0Ns, result: res}
			// The record keeps none of a replay's events or nanosecond time
			// points: without the result, the replays are recycled.
			if !keepResult {
				out.result = nil
				defer rp.Recycle(res)
			}
			if opts.Framer == replay.SSE {
				out.record = audit.RecordFromReplay(res)
				return out, nil
			}
			if rec, ok := audit.RecordWithoutSpecReplay(res); ok {
				out.record = rec
				return out, nil
			}
			sres, err := spec.Replay(req, sopts)
			if err != nil {
				return replayedRequest{}, fmt.Errorf("%s: %w", path, err)
			}
			out.record = audit.RecordFromReplays(req, res, sres)
			spec.Recycle(sres)
			return out, nil
		}
	}
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
