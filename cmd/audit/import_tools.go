package main

import (
	"fmt"
	"strconv"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/importer/crosscheck"
	"github.com/sseaudit/sseaudit/trace/importer/sourcefile"
)

// imported is what the importers of other tools' exports (genai-perf,
// aiperf, vllm, sglang) give: requests in send order, the run's metadata,
// what the import did (notes: what the file lost, what was left out) and,
// once every request is read, the tool's own summary beside the same
// figures from the imported requests.
type imported interface {
	Scan() bool
	Request() *trace.Request
	Err() error
	Meta() trace.Meta
	Notes() []string
	// Check is nil when there is no summary to compare with.
	Check() *crosscheck.Comparison
}

// openSource opens an importer's input file.
var openSource = sourcefile.Open

// importRun is --run (0 when not given) for the importers of files with
// appended runs.
func importRun(cmd *cli.Command, flags ...string) (int, error) {
	for _, f := range append([]string{"run"}, flags...) {
		if cmd.IsSet(f) {
			r := int(cmd.Int(f))
			if r < 1 {
				return 0, usagef("import: --%s %d: want a run number from 1", f, r)
			}
			return r, nil
		}
	}
	return 0, nil
}

// writeImported writes what s yields to out and reports on stderr: the
// importer's notes, the requests written, and how the tool's own summary
// compares with the imported trace. A --max-concurrency given on the
// command line overrides the file's.
func writeImported(e env, cmd *cli.Command, tool, src, out string, extra []trace.ExtraColumn, s imported) error {
	c, err := importMaxConcurrency(cmd)
	if err != nil {
		return err
	}
	meta := s.Meta()
	if c > 0 {
		meta.Set(trace.KeyMaxConcurrency, strconv.Itoa(c))
	}
	for _, n := range s.Notes() {
		fmt.Fprintf(e.stderr, "audit: note: %s\n", n)
	}
	if _, ok := meta.Get(trace.KeyMaxConcurrency); !ok {
		fmt.Fprintf(e.stderr, "audit: warning: %s: no max concurrency in the file and no --max-concurrency: the trace has no %s (the stable stage will need it)\n", src, trace.KeyMaxConcurrency)
	}
	w, err := trace.Create(out, cmd.String("trace-format"), e.stdout, trace.WriteOptions{Meta: meta, Extra: extra})
	if err != nil {
		return fmt.Errorf("%s: %w", out, err)
	}
	n, failed := 0, 0
	for s.Scan() {
		r := s.Request()
		if err := w.Write(r); err != nil {
			w.Abort()
			return fmt.Errorf("%s: %w", out, err)
		}
		n++
		if r.Failed() {
			failed++
		}
	}
	if err := s.Err(); err != nil {
		w.Abort()
		return err
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("%s: %w", out, err)
	}
	fmt.Fprintf(e.stderr, "audit: imported %d requests (%d failed) from %s (%s) into %s\n", n, failed, src, tool, out)
	if n > 0 && failed == n {
		fmt.Fprintf(e.stderr, "audit: warning: %s: every request failed\n", src)
	}
	if cmp := s.Check(); cmp != nil {
		level := "note"
		if len(cmp.Differing()) > 0 {
			level = "warning"
		}
		fmt.Fprintf(e.stderr, "audit: %s: %s\n", level, cmp)
	}
	return nil
}
