package aisbench

import (
	"encoding/binary"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrefetchBudgetCountsErrors: rows no record references, whose
// blobs fail to decode, are never decoded by the sequential read; the
// prefetch decodes them and keeps each error, whose text quotes up to 64 KB
// of the header, without counting it against prefetchBudget.
func TestPrefetchBudgetCountsErrors(t *testing.T) {
	wd := copyDir(t, filepath.Join(workdirs, "basic"))
	db := filepath.Join(wd, "performances", "model", "db_data", "0123abcd.db")
	hdr := "{'descr': '<f8', 'fortran_order': False, 'shape': (" + strings.Repeat("x", 60000) + "), }\n"
	blob := append([]byte("\x93NUMPY\x01\x00"), binary.LittleEndian.AppendUint16(nil, uint16(len(hdr)))...)
	blob = append(blob, hdr...)
	for i := range 100 {
		execDB(t, db, "INSERT INTO numpy_store (id, arr_blob) VALUES (?, ?)", 100000+i, blob)
	}
	defer func(b int64) { prefetchBudget = b }(prefetchBudget)
	prefetchBudget = 1 << 20
	run, err := locate(wd, Options{})
	if err != nil {
		t.Fatal(err)
	}
	run.startPrefetch("0123abcd.db")
	pf := run.prefetch
	<-pf.done
	held := 0
	for _, r := range pf.rows {
		if r.err != nil {
			held += len(r.err.Error())
		}
	}
	if !pf.abandoned && held > int(prefetchBudget) {
		t.Errorf("prefetch kept %d bytes of error text (budget %d), not abandoned", held, prefetchBudget)
	}
	// Load still works: the rows are unreferenced.
	if _, err := Load(wd, Options{}); err != nil {
		t.Fatal(err)
	}
}
