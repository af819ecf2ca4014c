package aisbench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadNullLine: a details line that is JSON null is no record:
// AISBench's summarizer does perf_data = orjson.loads(line) (json.loads
// alike) and then perf_data.get("db_name"), which fails on None; the
// import must refuse the line, not skip it as a record without db_name.
func TestLoadNullLine(t *testing.T) {
	wd := copyDir(t, filepath.Join(workdirs, "basic"))
	details := filepath.Join(wd, "performances", "model", "ds_details.jsonl")
	b, err := os.ReadFile(details)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(details, append(b, "null\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	run, err := Load(wd, Options{})
	if err == nil {
		t.Fatalf("Load accepted a null line: %d records, notes %q", len(run.Records), run.Notes)
	}
	if !strings.Contains(err.Error(), "line 13") {
		t.Errorf("error %v: want it to name line 13", err)
	}
}
