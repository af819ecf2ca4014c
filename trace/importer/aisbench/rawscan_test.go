package aisbench

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// blobRow is a numpy_store row as a reader hands it over, copied.
type blobRow struct {
	id   int64
	blob []byte
}

func driverRows(t *testing.T, path string) []blobRow {
	t.Helper()
	var rows []blobRow
	if err := eachBlobAt(path, path, "mode=ro", func(id int64, blob []byte) error {
		rows = append(rows, blobRow{id, bytes.Clone(blob)})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return rows
}

func rawRows(path string) ([]blobRow, error) {
	var rows []blobRow
	err := rawScan(path, func(id int64, blob []byte) error {
		rows = append(rows, blobRow{id, bytes.Clone(blob)})
		return nil
	})
	return rows, err
}

// TestRawScanAsDriver: rawScan hands over the rows database/sql's driver
// does, in the same order, byte for byte: every database of the test
// work_dirs, and one with blobs of every size from none to many overflow
// pages, rows out of insertion order, an empty blob and a null one.
func TestRawScanAsDriver(t *testing.T) {
	dbs, _ := filepath.Glob(filepath.Join(workdirs, "*", "performances", "model", "db_data", "*.db"))
	if len(dbs) < 3 {
		t.Fatalf("%d test databases", len(dbs))
	}
	made := filepath.Join(t.TempDir(), "sizes.db")
	execDB(t, made, "CREATE TABLE numpy_store (id INTEGER PRIMARY KEY AUTOINCREMENT, arr_blob BLOB)")
	for i, n := range []int{0, 1, 2, 100, 511, 512, 513, 4000, 70000, 3} {
		tp := make([]float64, n)
		for j := range tp {
			tp[j] = float64(i) + float64(j)/7
		}
		execDB(t, made, "INSERT INTO numpy_store (id, arr_blob) VALUES (?, ?)", 1000-10*i, npyBlob(t, tp))
	}
	execDB(t, made, "INSERT INTO numpy_store (id, arr_blob) VALUES (5, x'')")
	execDB(t, made, "INSERT INTO numpy_store (id, arr_blob) VALUES (6, NULL)")
	for _, db := range append(dbs, made) {
		want := driverRows(t, db)
		got, err := rawRows(db)
		if err != nil {
			t.Fatalf("%s: %v", db, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d rows, the driver %d", db, len(got), len(want))
		}
		for i := range want {
			if got[i].id != want[i].id || !bytes.Equal(got[i].blob, want[i].blob) {
				t.Fatalf("%s: row %d is id %d (%d bytes), the driver's id %d (%d bytes)", db, i, got[i].id, len(got[i].blob), want[i].id, len(want[i].blob))
			}
		}
	}
}

// TestRawScanGivesUp: what the usual read reports as an error makes
// rawScan fail (so that the prefetcher leaves the database to it), and
// Load's error is the usual read's, word for word.
func TestRawScanGivesUp(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, db string)
		want  string // in Load's error
	}{
		{"null id", withID("INTEGER", "NULL"), "numpy_store row with a null id"},
		{"text id", withID("", "'7x'"), "bad numpy_store row"},
		{"real id", withID("", "5.5"), "bad numpy_store row"},
		{"blob over the bound", func(t *testing.T, db string) {
			execDB(t, db, "INSERT INTO numpy_store (id, arr_blob) VALUES (99999, zeroblob(2000))")
		}, "a blob of 2000 bytes, more than 1000"},
		{"not a database", func(t *testing.T, db string) {
			if err := os.WriteFile(db, bytes.Repeat([]byte("not sqlite "), 1000), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "not SQLite?"},
	}
	defer func(m int64) { maxArrayBlob = m }(maxArrayBlob)
	maxArrayBlob = 1000
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wd := copyDir(t, filepath.Join(workdirs, "basic"))
			db := filepath.Join(wd, "performances", "model", "db_data", "0123abcd.db")
			c.setup(t, db)
			if _, err := rawRows(db); !errors.Is(err, errRawScan) {
				t.Errorf("rawScan: %v, want errRawScan", err)
			}
			_, err := Load(wd, Options{})
			_, seqErr := loadSequential(wd, Options{})
			if err == nil || seqErr == nil || err.Error() != seqErr.Error() || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Load: %v\nsequential: %v\nwant both with %q", err, seqErr, c.want)
			}
		})
	}
}

// withID rebuilds numpy_store with an id column of type typ (none when
// empty), its rows kept, and adds a row whose id is the SQL value id.
func withID(typ, id string) func(t *testing.T, db string) {
	return func(t *testing.T, db string) {
		execDB(t, db, "CREATE TABLE x (id "+typ+", arr_blob BLOB)")
		execDB(t, db, "INSERT INTO x SELECT id, arr_blob FROM numpy_store")
		execDB(t, db, "INSERT INTO x VALUES ("+id+", x'00')")
		execDB(t, db, "DROP TABLE numpy_store")
		execDB(t, db, "ALTER TABLE x RENAME TO numpy_store")
	}
}
