package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/contentcoding"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/tables"
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

// textOrJSON are the formats of a command that writes text or JSON.
var textOrJSON = []string{"text", "json"}

// formatFlags are -o and --format of a command that writes text or JSON.
func formatFlags() []cli.Flag { return outputFlags("output: text or json", textOrJSON...) }

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
		&cli.Int64Flag{Name: "max-id-bytes", Value: d.MaxIDBytes, Usage: "longest request_id a trace may hold"},
		&cli.Int64Flag{Name: "max-extra-columns", Value: d.MaxExtraColumns, Usage: "most extra columns (keys or columns outside the trace schema) a trace may have"},
	}
}

func limitsFrom(cmd *cli.Command) trace.Limits {
	return trace.Limits{
		MaxChunkBytes:   cmd.Int64("max-chunk-bytes"),
		MaxRequests:     cmd.Int64("max-requests"),
		MaxGroupingRows: cmd.Int64("max-grouping-rows"),
		MaxEventBytes:   cmd.Int64("max-event-bytes"),
		MaxIDBytes:      cmd.Int64("max-id-bytes"),
		MaxExtraColumns: cmd.Int64("max-extra-columns"),
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

// openTrace opens the trace named on the command line, its bodies decoded
// when it says they were recorded encoded (a content_encoding column, as
// audit tap writes).
func openTrace(e env, cmd *cli.Command, path, formatFlag string) (trace.Reader, error) {
	r, err := openRawTrace(e, cmd, path, formatFlag)
	if err != nil {
		return nil, err
	}
	for _, x := range r.Info().Extra {
		if x.Name == contentcoding.Column {
			return contentcoding.NewReader(r), nil
		}
	}
	return r, nil
}

// openRawTrace opens the trace named on the command line, its bodies as
// recorded (convert, split and inspect keep them so).
func openRawTrace(e env, cmd *cli.Command, path, formatFlag string) (trace.Reader, error) {
	if hint := notATrace(path); hint != "" {
		return nil, usagef("%s: %s: %s", cmd.Name, path, hint)
	}
	if _, err := lookupFormat(cmd, formatFlag, path); err != nil {
		return nil, err
	}
	r, err := trace.Open(path, trace.OpenOptions{Format: cmd.String(formatFlag), Limits: limitsFrom(cmd), Stdin: e.stdin})
	if err != nil {
		return nil, err
	}
	withMeta, err := addRunMeta(cmd, r)
	if err != nil {
		r.Close()
		return nil, err
	}
	return withMeta, nil
}

// lookupFormat is the trace format of path: flag's (an input's --in-format,
// an output's --trace-format), else its extension's; a usage error naming
// the flag when neither says.
func lookupFormat(cmd *cli.Command, flag, path string) (*trace.Format, error) {
	f, err := trace.LookupFormat(cmd.String(flag), path)
	switch {
	case err == nil:
		return f, nil
	case cmd.String(flag) != "":
		return nil, usagef("%s: --%s: %v", cmd.Name, flag, err)
	}
	return nil, usagef("%s: %s: cannot tell the trace format from the extension %q: want .parquet, .arrow, .arrows or .jsonl, or give --%s %s",
		cmd.Name, path, filepath.Ext(path), flag, strings.Join(trace.Formats(), "|"))
}

// errorHint is the command that may fix a failure, or "": a trace cut
// inside a record batch is salvaged by capture --salvage.
func errorHint(err error) string {
	var te *trace.Error
	if !errors.Is(err, trace.ErrCut) || !errors.As(err, &te) || te.RowGroup < 0 { // cut inside the schema: nothing to salvage
		return ""
	}
	return fmt.Sprintf("a capture interrupted? 'audit capture --salvage %s -o saved.arrows' keeps every complete batch", te.File)
}

// notATrace says what the file or folder at path is when it is another
// tool's or another command's, and which command reads it: an AISBench
// work_dir or details file, a folder of replay tables. "" when it may be a
// trace.
func notATrace(path string) string {
	st, err := os.Stat(path)
	if err != nil || path == "-" {
		return ""
	}
	aisbenchHint := "this is an AISBench run: read it with 'audit import --from aisbench DIR -o trace.jsonl' (DIR the work_dir or its performances/<model> folder), or check its report with 'audit check --aisbench-dir DIR'"
	if !st.IsDir() {
		if strings.HasSuffix(filepath.Base(path), "_details.jsonl") || looksLikeAISBenchDetails(path) {
			return "is AISBench's details file, not a trace; " + aisbenchHint
		}
		return ""
	}
	has := func(name string) bool {
		_, err := os.Stat(filepath.Join(path, name))
		return err == nil
	}
	switch {
	case has(tables.RequestsFile) && has(tables.EventsFile):
		return "is a folder of replay tables (audit replay --format parquet), not a trace: report on it with 'audit merge " + path + "'"
	case has("performances") || has("predictions") || has("configs"):
		return "is a folder, not a trace; " + aisbenchHint
	}
	if matches, _ := filepath.Glob(filepath.Join(path, "*_details.jsonl")); len(matches) > 0 {
		return "is a folder, not a trace; " + aisbenchHint
	}
	return "is a folder: want a trace file (.parquet, .arrow, .arrows or .jsonl)"
}

// looksLikeAISBenchDetails says whether a .jsonl file's first line is an
// AISBench details record (time points held in its database by reference).
func looksLikeAISBenchDetails(path string) bool {
	if !strings.EqualFold(filepath.Ext(path), ".jsonl") {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	line, _, _ := bytes.Cut(head[:n], []byte("\n"))
	return bytes.Contains(line, []byte(`"__db_ref__"`)) || (bytes.Contains(line, []byte(`"db_name"`)) && bytes.Contains(line, []byte(`"data_abbr"`)))
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

// traceOutFlag is the format of a trace a command writes (gen, convert,
// import, split): named apart from --format, which is a rendered output's.
func traceOutFlag() *cli.StringFlag {
	return enumFlag("trace-format", "", "the trace format to write: "+strings.Join(trace.Formats(), ", ")+" (default: from the extension of -o)", trace.Formats()...)
}
