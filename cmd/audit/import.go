package main

import (
	"context"
	"sort"
	"strings"

	"github.com/urfave/cli/v3"
)

// An importer turns another tool's files into a trace. Each lives in its own
// file (import_<name>.go) and registers itself in an init function.
type importer struct {
	name  string // the --from value
	usage string // one line for --help: what it reads and what it loses
	// flags makes the importer's own flags (fresh for every app, since a
	// flag keeps what it parsed); names must not collide with another
	// importer's: prefix them with the importer's name.
	flags func() []cli.Flag
	// run reads src and writes the trace to out (through trace.Create, so a
	// failure leaves nothing half-written).
	run func(ctx context.Context, e env, cmd *cli.Command, src, out string) error
}

var importers = map[string]*importer{}

func registerImporter(im *importer) {
	if _, dup := importers[im.name]; dup {
		panic("duplicate importer " + im.name)
	}
	importers[im.name] = im
}

func importerNames() []string {
	var names []string
	for n := range importers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func importCommand(e env) *cli.Command {
	var flags []cli.Flag
	var lines []string
	for _, n := range importerNames() {
		im := importers[n]
		if im.flags != nil {
			flags = append(flags, im.flags()...)
		}
		lines = append(lines, "  "+n+"\t"+im.usage)
	}
	return &cli.Command{
		Name:      "import",
		Usage:     "make a trace from another tool's files",
		ArgsUsage: "--from TOOL SRC -o TRACE",
		Description: `Reads what another benchmark tool left behind and writes a trace, with what the
tool's files allow (each importer says what they lose).

Importers (--from):
` + strings.Join(lines, "\n"),
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "from", Usage: "the tool that wrote SRC: " + strings.Join(importerNames(), ", ")},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "the trace to write (required)"},
			traceOutFlag(),
			&cli.IntFlag{Name: "max-concurrency", Usage: "the configured max concurrency C (overrides what the files say)"},
			&cli.IntFlag{Name: "run", Usage: "vllm, sglang: the run (1-based) to import from a file of several appended runs"},
		}, flags...),
		Action: action(func(ctx context.Context, cmd *cli.Command) error {
			src, err := oneArg(cmd, "SRC")
			if err != nil {
				return err
			}
			im, ok := importers[cmd.String("from")]
			if !ok {
				return usagef("import: --from %q: want one of %s", cmd.String("from"), strings.Join(importerNames(), ", "))
			}
			out := cmd.String("output")
			if out == "" {
				return usagef("import: missing -o TRACE")
			}
			return im.run(ctx, e, cmd, src, out)
		}),
	}
}

// importMaxConcurrency is --max-concurrency: 0 when not given.
func importMaxConcurrency(cmd *cli.Command) (int, error) {
	if !cmd.IsSet("max-concurrency") {
		return 0, nil
	}
	c := cmd.Int("max-concurrency")
	if c < 1 {
		return 0, usagef("import: --max-concurrency %d: want a positive integer", c)
	}
	return c, nil
}
