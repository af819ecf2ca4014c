// Command audit replays recorded LLM streaming benchmarks byte for byte and
// audits the numbers they produce. See the README for every command.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"

	"github.com/urfave/cli/v3"

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
		if hint := errorHint(ae.err); hint != "" {
			fmt.Fprintf(e.stderr, "audit: %v; %s\n", ae.err, hint) // one line still
		} else {
			fmt.Fprintf(e.stderr, "audit: %v\n", ae.err)
		}
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
	onUsageError := func(_ context.Context, cmd *cli.Command, err error, _ bool) error {
		return &usageError{flagErrorText(cmd, err)}
	}
	app := &cli.Command{
		Name:    "audit",
		Usage:   "replay recorded LLM streaming benchmarks byte for byte and audit their numbers",
		Version: version,
		Description: `sseaudit keeps the raw evidence of a streaming benchmark — every SSE byte with its
arrival time — and replays it deterministically.

Exit codes: 0 ok, 1 bad input or failure, 2 usage, 3 discrepancies found (check, diff --fail-on).`,
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
			toolsCommand(e),
			replayCommand(e),
			mergeCommand(e),
			diffCommand(e),
			eventsCommand(e),
			checkCommand(e),
			importCommand(e),
			inspectCommand(e),
			convertCommand(e),
			splitCommand(e),
			genCommand(e),
			serveCommand(e),
			captureCommand(e),
			tapCommand(e),
			lagCommand(e),
		},
	}
	for _, c := range app.Commands {
		c.OnUsageError = onUsageError
	}
	return app
}

// badFlagValue is how cli says a flag's Validator (enumFlag) refused a value.
var badFlagValue = regexp.MustCompile(`^invalid value ("(?:[^"\\]|\\.)*") for flag -([\w-]+): (.*)$`)

// flagErrorText is cli's message of a usage error, in the form the commands
// use for their own: "report: --format "xml": want text, json, ...".
func flagErrorText(cmd *cli.Command, err error) string {
	m := badFlagValue.FindStringSubmatch(err.Error())
	if m == nil || cmd == nil {
		return err.Error()
	}
	return fmt.Sprintf("%s: --%s %s: %s", cmd.Name, m[2], m[1], m[3])
}
