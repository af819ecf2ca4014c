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

// TestLoadManyGroupsSmall: every db_name group gets a 4096-record block
// up front, so a details file of N lines with N distinct db_names allocates
// N*4096 records before readDatabases finds the databases missing.
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
