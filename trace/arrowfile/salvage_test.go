package arrowfile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/sseaudit/sseaudit/trace"
)

// TestStreamPrefix cuts a stream of several record batches at many
// lengths: the prefix StreamPrefix finds always reads without an error and
// holds every batch that was complete before the cut.
func TestStreamPrefix(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewStreamWriter(&buf, trace.WriteOptions{RowGroupRequests: 3})
	if err != nil {
		t.Fatal(err)
	}
	status := int32(200)
	for i := range 10 {
		w.Write(&trace.Request{RequestID: fmt.Sprintf("r%d", i), T0Ns: int64(i), HTTPStatus: &status,
			Chunks: []trace.Chunk{{TNs: int64(i) + 1, Data: bytes.Repeat([]byte("data: x\n\n"), i+1)}}})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	full := buf.Bytes()
	end, eos, err := StreamPrefix(bytes.NewReader(full), int64(len(full)))
	if err != nil || !eos || end != int64(len(full)) {
		t.Fatalf("whole stream: end %d of %d, eos %v, %v", end, len(full), eos, err)
	}
	dir := t.TempDir()
	prev := int64(-1)
	counts := map[int]bool{}
	for cut := 0; cut < len(full); cut += 37 {
		end, eos, err := StreamPrefix(bytes.NewReader(full[:cut]), int64(cut))
		if err != nil || eos || end > int64(cut) || end < prev {
			t.Fatalf("cut at %d: end %d eos %v err %v (previous end %d)", cut, end, eos, err, prev)
		}
		prev = end
		if end == 0 {
			continue
		}
		path := filepath.Join(dir, "p.arrows")
		os.WriteFile(path, full[:end], 0o644)
		r, err := trace.Open(path, trace.OpenOptions{Format: "arrows"})
		if err != nil {
			t.Fatalf("cut at %d, prefix %d: %v", cut, end, err)
		}
		n := 0
		for r.Scan() {
			n++
		}
		if err := r.Err(); err != nil {
			t.Fatalf("cut at %d, prefix %d: %v", cut, end, err)
		}
		r.Close()
		if n%3 != 0 && n != 10 {
			t.Errorf("cut at %d: %d requests, want whole batches of 3", cut, n)
		}
		counts[n] = true
	}
	if len(counts) < 3 {
		t.Errorf("prefixes held %v requests: want several batch counts", counts)
	}
	if _, _, err := StreamPrefix(bytes.NewReader([]byte("\xff\xff\xff\xff\x10\x00\x00\x00garbage garbage!")), 24); err == nil {
		t.Errorf("garbage metadata: no error")
	}
}
