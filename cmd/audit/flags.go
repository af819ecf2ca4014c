package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/trace"
)

// Flags and arguments the commands share, each read in one place.

// enumFlag is a string flag that takes one of choices: cli refuses any
// other value (exit 2), naming the choices.
func enumFlag(name, value, usage string, choices ...string) *cli.StringFlag {
	return &cli.StringFlag{Name: name, Value: value, Usage: usage, Validator: func(v string) error {
		for _, c := range choices {
			if v == c {
				return nil
			}
		}
		return fmt.Errorf("want %s", orList(choices))
	}}
}

// orList is "a", "a or b", "a, b or c".
func orList(xs []string) string {
	if len(xs) == 1 {
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}

// formatFlag is the --format of a command that writes text or JSON.
func formatFlag() *cli.StringFlag {
	return enumFlag("format", "text", "output: text or json", "text", "json")
}

func framerFlag() *cli.StringFlag {
	return enumFlag("framer", string(replay.AISBench),
		"how the body is cut into events: aisbench (AISBench's client to the letter) or sse (the WHATWG parser)",
		string(replay.AISBench), string(replay.SSE))
}

// recordOptions are the record.Options of a command: its --framer and
// --max-event-bytes.
func recordOptions(cmd *cli.Command) record.Options {
	return record.Options{Framer: replay.Framer(cmd.String("framer")), MaxEventBytes: limitsFrom(cmd).MaxEventBytes}
}

// traceFormatFlag overrides the input format the extension implies.
func traceFormatFlag(name string) *cli.StringFlag {
	return &cli.StringFlag{
		Name:  name,
		Usage: "input trace format: " + strings.Join(trace.Formats(), ", ") + " (default: from the extension)",
	}
}

// limitFlags are the reader limits, with their defaults.
func limitFlags() []cli.Flag {
	d := trace.DefaultLimits
	return []cli.Flag{
		&cli.Int64Flag{Name: "max-chunk-bytes", Value: d.MaxChunkBytes, Usage: "largest chunk a trace may hold"},
		&cli.Int64Flag{Name: "max-requests", Value: d.MaxRequests, Usage: "most requests a trace may hold"},
		&cli.Int64Flag{Name: "max-grouping-rows", Value: d.MaxGroupingRows, Usage: "most rows held in memory to group a flat file whose requests are not contiguous"},
		&cli.Int64Flag{Name: "max-event-bytes", Value: d.MaxEventBytes, Usage: "largest event payload replay parses"},
	}
}

func limitsFrom(cmd *cli.Command) trace.Limits {
	return trace.Limits{
		MaxChunkBytes:   cmd.Int64("max-chunk-bytes"),
		MaxRequests:     cmd.Int64("max-requests"),
		MaxGroupingRows: cmd.Int64("max-grouping-rows"),
		MaxEventBytes:   cmd.Int64("max-event-bytes"),
	}
}

// oneArg returns the command's single positional argument.
func oneArg(cmd *cli.Command, what string) (string, error) {
	switch cmd.Args().Len() {
	case 1:
		return cmd.Args().First(), nil
	case 0:
		return "", usagef("%s: missing %s", cmd.Name, what)
	default:
		return "", usagef("%s: want one %s, got %d arguments: %s", cmd.Name, what, cmd.Args().Len(), strings.Join(cmd.Args().Slice(), " "))
	}
}

// openTrace opens the trace named on the command line.
func openTrace(e env, cmd *cli.Command, path, formatFlag string) (trace.Reader, error) {
	if _, err := trace.LookupFormat(cmd.String(formatFlag), path); err != nil {
		return nil, usagef("%s: %v", cmd.Name, err)
	}
	return trace.Open(path, trace.OpenOptions{Format: cmd.String(formatFlag), Limits: limitsFrom(cmd), Stdin: e.stdin})
}

// maxConcurrency is --max-concurrency, else the trace's metadata (info):
// the one reader of C. A malformed value is an error naming the file; an
// absent one is a usage error when need is set (the stable stage needs C),
// else 0.
func maxConcurrency(cmd *cli.Command, info trace.Info, need bool) (int, error) {
	if c, err := maxConcurrencyFlag(cmd); c != 0 || err != nil {
		return c, err
	}
	c, ok, err := info.Meta.MaxConcurrency()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", info.Path, err)
	}
	if !ok && need {
		return 0, usagef("%s: %s has no %s: give --max-concurrency C (the stable stage needs it)", cmd.Name, info.Path, trace.KeyMaxConcurrency)
	}
	return c, nil
}

// maxConcurrencyFlag is --max-concurrency, 0 when not given.
func maxConcurrencyFlag(cmd *cli.Command) (int, error) {
	if !cmd.IsSet("max-concurrency") {
		return 0, nil
	}
	c := cmd.Int("max-concurrency")
	if c < 1 {
		return 0, usagef("%s: --max-concurrency %d: want a positive integer", cmd.Name, c)
	}
	return c, nil
}
