package aisbench

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/trace"
)

// TestIssue21TimePointsOneRule: time points going back are refused by the
// import with the words of trace.CheckTimePoints, the rule every trace
// reader applies to time_points_s (a JSONL trace of time points read them
// and reported a negative TTFT).
func TestIssue21TimePointsOneRule(t *testing.T) {
	tp := []float64{10, 11, 10.5}
	want := trace.CheckTimePoints(tp)
	if want == nil {
		t.Fatal("trace.CheckTimePoints accepts time going back")
	}
	wd := copyDir(t, filepath.Join(workdirs, "basic"))
	execDB(t, filepath.Join(wd, "performances", "model", "db_data", "0123abcd.db"), "UPDATE numpy_store SET arr_blob = ? WHERE id = 4", npyBlob(t, tp))
	_, err := Load(wd, Options{})
	if err == nil || !strings.Contains(err.Error(), want.Error()) {
		t.Fatalf("import: %v, want it to hold %q", err, want)
	}
	c := trace.NewChecker("t.jsonl", trace.Limits{})
	err = c.Check(&trace.Request{RequestID: "r", T0Ns: 1, TimePointsS: tp}, trace.Error{Line: 2, RowGroup: -1, Row: -1})
	if err == nil || !strings.Contains(err.Error(), "column time_points_s: "+want.Error()) {
		t.Fatalf("trace reader: %v, want it to hold %q", err, want)
	}
}

// TestIssue21GeneratedArrays: a 12 KB database whose arr_blob is a
// generated column (zeroblob(400 MB) a row) expanded to gigabytes as it
// was read; numpy_store must hold its arrays. A blob over the bound is
// refused without being read.
func TestIssue21GeneratedArrays(t *testing.T) {
	for _, kind := range []string{"VIRTUAL", "STORED"} {
		wd := copyDir(t, filepath.Join(workdirs, "basic"))
		db := filepath.Join(wd, "performances", "model", "db_data", "0123abcd.db")
		execDB(t, db, "ALTER TABLE numpy_store RENAME TO old")
		size := 400_000_000
		if kind == "STORED" {
			size = 1000
		}
		execDB(t, db, fmt.Sprintf("CREATE TABLE numpy_store (id INTEGER PRIMARY KEY, n INTEGER, arr_blob BLOB GENERATED ALWAYS AS (zeroblob(n)) %s)", kind))
		execDB(t, db, "INSERT INTO numpy_store (id, n) SELECT id, ? FROM old", size)
		execDB(t, db, "DROP TABLE old")
		execDB(t, db, "VACUUM")
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := Load(wd, Options{})
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), "0123abcd.db: numpy_store: column arr_blob is generated") {
			t.Errorf("%s: %v", kind, err)
		}
		if alloc := (after.TotalAlloc - before.TotalAlloc) >> 20; alloc > 64 {
			t.Errorf("%s: %d MB allocated", kind, alloc)
		}
	}
	wd := copyDir(t, filepath.Join(workdirs, "basic"))
	defer func(n int64) { maxArrayBlob = n }(maxArrayBlob)
	maxArrayBlob = 16
	_, err := Load(wd, Options{})
	if err == nil || !strings.Contains(err.Error(), "numpy_store row 1: a blob of") || !strings.Contains(err.Error(), "more than 16") {
		t.Errorf("a blob over the bound: %v", err)
	}
}

// TestIssue21SparseJournal: a database of 1 GB on paper (a sparse file)
// with a pending journal was copied through memory (os.ReadFile: the whole
// file in one allocation; 3.2 GB in the hostile case), and the copy was
// left behind when that killed the process. It is copied a data extent at
// a time, holes kept, and removed.
func TestIssue21SparseJournal(t *testing.T) {
	wd := copyDir(t, filepath.Join(workdirs, "killed"))
	db := filepath.Join(wd, "performances", "model", "tmp", "tmp_0123abcd.db")
	if err := os.Truncate(db, 1<<30); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	run, err := Load(wd, Options{})
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if alloc := (after.TotalAlloc - before.TotalAlloc) >> 20; alloc > 64 {
		t.Errorf("%d MB allocated to read a sparse database", alloc)
	}
	cut, err := Load(filepath.Join(workdirs, "cut-short"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Records) != len(cut.Records) {
		t.Errorf("%d records, want %d", len(run.Records), len(cut.Records))
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("left in the temporary directory: %v", left)
	}
}
