package aisbench

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// TestLoadManyGroupsSmall: a details file of 1,000 lines naming 1,000
// databases costs memory in proportion to its records, not a block of
// recordBlock records a database (it was 751 MB).
func TestLoadManyGroupsSmall(t *testing.T) {
	wd := copyDir(t, filepath.Join(workdirs, "basic"))
	details := filepath.Join(wd, "performances", "model", "ds_details.jsonl")
	var b strings.Builder
	const n = 1000
	for i := range n {
		fmt.Fprintf(&b, `{"data_abbr": "ds", "id": %d, "success": false, "time_points": null, "db_name": "db%d.db"}`+"\n", i, i)
	}
	os.WriteFile(details, []byte(b.String()), 0o644)
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	_, err := Load(wd, Options{})
	runtime.ReadMemStats(&m1)
	alloc := m1.TotalAlloc - m0.TotalAlloc
	t.Logf("sizeof(Record) %d; Load of a %d-byte details file: %v; allocated %d MB", unsafe.Sizeof(Record{}), b.Len(), err, alloc>>20)
	if alloc > 100<<20 {
		t.Errorf("allocated %d MB for %d records", alloc>>20, n)
	}
}
