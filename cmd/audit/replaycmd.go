package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/trace"
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

Arguments:
  TRACE   a trace file

Examples:
  audit replay testdata/traces/basic.parquet
  audit replay --framer sse testdata/traces/basic.jsonl`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "format", Value: "jsonl", Usage: "output: jsonl"},
			framerFlag(),
			traceFormatFlag("in-format"),
		}, limitFlags()...),
		Action: action(func(ctx context.Context, cmd *cli.Command) error {
			path, err := oneArg(cmd, "TRACE")
			if err != nil {
				return err
			}
			if f := cmd.String("format"); f != "jsonl" {
				return usagef("replay: --format %q: want jsonl", f)
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
