package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/tracegen"
)

// genBenchTrace writes a chat trace of n requests into dir with tracegen,
// as `audit gen --profile chat --concurrency 64 --seed 1` does.
func genBenchTrace(b *testing.B, dir string, n, outputTokens int) (path string, bodyBytes int64) {
	b.Helper()
	o := tracegen.Options{Profile: "chat", Requests: n, Concurrency: 64, Seed: 1, OutputTokens: outputTokens}
	meta, err := tracegen.Meta(o)
	if err != nil {
		b.Fatal(err)
	}
	path = filepath.Join(dir, "bench.parquet")
	w, err := trace.Create(path, "", io.Discard, trace.WriteOptions{Meta: meta, Extra: tracegen.Extra()})
	if err != nil {
		b.Fatal(err)
	}
	st, err := tracegen.Generate(o, w)
	if err != nil {
		w.Abort()
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return path, st.BodyBytes
}

// BenchmarkReport is the whole `audit report` pipeline (read, replay with
// both framers, records, Finalize, text rendering) on a generated trace of
// 1,000 chat requests of 256 output tokens (about 50 MB of body).
// SSEAUDIT_BENCH_TRACE names another trace to run on instead (the 1 GB
// trace of docs/performance.md, for profiling).
func BenchmarkReport(b *testing.B) {
	path, body := os.Getenv("SSEAUDIT_BENCH_TRACE"), int64(0)
	if path == "" {
		path, body = genBenchTrace(b, b.TempDir(), 1000, 256)
	}
	for _, format := range []string{"text", "json"} {
		b.Run(format, func(b *testing.B) {
			if body > 0 {
				b.SetBytes(body)
			}
			b.ReportAllocs()
			for b.Loop() {
				if code := run(io.Discard, io.Discard, []string{"audit", "report", "--format", format, path}); code != 0 {
					b.Fatalf("audit report exited %d", code)
				}
			}
		})
	}
}
