package trace

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// changedPasses: the pass over request_id finds a request ("z") that the
// pass over the rows does not (the file changed, or was cut short).
type changedPasses struct{ slicePasses }

func (c *changedPasses) IDs(add func(string) error) error {
	if err := c.slicePasses.IDs(add); err != nil {
		return err
	}
	return add("z")
}

// TestFlatMissingRequest: a request the pass over request_id counted and
// the pass over the rows never yields is an error, with a window set aside
// and without (it made the reader start a pass over the rows again and
// again, for ever).
func TestFlatMissingRequest(t *testing.T) {
	for _, lim := range []int64{0, 2} {
		rows := []FlatRow{chunkRow("a", 1, 2, "x"), chunkRow("b", 1, 3, "p"), chunkRow("a", 1, 4, "y")}
		for i := range rows {
			rows[i].Row = int64(i)
		}
		p := &changedPasses{slicePasses{rows: rows}}
		r := NewGroupingFlatReader(p, Info{Path: "f"}, Limits{MaxGroupingRows: lim}, nil)
		done := make(chan error, 1)
		go func() {
			for r.Scan() {
			}
			done <- r.Err()
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "changed") {
				t.Errorf("limit %d: err %v, want the file changed", lim, err)
			}
		case <-time.After(2 * time.Second):
			t.Errorf("limit %d: Scan still running after 2 s: %d passes over the rows", lim, p.passes)
		}
	}
}

// endRows calls atEnd when its rows run out.
type endRows struct {
	sliceRows
	atEnd func()
}

func (e *endRows) Next(r *FlatRow) bool {
	if e.sliceRows.Next(r) {
		return true
	}
	e.atEnd()
	return false
}

type endPasses struct {
	slicePasses
	atEnd func()
}

func (e *endPasses) Rows() (FlatRows, error) {
	return &endRows{sliceRows{rows: e.rows}, e.atEnd}, nil
}

// TestFlatSpillMemoryBounded: with a small --max-grouping-rows, each
// window set aside comes to less than spillBlockBytes, so nothing reaches
// the temporary file before the pass ends: the whole spill is in memory.
func TestFlatSpillMemoryBounded(t *testing.T) {
	const n, per = 20000, 4
	data := strings.Repeat("d", 400)
	var rows []FlatRow
	for k := range per { // every request in flight: row k of each, then k+1
		for i := range n {
			rows = append(rows, FlatRow{Req: Request{RequestID: fmt.Sprint("r", i), T0Ns: 1},
				Chunk: Chunk{TNs: int64(k) + 1, Data: []byte(data)}, Row: int64(len(rows))})
		}
	}
	var fr *flatReader
	var pending, capacity int
	var size int64
	p := &endPasses{slicePasses: slicePasses{rows: rows}}
	p.atEnd = func() {
		for _, b := range fr.spill.buckets {
			pending += len(b.pending)
			capacity += cap(b.pending)
		}
		size = fr.spill.size
	}
	r := NewGroupingFlatReader(p, Info{Path: "f"}, Limits{MaxGroupingRows: per}, nil)
	defer r.Close()
	fr = r.(*flatReader)
	scanCount(t, r, n)
	t.Logf("end of the pass: %d buckets, %d bytes pending in memory (cap %d), %d bytes in the file; the rows' data %d bytes",
		len(fr.spill.buckets), pending, capacity, size, n*per*len(data))
	if capacity > 8<<20 {
		t.Errorf("%d bytes of spilled rows held in memory, %d in the file (window: %d rows)", capacity, size, per)
	}
}

// scanCount reads every request of r and fails unless there are n and no error.
func scanCount(t *testing.T, r Reader, n int) {
	t.Helper()
	got := 0
	for r.Scan() {
		got++
	}
	if r.Err() != nil || got != n {
		t.Fatalf("%d requests (want %d), error %v", got, n, r.Err())
	}
}
