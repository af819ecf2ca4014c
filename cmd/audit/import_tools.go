package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/trace"
)

// scanner is what the importers of other tools' exports (genai-perf, aiperf,
// vllm, sglang) give: requests in send order.
type scanner interface {
	Scan() bool
	Request() *trace.Request
	Err() error
}

// openSource opens an importer's input file.
func openSource(src string) (*os.File, error) {
	f, err := os.Open(src)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s: is a directory: want a file", src)
	}
	return f, nil
}

// writeImported writes what s yields to out and reports on stderr. A
// --max-concurrency given on the command line overrides the file's.
func writeImported(e env, cmd *cli.Command, tool, src, out string, meta trace.Meta, extra []trace.ExtraColumn, s scanner) error {
	c, err := importMaxConcurrency(cmd)
	if err != nil {
		return err
	}
	if c > 0 {
		meta.Set(trace.KeyMaxConcurrency, strconv.Itoa(c))
	}
	if _, ok := meta.Get(trace.KeyMaxConcurrency); !ok {
		fmt.Fprintf(e.stderr, "audit: warning: %s: no max concurrency in the file and no --max-concurrency: the trace has no %s (the stable stage will need it)\n", src, trace.KeyMaxConcurrency)
	}
	w, err := trace.Create(out, "", e.stdout, trace.WriteOptions{Meta: meta, Extra: extra})
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
	return nil
}
