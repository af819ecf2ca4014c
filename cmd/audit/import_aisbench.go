package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v3"

	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/importer/aisbench"
)

func init() {
	registerImporter(&importer{
		name: "aisbench",
		usage: "an AISBench work_dir (performances/<model>: <ds>_details.jsonl, db_data/*.db, tmp/ of a cut-short run, <ds>_failed.jsonl): " +
			"time_points_s, token counts, success or error_info; no bytes (--model, --dataset, --max-concurrency, --allow-dangling)",
		flags: func() []cli.Flag {
			return []cli.Flag{
				&cli.StringFlag{Name: "aisbench-model", Aliases: []string{"model"}, Usage: "aisbench: the model folder, when the work_dir holds several"},
				&cli.StringFlag{Name: "aisbench-dataset", Aliases: []string{"dataset"}, Usage: "aisbench: the dataset abbreviation, when the folder holds several"},
				&cli.BoolFlag{Name: "aisbench-allow-dangling", Aliases: []string{"allow-dangling"}, Usage: "aisbench: a record whose time points are missing from its database is a failed request (AISBench's summarizer does this) rather than an error"},
			}
		},
		run: importAISBench,
	})
}

// loadAISBench loads the run named on the command line, with the importer's flags.
func loadAISBench(cmd *cli.Command, dir string) (*aisbench.Run, int, error) {
	c, err := importMaxConcurrency(cmd)
	if err != nil {
		return nil, 0, err
	}
	run, err := aisbench.Load(dir, aisbench.Options{
		Model:         cmd.String("aisbench-model"),
		Dataset:       cmd.String("aisbench-dataset"),
		AllowDangling: cmd.Bool("aisbench-allow-dangling"),
	})
	return run, c, err
}

func importAISBench(_ context.Context, e env, cmd *cli.Command, src, out string) error {
	run, c, err := loadAISBench(cmd, src)
	if err != nil {
		return err
	}
	if c == 0 && run.MaxConcurrency == 0 {
		fmt.Fprintf(e.stderr, "audit: warning: %s: no <ds>.json with Max Concurrency and no --max-concurrency: the trace has no %s (the stable stage will need it)\n", run.Dir, trace.KeyMaxConcurrency)
	}
	for _, n := range run.Notes {
		fmt.Fprintf(e.stderr, "audit: note: %s\n", n)
	}
	w, err := trace.Create(out, cmd.String("trace-format"), e.stdout, trace.WriteOptions{Meta: run.Meta(c), Extra: aisbench.ExtraColumns})
	if err != nil {
		return err
	}
	if err := run.WriteTrace(w); err != nil {
		w.Abort()
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	failed := 0
	for i := range run.Records {
		if run.Records[i].Failed() {
			failed++
		}
	}
	fmt.Fprintf(e.stderr, "audit: imported %d requests (%d failed) of %s/%s from %s into %s\n", len(run.Records), failed, run.Model, run.Dataset, run.Dir, out)
	return nil
}
