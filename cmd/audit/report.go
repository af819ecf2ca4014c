package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/trace"
)

func reportCommand(e env) *cli.Command {
	return &cli.Command{
		Name:      "report",
		Usage:     "AISBench's results for the whole (total) and native (stable) stages, from the raw bytes",
		ArgsUsage: "TRACE",
		Description: `Replays every request as AISBench's client would have (--framer aisbench), then
computes AISBench's two stages exactly as its Default and Stable calculators do:
the same statistics, rounding, N, stage durations and stable window.

With --aisbench-out DIR it writes DIR/total.csv, DIR/total.json, DIR/stable.csv and
DIR/stable.json: byte for byte what AISBench writes as <ds>.csv and <ds>.json for
those requests. A stage AISBench could not compute (no stable stage, every request
failed) gets DIR/<stage>.error with AISBench's message instead, and a warning; the
command still exits 0 when the other stage has numbers.

The max concurrency C comes from the trace's sseaudit.max_concurrency, or from
--max-concurrency, which overrides it; the stable stage needs it.

Arguments:
  TRACE   a trace file

Examples:
  audit report testdata/traces/basic.parquet
  audit report --format json testdata/traces/basic.jsonl
  audit report --aisbench-out /tmp/aisbench testdata/traces/basic.arrow`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "format", Value: "text", Usage: "output: text or json"},
			&cli.StringFlag{Name: "aisbench-out", Usage: "write AISBench's result files for both stages into this folder"},
			&cli.IntFlag{Name: "max-concurrency", Usage: "the configured max concurrency C (overrides the trace's metadata)"},
			&cli.StringFlag{Name: "stats", Usage: "AISBench's statistics columns, comma-separated (default Average,Min,Max,Median,P75,P90,P99)"},
			framerFlag(),
			traceFormatFlag("in-format"),
		}, limitFlags()...),
		Action: action(func(ctx context.Context, cmd *cli.Command) error {
			path, err := oneArg(cmd, "TRACE")
			if err != nil {
				return err
			}
			out := cmd.String("format")
			if out != "text" && out != "json" {
				return usagef("report: --format %q: want text or json", out)
			}
			framer, err := framerFrom(cmd)
			if err != nil {
				return err
			}
			var stats []string
			if s := cmd.String("stats"); s != "" {
				stats = strings.Split(s, ",")
			}
			r, err := openTrace(e, cmd, path, "in-format")
			if err != nil {
				return err
			}
			defer r.Close()
			c, err := maxConcurrency(cmd, r.Info())
			if err != nil {
				return err
			}
			b := audit.NewBuilder(audit.Config{MaxConcurrency: c, Stats: stats})
			err = replayEach(r, framer, func(_ *trace.Request, res *replay.Result) error {
				b.Add(audit.RecordFromReplay(res))
				return nil
			})
			if err != nil {
				return err
			}
			rep, err := b.Finalize()
			if err != nil {
				return err
			}
			if dir := cmd.String("aisbench-out"); dir != "" {
				if err := writeAISBenchFiles(e, rep, dir); err != nil {
					return err
				}
			}
			if out == "json" {
				return rep.WriteJSON(e.stdout)
			}
			return rep.WriteText(e.stdout)
		}),
	}
}

// maxConcurrency is --max-concurrency, else the trace's metadata. The stable
// stage cannot be computed without it: a usage error.
func maxConcurrency(cmd *cli.Command, info trace.Info) (int, error) {
	if cmd.IsSet("max-concurrency") {
		c := cmd.Int("max-concurrency")
		if c < 1 {
			return 0, usagef("%s: --max-concurrency %d: want a positive integer", cmd.Name, c)
		}
		return c, nil
	}
	c, ok, err := info.Meta.MaxConcurrency()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", info.Path, err)
	}
	if !ok {
		return 0, usagef("%s: %s has no %s: give --max-concurrency C (the stable stage needs it)", cmd.Name, info.Path, trace.KeyMaxConcurrency)
	}
	return c, nil
}

// writeAISBenchFiles writes <stage>.csv and <stage>.json, or <stage>.error,
// for both stages. Stale files of the other kind are removed, so the folder
// always describes this run alone.
func writeAISBenchFiles(e env, rep *audit.Report, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	failed := 0
	for _, st := range audit.Stages {
		base := filepath.Join(dir, string(st))
		if msg := rep.StageError(st); msg != "" {
			failed++
			fmt.Fprintf(e.stderr, "audit: warning: %s stage: %s (wrote %s.error)\n", st, msg, base)
			if err := writeFileAtomic(base+".error", func(w io.Writer) error { return rep.WriteAISBenchError(w, st) }); err != nil {
				return err
			}
			removeIfExists(base+".csv", base+".json")
			continue
		}
		if err := writeFileAtomic(base+".csv", func(w io.Writer) error { return rep.WriteAISBenchCSV(w, st) }); err != nil {
			return err
		}
		if err := writeFileAtomic(base+".json", func(w io.Writer) error { return rep.WriteAISBenchJSON(w, st) }); err != nil {
			return err
		}
		removeIfExists(base + ".error")
	}
	if failed == len(audit.Stages) {
		return errors.New("AISBench would have computed neither stage (see the .error files)")
	}
	return nil
}

func removeIfExists(paths ...string) {
	for _, p := range paths {
		os.Remove(p)
	}
}

// writeFileAtomic renders into memory, then writes a temporary file and
// renames it into place.
func writeFileAtomic(path string, render func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}
