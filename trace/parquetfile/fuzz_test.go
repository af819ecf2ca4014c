package parquetfile

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/trace"
)

// FuzzOpen feeds arbitrary bytes to the reader as a Parquet file: it must
// end in requests or a *trace.Error, never a panic or an unbounded
// allocation. Panics of the parquet library are recovered and reported as
// "corrupt parquet file (the parquet library failed: ...)"; with
// SSEAUDIT_FUZZ_STRICT=1 those fail the fuzz run, to find them.
func FuzzOpen(f *testing.F) {
	reqs := sampleRequests()
	f.Add(writeTrace(f, reqs, trace.WriteOptions{Extra: allExtras, RowGroupRequests: 2}))
	f.Add(writeTrace(f, reqs, trace.WriteOptions{Extra: allExtras, Layout: trace.Flat, RowGroupRequests: 2}))
	f.Add(writeTrace(f, []trace.Request{{RequestID: "x", T0Ns: 1}}, trace.WriteOptions{}))
	for _, name := range []string{"duckdb-nested.parquet", "duckdb-flat.parquet"} {
		data, err := os.ReadFile(filepath.Join(externalDir, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	// The hostile corpus's Parquet files are seeds too.
	hostile, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "hostile", "*.parquet"))
	if len(hostile) == 0 {
		f.Fatal("no Parquet files in testdata/hostile")
	}
	for _, name := range hostile {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("PAR1\x00\x00\x00\x00PAR1"))
	f.Add([]byte{})
	strict := os.Getenv("SSEAUDIT_FUZZ_STRICT") != ""
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := openReader("fuzz.parquet", bytes.NewReader(data), int64(len(data)), trace.Limits{}, nil)
		if err == nil {
			for r.Scan() {
				if r.Request() == nil {
					t.Fatal("Scan returned true with a nil Request")
				}
			}
			err = r.Err()
			r.Close()
		}
		if err == nil {
			return
		}
		var te *trace.Error
		if !errors.As(err, &te) {
			t.Fatalf("error %T %v: want a *trace.Error", err, err)
		}
		if !strings.HasPrefix(err.Error(), "fuzz.parquet") {
			t.Fatalf("error %q does not name the file", err)
		}
		if strict && strings.Contains(err.Error(), "the parquet library failed") {
			t.Fatalf("recovered panic: %v", err)
		}
	})
}
