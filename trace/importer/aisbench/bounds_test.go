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

// TestLoadOneGroupInOneBlock: the records of a one-database run are read
// into one block sized from the first lines' length (no gathering copy),
// in file order, whatever the lines' lengths do after the first ones; and
// short first lines before long ones never cost much more than the file.
func TestLoadOneGroupInOneBlock(t *testing.T) {
	cases := []struct {
		name  string
		lines func(i int) int // the padding of line i
		n     int
	}{
		{"even", func(int) int { return 300 }, 5000},
		{"longer later", func(i int) int { return 300 + 10*i }, 3000},
		{"shorter later", func(i int) int { return max(3000-i, 0) }, 3000},
		{"short then huge", func(i int) int {
			if i < 40 {
				return 0
			}
			return 200_000
		}, 100},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wd := copyDir(t, filepath.Join(workdirs, "basic"))
			details := filepath.Join(wd, "performances", "model", "ds_details.jsonl")
			var b strings.Builder
			for i := range c.n {
				fmt.Fprintf(&b, `{"data_abbr": "ds", "id": %d, "success": false, "error_info": "x", "time_points": null, "input": "%s", "db_name": "0123abcd.db"}`+"\n", i, strings.Repeat("p", c.lines(i)))
			}
			if err := os.WriteFile(details, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			var m0, m1, h0 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&h0)
			runtime.ReadMemStats(&m0)
			run, err := Load(wd, Options{})
			runtime.ReadMemStats(&m1)
			if err != nil {
				t.Fatal(err)
			}
			if len(run.Records) != c.n {
				t.Fatalf("%d records, want %d", len(run.Records), c.n)
			}
			for i, r := range run.Records {
				if r.ID != fmt.Sprint(i) || r.Line != i+1 {
					t.Fatalf("record %d is id %s, line %d", i, r.ID, r.Line)
				}
			}
			// An estimate far over is let go: what the run keeps is its
			// records (under 1 KB each here), not the room estimated.
			var h runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&h)
			if kept, limit := int64(h.HeapAlloc)-int64(h0.HeapAlloc), int64(256<<10+1024*c.n); kept > limit {
				t.Errorf("the run keeps %d KB of heap, want at most %d KB", kept>>10, limit>>10)
			}
			runtime.KeepAlive(run)
			// Records beyond what the lines hold are the estimate's
			// waste: at most one per minRecordLine bytes of the file.
			if alloc, limit := m1.TotalAlloc-m0.TotalAlloc, uint64(4*b.Len()+16<<20); alloc > limit {
				t.Errorf("allocated %d MB for a %d MB file", alloc>>20, b.Len()>>20)
			}
		})
	}
}

func TestEstimateRecords(t *testing.T) {
	for _, c := range []struct {
		left, read  int64
		lines, want int
	}{
		{0, 100, 1, 0},
		{1000, 0, 1, 0},
		{100_000, 10_000, 16, 176}, // 160 and a tenth
		{1 << 40, 1000, 16, maxEstimate},
		{1 << 20, 16 * 64, 16, (1 << 20) / 256},  // short lines: one per 256 bytes
		{1 << 62, 1 << 10, 1 << 20, maxEstimate}, // no overflow
		{300 * 100_000, 300 * 16, 16, 110_000},   // AISBench's shortest lines
	} {
		if got := estimateRecords(c.left, c.read, c.lines); got != c.want {
			t.Errorf("estimateRecords(%d, %d, %d) = %d, want %d", c.left, c.read, c.lines, got, c.want)
		}
	}
}

// TestStoredBytes: a sparse file counts the bytes it stores, not its size
// on paper (the estimates of records and of a slab's arrays read it).
func TestStoredBytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sparse")
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 1<<40); err != nil {
		t.Skip("no sparse files here:", err)
	}
	if got := storedBytes(path); runtime.GOOS == "linux" && got > 1<<20 {
		t.Errorf("a 1 TB file of one byte stores %d bytes", got)
	}
}
