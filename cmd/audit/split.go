package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/trace"
)

func splitCommand(e env) *cli.Command {
	return &cli.Command{
		Name:      "split",
		Usage:     "cut a trace into parts of consecutive requests, to replay them apart and merge the tables",
		ArgsUsage: "TRACE -o DIR",
		Description: `Writes the requests of TRACE, in trace order, into DIR/part-0001-of-000N.EXT
and on: --parts N parts of equal size (the first ones one request larger when
N does not divide the count; the trace is read twice), or parts of --requests K
requests each (read once). Every part keeps the trace's metadata (the max
concurrency C among it) and extra columns, so that replaying each part to its
tables (audit replay --format parquet -o) and merging them (audit merge, in
the order of the parts' numbers) gives, byte for byte, what audit report TRACE
gives: the stable stage is computed over the merged requests, not per part.
The examples below do it for a bundled trace.

The parts' names are printed, one a line. A part is written atomically; parts
of this split already in DIR are replaced, and DIR holding parts of another
split is an error (merging both would count requests twice).

Arguments:
  TRACE   the trace to cut (a file: --parts reads it twice)

Examples:
  audit split --parts 2 -o /tmp/parts testdata/traces/basic.parquet
  audit replay --format parquet -o /tmp/parts/t1 /tmp/parts/part-0001-of-0002.parquet
  audit replay --format parquet -o /tmp/parts/t2 /tmp/parts/part-0002-of-0002.parquet
  audit merge /tmp/parts/t1 /tmp/parts/t2
  audit split --requests 4 --trace-format jsonl -o /tmp/parts-jsonl testdata/traces/basic.parquet`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "the directory to write the parts into (made if missing; required)"},
			&cli.IntFlag{Name: "parts", Usage: "cut into this many parts of equal size"},
			&cli.Int64Flag{Name: "requests", Usage: "cut into parts of this many requests (the last may hold fewer)"},
			enumFlag("trace-format", "", "the parts' trace format: "+strings.Join(trace.Formats(), ", ")+" (default: the input's)", trace.Formats()...),
			enumFlag("layout", "", "the parts' layout: nested or flat (Parquet and Arrow only; default: the input's)", string(trace.Nested), string(trace.Flat)),
			&cli.Int64Flag{Name: "row-group-requests", Usage: "requests a Parquet row group or Arrow batch holds at most (default 1024)"},
			traceFormatFlag("in-format"),
			runMetaFlag(),
		}, limitFlags()...),
		Action: action(func(ctx context.Context, cmd *cli.Command) error {
			path, err := oneArg(cmd, "TRACE")
			if err != nil {
				return err
			}
			dir := cmd.String("output")
			parts, per := cmd.Int("parts"), cmd.Int64("requests")
			switch {
			case dir == "":
				return usagef("split: missing -o DIR")
			case cmd.IsSet("parts") == cmd.IsSet("requests"):
				return usagef("split: give one of --parts N and --requests K")
			case cmd.IsSet("parts") && parts < 1:
				return usagef("split: --parts %d: want 1 or more", parts)
			case cmd.IsSet("requests") && per < 1:
				return usagef("split: --requests %d: want 1 or more", per)
			case path == "-" && cmd.IsSet("parts"):
				return usagef("split: --parts reads the trace twice: name a file, or give --requests K")
			}
			if cmd.IsSet("parts") {
				n, err := countRequests(e, cmd, path)
				if err != nil {
					return err
				}
				if int64(parts) > n {
					return fmt.Errorf("split: %s holds %d requests: cannot make %d parts", path, n, parts)
				}
				return writeParts(e, cmd, path, dir, parts, equalParts(n, parts))
			}
			return writeParts(e, cmd, path, dir, 0, func(int) int64 { return per })
		}),
	}
}

// countRequests reads the trace once to count its requests.
func countRequests(e env, cmd *cli.Command, path string) (int64, error) {
	r, err := openRawTrace(e, cmd, path, "in-format")
	if err != nil {
		return 0, err
	}
	defer r.Close()
	var n int64
	for r.Scan() {
		n++
	}
	return n, r.Err()
}

// equalParts sizes n requests' parts: the first n%parts one larger.
func equalParts(n int64, parts int) func(int) int64 {
	return func(i int) int64 {
		size := n / int64(parts)
		if int64(i) < n%int64(parts) {
			size++
		}
		return size
	}
}

// partName matches the files split writes.
var partName = regexp.MustCompile(`^part-\d+-of-\d+\.`)

// writeParts copies the trace into parts of size(i) requests each; parts
// is their number when known (--parts), else 0.
func writeParts(e env, cmd *cli.Command, path, dir string, parts int, size func(part int) int64) error {
	r, err := openRawTrace(e, cmd, path, "in-format")
	if err != nil {
		return err
	}
	defer r.Close()
	info := r.Info()
	format := cmd.String("trace-format")
	if format == "" {
		format = info.Format
	}
	f, err := trace.LookupFormat(format, "")
	if err != nil {
		return usagef("split: --trace-format: %v", err)
	}
	layout := trace.Layout(cmd.String("layout"))
	if layout == "" && slices.Contains(f.Layouts, info.Layout) {
		layout = info.Layout
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if parts > 0 { // refuse before writing when the names are known
		if err := foreignPart(dir, partNames(dir, parts, f.Extensions[0])); err != nil {
			return err
		}
	}
	// The number of parts is known up front with --parts; with --requests
	// the parts are numbered as they come and renamed at the end.
	var written []string
	for part := 0; r.Scan(); part++ {
		name := filepath.Join(dir, fmt.Sprintf("part-%04d%s", part+1, f.Extensions[0]))
		w, err := trace.Create(name, f.Name, nil, trace.WriteOptions{
			Meta: info.Meta, Extra: info.Extra, Layout: layout,
			RowGroupRequests: int(cmd.Int64("row-group-requests")),
		})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		n, want := int64(0), size(part)
		for {
			if err := w.Write(r.Request()); err != nil {
				w.Abort()
				return fmt.Errorf("%s: %w", name, err)
			}
			if n++; n == want || !r.Scan() {
				break
			}
		}
		if err := w.Close(); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		written = append(written, name)
		if n < want {
			break
		}
	}
	if err := r.Err(); err != nil {
		removeAll(written)
		return err
	}
	if len(written) == 0 {
		return fmt.Errorf("split: %s holds no requests", path)
	}
	// The parts get their final names, part-I-of-N, once N is known.
	final := partNames(dir, len(written), f.Extensions[0])
	if err := foreignPart(dir, final); err != nil {
		removeAll(written)
		return err
	}
	for i, p := range written {
		if err := os.Rename(p, final[i]); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, final[i])
	}
	return nil
}

// partNames are the files of a split into n parts.
func partNames(dir string, n int, ext string) []string {
	names := make([]string, n)
	digits := max(4, len(fmt.Sprint(n)))
	for i := range names {
		names[i] = filepath.Join(dir, fmt.Sprintf("part-%0*d-of-%0*d%s", digits, i+1, digits, n, ext))
	}
	return names
}

// foreignPart is an error when dir holds a part of another split than the
// one of names.
func foreignPart(dir string, names []string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, d := range entries {
		if partName.MatchString(d.Name()) && !slices.Contains(names, filepath.Join(dir, d.Name())) {
			return fmt.Errorf("split: %s holds %s, a part of another split: merging both would count requests twice; remove it or choose another -o", dir, d.Name())
		}
	}
	return nil
}

func removeAll(paths []string) {
	for _, p := range paths {
		os.Remove(p)
	}
}
