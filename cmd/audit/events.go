package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"text/tabwriter"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/replay"
)

func eventsCommand(e env) *cli.Command {
	return &cli.Command{
		Name:      "events",
		Usage:     "account for every body byte: events by class, bytes by bucket",
		ArgsUsage: "TRACE",
		Description: `Every body byte lands in exactly one bucket: the class of the event it belongs to
(role, reasoning, content, tool_call, finish, usage_only, metadata_only, done,
comment, after_done, malformed, error), framing (line ends, blank lines, "data:"
prefixes, field names) or ignored (what a framer skips). The buckets must sum to the
body size; a request whose bytes do not add up stops the command with exit 1.

Arguments:
  TRACE   a trace file

Examples:
  audit events testdata/traces/basic.parquet
  audit events --per-request --framer sse testdata/traces/basic.jsonl`,
		Flags: slices.Concat(formatFlags(), []cli.Flag{
			&cli.BoolFlag{Name: "per-request", Usage: "one row a request"},
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
			r, err := openTrace(e, cmd, path, "in-format")
			if err != nil {
				return err
			}
			defer r.Close()
			opts := recordOptions(cmd)
			opts.KeepReplay = true
			acc := eventAccount{Framer: opts.Framer}
			err = record.Each(r, opts, func(rr *record.Replayed) error {
				return acc.add(rr, cmd.Bool("per-request"))
			})
			if err != nil {
				return err
			}
			return writeOutput(e, cmd, func(w io.Writer) error {
				if format == "json" {
					return acc.writeJSON(w)
				}
				return acc.writeText(w)
			})
		}),
	}
}

// eventAccount accumulates the byte and event accounting of a trace.
type eventAccount struct {
	Framer    replay.Framer
	Requests  int64
	BodyBytes int64
	Events    replay.EventCounts
	Bytes     replay.ByteCounts
	Rows      []eventRow
}

type eventRow struct {
	RequestID string
	BodyBytes int64
	Events    replay.EventCounts
	Bytes     replay.ByteCounts
}

func (a *eventAccount) add(rr *record.Replayed, perRequest bool) error {
	res, body := rr.Replay, rr.BodyBytes
	if sum := res.Bytes.Sum(); sum != body {
		return fmt.Errorf("request %q: the byte buckets sum to %d, the body holds %d: accounting lost bytes", rr.RequestID, sum, body)
	}
	a.Requests++
	a.BodyBytes += body
	for i := range a.Events {
		a.Events[i] += res.Counts[i]
	}
	for i := range a.Bytes {
		a.Bytes[i] += res.Bytes[i]
	}
	if perRequest {
		a.Rows = append(a.Rows, eventRow{rr.RequestID, body, res.Counts, res.Bytes})
	}
	return nil
}

func pct(n, d int64) string {
	if d == 0 {
		return "-"
	}
	return strconv.FormatFloat(100*float64(n)/float64(d), 'f', 1, 64) + "%"
}

func (a *eventAccount) writeText(w io.Writer) error {
	fmt.Fprintf(w, "framer %s: %d requests, %d body bytes\n\n", a.Framer, a.Requests, a.BodyBytes)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "bucket\tevents\tbytes\tshare\t\n")
	var sum int64
	for _, b := range replay.Buckets {
		events := "-"
		if int(b) < len(a.Events) {
			events = strconv.Itoa(a.Events[b])
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t\n", b, events, a.Bytes[b], pct(a.Bytes[b], a.BodyBytes))
		sum += a.Bytes[b]
	}
	fmt.Fprintf(tw, "total\t\t%d\t%s\t\n", sum, pct(sum, a.BodyBytes))
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(a.Rows) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nbytes by bucket, per request\n")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "request_id\tbody\t")
	for _, b := range replay.Buckets {
		fmt.Fprintf(tw, "%s\t", b)
	}
	fmt.Fprintln(tw)
	for _, r := range a.Rows {
		fmt.Fprintf(tw, "%s\t%d\t", r.RequestID, r.BodyBytes)
		for _, b := range replay.Buckets {
			fmt.Fprintf(tw, "%d\t", r.Bytes[b])
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

func (a *eventAccount) writeJSON(w io.Writer) error {
	type row struct {
		RequestID string           `json:"request_id"`
		BodyBytes int64            `json:"body_bytes"`
		Events    map[string]int   `json:"events"`
		Bytes     map[string]int64 `json:"bytes"`
	}
	mk := func(id string, body int64, ev replay.EventCounts, by replay.ByteCounts) row {
		r := row{RequestID: id, BodyBytes: body, Events: map[string]int{}, Bytes: map[string]int64{}}
		for _, c := range replay.Classes {
			r.Events[c.String()] = ev[c]
		}
		for _, b := range replay.Buckets {
			r.Bytes[b.String()] = by[b]
		}
		return r
	}
	total := mk("", a.BodyBytes, a.Events, a.Bytes)
	out := struct {
		Framer     replay.Framer    `json:"framer"`
		Requests   int64            `json:"requests"`
		BodyBytes  int64            `json:"body_bytes"`
		Events     map[string]int   `json:"events"`
		Bytes      map[string]int64 `json:"bytes"`
		PerRequest []row            `json:"per_request,omitempty"`
	}{Framer: a.Framer, Requests: a.Requests, BodyBytes: a.BodyBytes, Events: total.Events, Bytes: total.Bytes}
	for _, r := range a.Rows {
		out.PerRequest = append(out.PerRequest, mk(r.RequestID, r.BodyBytes, r.Events, r.Bytes))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
