package capture

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/sseaudit/sseaudit/trace"
)

// fullDisk writes to its file until room bytes are written, then writes
// part of what it is given and fails with ENOSPC, as a full disk does.
type fullDisk struct {
	*os.File
	room int
}

func (d *fullDisk) Write(p []byte) (int, error) {
	if len(p) <= d.room {
		d.room -= len(p)
		return d.File.Write(p)
	}
	n, _ := d.File.Write(p[:d.room])
	d.room = 0
	return n, syscall.ENOSPC
}

// TestIssue21FullDisk: after a write fails the summary said "391 written"
// where 384 could be salvaged. The File counts the requests of the batches
// written whole, says when the file ends inside a batch, writes nothing
// more (no end-of-stream marker after a partial batch), and salvage keeps
// exactly the requests it counted.
func TestIssue21FullDisk(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "cap.arrows")
	cf, err := CreateFile(out, trace.WriteOptions{Extra: Extra()}, 4)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(out)
	cf.f = &fullDisk{File: cf.f.(*os.File), room: 2600}
	var werr error
	written := 0
	for i := range 40 {
		end := int64(i*1000 + 500)
		status := int32(200)
		r := trace.Request{RequestID: fmt.Sprintf("cap-%06d", i), T0Ns: int64(i * 1000), EndNs: &end, HTTPStatus: &status,
			Chunks: []trace.Chunk{{TNs: int64(i*1000 + 100), Data: []byte(fmt.Sprintf("data: {\"n\":%d}\n\ndata: [DONE]\n\n", i))}},
			Extra:  []trace.Value{{Str: "prompt"}}}
		if werr = cf.Write(&r); werr != nil {
			break
		}
		written++
	}
	if werr == nil {
		t.Fatalf("the disk never filled (schema %d bytes): make room smaller", st.Size())
	}
	if err := cf.Close(); err == nil {
		t.Errorf("Close after a failed write: no error")
	}
	if cf.Requests() == 0 || cf.Requests() >= written+1 || cf.Requests()%4 != 0 || !cf.Partial() {
		t.Fatalf("%d requests handed over, %d on disk, partial %v: want whole batches of 4 and a partial one", written+1, cf.Requests(), cf.Partial())
	}
	saved := filepath.Join(dir, "saved.arrows")
	n, _, err := Salvage(out, saved)
	if err != nil || int(n) != cf.Requests() {
		t.Fatalf("salvaged %d requests (%v): the File said %d were on disk", n, err, cf.Requests())
	}
	t.Logf("%d requests handed over before the failed write, %d on disk and salvaged", written+1, n)
}
