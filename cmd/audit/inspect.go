package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/trace"
)

func inspectCommand(e env) *cli.Command {
	return &cli.Command{
		Name:      "inspect",
		Usage:     "describe a trace file: format, layout, metadata, requests, chunks, bytes, time span",
		ArgsUsage: "TRACE",
		Description: `Reads the whole trace (streamed, never loaded whole) and checks every rule of the
schema on the way: a file inspect accepts is one every other command can read.

Arguments:
  TRACE   a trace file (.parquet, .arrow, .arrows, .jsonl; - for JSONL on stdin)

Examples:
  audit inspect testdata/traces/basic.parquet
  audit inspect --format json testdata/traces/basic.jsonl`,
		Flags: slices.Concat(formatFlags(), []cli.Flag{
			traceFormatFlag("in-format"),
			runMetaFlag(),
		}, limitFlags()),
		Action: action(func(ctx context.Context, cmd *cli.Command) error {
			path, err := oneArg(cmd, "TRACE")
			if err != nil {
				return err
			}
			out, err := outputFormat(cmd, textOrJSON...)
			if err != nil {
				return err
			}
			r, err := openRawTrace(e, cmd, path, "in-format")
			if err != nil {
				return err
			}
			defer r.Close()
			s, err := summarize(r)
			if err != nil {
				return err
			}
			return writeOutput(e, cmd, func(w io.Writer) error {
				if out == "json" {
					return s.writeJSON(w)
				}
				return s.writeText(w)
			})
		}),
	}
}

// traceSummary is what inspect reports; numbers stay raw until rendering.
type traceSummary struct {
	info           trace.Info
	requests       int64
	failed         int64
	chunks         int64
	bodyBytes      int64
	withTimePoints int64
	firstNs        int64 // earliest t0_ns
	lastNs         int64 // latest end_ns, chunk or time point
	any            bool
}

func summarize(r trace.Reader) (*traceSummary, error) {
	s := &traceSummary{info: r.Info()}
	for r.Scan() {
		q := r.Request()
		s.requests++
		if q.Failed() {
			s.failed++
		}
		s.chunks += int64(len(q.Chunks))
		s.bodyBytes += q.BodyBytes()
		if q.TimePointsS != nil {
			s.withTimePoints++
		}
		last := q.T0Ns
		if n := len(q.Chunks); n > 0 {
			last = max(last, q.Chunks[n-1].TNs)
		}
		if q.EndNs != nil {
			last = max(last, *q.EndNs)
		}
		if !s.any || q.T0Ns < s.firstNs {
			s.firstNs = q.T0Ns
		}
		if !s.any || last > s.lastNs {
			s.lastNs = last
		}
		s.any = true
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	s.info = r.Info() // grouping notes appear once the file is read
	if note := lostRunMeta(s.info.Meta); note != "" {
		s.info.Notes = append(slices.Clone(s.info.Notes), note)
	}
	return s, nil
}

func (s *traceSummary) schemaVersion() string {
	if v, ok := s.info.Meta.Get(trace.KeySchemaVersion); ok {
		return v
	}
	return trace.SchemaVersion + " (assumed)"
}

func (s *traceSummary) writeText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, format string, args ...any) { fmt.Fprintf(tw, "%s\t%s\n", k, fmt.Sprintf(format, args...)) }
	row("file", "%s", s.info.Path)
	row("format", "%s, %s layout", s.info.Format, s.info.Layout)
	row("schema version", "%s", s.schemaVersion())
	if mc, ok, err := s.info.Meta.MaxConcurrency(); ok && err == nil {
		row("max concurrency", "%d", mc)
	} else {
		row("max concurrency", "unknown (no %s)", trace.KeyMaxConcurrency)
	}
	row("requests", "%d", s.requests)
	row("failed requests", "%d (client error, no response or HTTP status other than 200)", s.failed)
	row("chunks", "%d", s.chunks)
	row("body bytes", "%d", s.bodyBytes)
	if s.withTimePoints > 0 {
		row("with time_points_s", "%d requests", s.withTimePoints)
	}
	if s.any {
		row("time span", "%s s (earliest t0_ns %d to the last chunk or end_ns %d)",
			strconv.FormatFloat(float64(s.lastNs-s.firstNs)/1e9, 'f', 3, 64), s.firstNs, s.lastNs)
	} else {
		row("time span", "none (no requests)")
	}
	if len(s.info.Extra) > 0 {
		var cols []string
		for _, c := range s.info.Extra {
			cols = append(cols, c.Name+" ("+c.Kind.String()+")")
		}
		row("extra columns", "%s", strings.Join(cols, ", "))
	}
	for _, kv := range s.info.Meta {
		if kv.Key == trace.KeySchemaVersion || kv.Key == trace.KeyMaxConcurrency {
			continue
		}
		row("metadata", "%s = %s", kv.Key, kv.Value)
	}
	for _, n := range s.info.Notes {
		row("note", "%s", n)
	}
	return tw.Flush()
}

func (s *traceSummary) writeJSON(w io.Writer) error {
	type extra struct {
		Name string `json:"name"`
		Kind string `json:"kind"`
	}
	out := struct {
		File           string            `json:"file"`
		Format         string            `json:"format"`
		Layout         trace.Layout      `json:"layout"`
		SchemaVersion  string            `json:"schema_version"`
		Metadata       map[string]string `json:"metadata"`
		MaxConcurrency *int              `json:"max_concurrency"`
		Requests       int64             `json:"requests"`
		FailedRequests int64             `json:"failed_requests"`
		Chunks         int64             `json:"chunks"`
		BodyBytes      int64             `json:"body_bytes"`
		WithTimePoints int64             `json:"requests_with_time_points"`
		FirstNs        *int64            `json:"first_t0_ns"`
		LastNs         *int64            `json:"last_ns"`
		SpanNs         *int64            `json:"span_ns"`
		ExtraColumns   []extra           `json:"extra_columns"`
		Regrouped      bool              `json:"regrouped"`
		Notes          []string          `json:"notes"`
	}{
		File: s.info.Path, Format: s.info.Format, Layout: s.info.Layout,
		SchemaVersion: trace.SchemaVersion, Metadata: map[string]string{},
		Requests: s.requests, FailedRequests: s.failed, Chunks: s.chunks, BodyBytes: s.bodyBytes,
		WithTimePoints: s.withTimePoints, ExtraColumns: []extra{}, Regrouped: s.info.Regrouped, Notes: s.info.Notes,
	}
	if v, ok := s.info.Meta.Get(trace.KeySchemaVersion); ok {
		out.SchemaVersion = v
	}
	for _, kv := range s.info.Meta {
		out.Metadata[kv.Key] = kv.Value
	}
	if mc, ok, err := s.info.Meta.MaxConcurrency(); ok && err == nil {
		out.MaxConcurrency = &mc
	}
	if s.any {
		span := s.lastNs - s.firstNs
		out.FirstNs, out.LastNs, out.SpanNs = &s.firstNs, &s.lastNs, &span
	}
	for _, c := range s.info.Extra {
		out.ExtraColumns = append(out.ExtraColumns, extra{c.Name, c.Kind.String()})
	}
	if out.Notes == nil {
		out.Notes = []string{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
