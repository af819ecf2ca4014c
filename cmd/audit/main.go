// Command audit replays recorded LLM streaming benchmarks byte for byte and
// audits the numbers they produce. See the README for every command.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/trace"
	_ "github.com/sseaudit/sseaudit/trace/arrowfile"
	_ "github.com/sseaudit/sseaudit/trace/parquetfile"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// Exit codes are a contract.
const (
	exitOK          = 0
	exitFailure     = 1 // bad input or a failure
	exitUsage       = 2 // bad flags or arguments
	exitDiscrepancy = 3 // ran fine, found discrepancies (check)
)

func main() {
	os.Exit(run(os.Stdout, os.Stderr, os.Args))
}

// env is what a command needs from the world, so that tests can give it.
type env struct {
	stdout, stderr io.Writer
	stdin          io.Reader
}

// usageError is a mistake in how the command was called (exit 2).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// actionError marks errors raised by a command's action (exit 1), as
// against flag parsing errors from cli (exit 2).
type actionError struct {
	err error
}

func (e *actionError) Error() string { return e.err.Error() }
func (e *actionError) Unwrap() error { return e.err }

// exitCode lets an action end with a code other than 1 (check's 3).
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit %d", int(e)) }

func run(stdout, stderr io.Writer, args []string) int {
	return runEnv(env{stdout: stdout, stderr: stderr, stdin: os.Stdin}, args)
}

func runEnv(e env, args []string) int {
	app := newApp(e)
	err := app.Run(context.Background(), args)
	if err == nil {
		return exitOK
	}
	var code exitCode
	if errors.As(err, &code) {
		return int(code)
	}
	var ue *usageError
	var ae *actionError
	switch {
	case errors.As(err, &ue):
		fmt.Fprintf(e.stderr, "audit: %v\n", ue)
		fmt.Fprintf(e.stderr, "run 'audit --help' or 'audit COMMAND --help' for usage\n")
		return exitUsage
	case errors.As(err, &ae):
		fmt.Fprintf(e.stderr, "audit: %v\n", ae.err)
		return exitFailure
	default:
		// Flag parsing and unknown commands come from cli.
		fmt.Fprintf(e.stderr, "audit: %v\n", err)
		fmt.Fprintf(e.stderr, "run 'audit --help' or 'audit COMMAND --help' for usage\n")
		return exitUsage
	}
}

// action wraps a command's action so its errors are told from cli's own.
func action(f func(ctx context.Context, cmd *cli.Command) error) cli.ActionFunc {
	return func(ctx context.Context, cmd *cli.Command) error {
		err := f(ctx, cmd)
		if err == nil {
			return nil
		}
		var ue *usageError
		var code exitCode
		if errors.As(err, &ue) || errors.As(err, &code) {
			return err
		}
		return &actionError{err: err}
	}
}

func newApp(e env) *cli.Command {
	onUsageError := func(_ context.Context, _ *cli.Command, err error, _ bool) error {
		return &usageError{err.Error()}
	}
	app := &cli.Command{
		Name:    "audit",
		Usage:   "replay recorded LLM streaming benchmarks byte for byte and audit their numbers",
		Version: version,
		Description: `sseaudit keeps the raw evidence of a streaming benchmark — every SSE byte with its
arrival time — and replays it deterministically.

Exit codes: 0 ok, 1 bad input or failure, 2 usage, 3 discrepancies found (check).`,
		Writer:    e.stdout,
		ErrWriter: e.stderr,
		// Errors are printed by runEnv, and never end the process here.
		ExitErrHandler:  func(context.Context, *cli.Command, error) {},
		HideHelpCommand: true,
		OnUsageError:    onUsageError,
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Present() {
				return usagef("unknown command %q", cmd.Args().First())
			}
			return cli.ShowRootCommandHelp(cmd)
		},
		Commands: []*cli.Command{
			// Auditing a trace, then an AISBench run, then traces themselves.
			reportCommand(e),
			itlCommand(e),
			whatifCommand(e),
			replayCommand(e),
			mergeCommand(e),
			eventsCommand(e),
			checkCommand(e),
			importCommand(e),
			inspectCommand(e),
			convertCommand(e),
			genCommand(e),
			serveCommand(e),
			captureCommand(e),
		},
	}
	for _, c := range app.Commands {
		c.OnUsageError = onUsageError
	}
	return app
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
