package aisbench

import (
	"bytes"
	"encoding/binary"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unsafe"
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
	pf := run.prefetcher.byName["0123abcd.db"]
	<-pf.done
	run.stopPrefetch()
	held := 0
	for r := range pf.rows.all() {
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

// TestBlobsOwned: every blob eachBlobAt hands out is a slice of its own,
// unchanged by the rows read after it, as the time points read in place
// from it (decodeOwnedTimePoints) need; a driver that reused its buffer
// from row to row would fail here, not corrupt a run's time points.
func TestBlobsOwned(t *testing.T) {
	db := filepath.Join(workdirs, "failures", "performances", "model", "db_data", "0123abcd.db")
	var kept, copies [][]byte
	err := eachBlobAt(db, db, "mode=ro", func(_ int64, blob []byte) error {
		kept = append(kept, blob)
		copies = append(copies, append([]byte(nil), blob...))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) < 2 {
		t.Fatalf("%d blobs: want several", len(kept))
	}
	for i := range kept {
		if !bytes.Equal(kept[i], copies[i]) {
			t.Fatalf("blob %d of %d changed after later rows were read", i, len(kept))
		}
	}
	tp, err := decodeOwnedTimePoints(kept[0])
	if err != nil {
		t.Fatal(err)
	}
	want, err := decodeTimePoints(copies[0])
	if err != nil || !slices.Equal(tp, want) {
		t.Fatalf("read in place %v, copied %v (%v)", tp, want, err)
	}
	if len(tp) > 0 && &tp[0] != (*float64)(unsafe.Pointer(&kept[0][len(kept[0])-8*len(tp)])) {
		t.Error("an aligned np.save array was copied, not read in place")
	}
}
