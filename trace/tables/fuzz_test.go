package tables_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/record/partial"
	"github.com/sseaudit/sseaudit/trace"
	"github.com/sseaudit/sseaudit/trace/tables"
)

// FuzzReader feeds arbitrary bytes to the reader as the two tables: it must
// end in records or a *trace.Error naming a file, never a panic or an
// unbounded allocation. Panics of the parquet library are recovered and
// reported as "corrupt parquet file (the parquet library failed: ...)";
// with SSEAUDIT_FUZZ_STRICT=1 those fail the fuzz run, to find them.
func FuzzReader(f *testing.F) {
	dir := writeTables(f, replayed(f, "../../testdata/traces/basic.parquet"), testMeta)
	requests, err := os.ReadFile(filepath.Join(dir, tables.RequestsFile))
	if err != nil {
		f.Fatal(err)
	}
	events, err := os.ReadFile(filepath.Join(dir, tables.EventsFile))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(requests, events)
	f.Add(events, requests)
	f.Add(requests[:len(requests)/2], events)
	f.Add([]byte("PAR1\x00\x00\x00\x00PAR1"), events)
	f.Add([]byte{}, []byte{})
	strict := os.Getenv("SSEAUDIT_FUZZ_STRICT") != ""
	f.Fuzz(func(t *testing.T, requests, events []byte) {
		r, err := tables.ReaderOfBytes(requests, events)
		if err == nil {
			for r.Scan() {
				if partial.Record(r.Request(), r.Events()).ID == "" {
					t.Fatal("Scan returned a record without an id")
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
		if !strings.HasPrefix(err.Error(), "requests.parquet") && !strings.HasPrefix(err.Error(), "events.parquet") {
			t.Fatalf("error %q does not name the file", err)
		}
		if strict && strings.Contains(err.Error(), "the parquet library failed") {
			t.Fatalf("recovered panic: %v", err)
		}
	})
}
