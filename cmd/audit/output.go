package main

import (
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/internal/atomicfile"
)

// One rule for every command's output: -o FILE writes the output there
// (atomically) instead of stdout; the format is --format's, else the one
// -o's extension names, else the command's default. A trace written by a
// command (gen, convert, import, split) takes its format the same way from
// --trace-format.

// extensionFormats are the output formats file extensions name.
var extensionFormats = map[string]string{
	".txt": "text", ".text": "text", ".json": "json", ".csv": "csv",
	".md": "markdown", ".markdown": "markdown", ".html": "html", ".htm": "html",
	".jsonl": "jsonl", ".parquet": "parquet",
}

// outputFlags are -o and --format for a command whose formats are formats,
// the first the default.
func outputFlags(usage string, formats ...string) []cli.Flag {
	return []cli.Flag{
		enumFlag("format", formats[0], usage+"; when not given, -o's extension names it", formats...),
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the output to this file (atomically) instead of stdout; its extension names the format (" + extensionsOf(formats) + ")"},
	}
}

// extensionsOf lists the extensions that name formats.
func extensionsOf(formats []string) string {
	var out []string
	for _, f := range formats {
		for ext, g := range extensionFormats {
			if g == f {
				out = append(out, ext+" "+f)
			}
		}
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// outputFormat is the command's output format: --format, else what -o's
// extension names (an extension naming none of the command's formats is a
// usage error), else the default.
func outputFormat(cmd *cli.Command, formats ...string) (string, error) {
	if cmd.IsSet("format") {
		return cmd.String("format"), nil
	}
	path := cmd.String("output")
	ext := strings.ToLower(filepath.Ext(path))
	if path == "" || ext == "" {
		return formats[0], nil
	}
	if f, ok := extensionFormats[ext]; ok {
		for _, g := range formats {
			if g == f {
				return f, nil
			}
		}
	}
	return "", usagef("%s: -o %s: the extension %s names none of the formats %s: give --format", cmd.Name, path, ext, orList(formats))
}

// writeOutput writes the command's output to -o (atomically), else stdout.
func writeOutput(e env, cmd *cli.Command, write func(io.Writer) error) error {
	if path := cmd.String("output"); path != "" {
		return atomicfile.WriteFile(path, write)
	}
	return write(e.stdout)
}
