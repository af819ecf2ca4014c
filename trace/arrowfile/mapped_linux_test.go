package arrowfile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sseaudit/sseaudit/trace"
)

// TestMappedPagesDropped: reading a mapped file keeps few of its pages
// resident, however large its record batch (here one batch of 96 MiB):
// the pages read are dropped every dropEvery bytes. The mapping's resident
// size is read from /proc/self/smaps as the requests are read.
func TestMappedPagesDropped(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 96 MiB file")
	}
	reqs := bigRequests(1000)
	for _, f := range formats[:2] {
		t.Run(f.name, func(t *testing.T) {
			data := writeTrace(t, f, trace.WriteOptions{RowGroupRequests: len(reqs)}, reqs, nil)
			src := source(t, "big."+f.name, data)
			pages := mapFile(src)
			if pages == nil {
				t.Fatal("the file was not mapped")
			}
			start := uintptr(unsafe.Pointer(&pages.data[0]))
			var r trace.Reader
			var err error
			if f.stream {
				r, err = openStream(src, memory.NewGoAllocator(), pages)
			} else {
				r, err = openFile(src, memory.NewGoAllocator(), pages)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			n, peak := 0, int64(0)
			for r.Scan() {
				if n++; n%50 == 0 {
					peak = max(peak, residentKiB(t, start))
				}
			}
			if err := r.Err(); err != nil {
				t.Fatal(err)
			}
			if n != len(reqs) {
				t.Fatalf("read %d requests, want %d", n, len(reqs))
			}
			limit := int64(dropEvery>>10) + 8<<10
			t.Logf("%d MiB file: the mapping's peak resident size %d KiB (limit %d KiB)", len(data)>>20, peak, limit)
			if peak == 0 || peak > limit {
				t.Errorf("the mapping's resident size peaked at %d KiB: want pages read, and at most %d KiB of them kept", peak, limit)
			}
		})
	}
}

// bigRequests are n requests of 250 reads of 380 bytes (95 KB each).
func bigRequests(n int) []trace.Request {
	chunk := bytes.Repeat([]byte("x"), 380)
	reqs := make([]trace.Request, n)
	for i := range reqs {
		r := &reqs[i]
		r.RequestID = fmt.Sprintf("r%04d", i)
		r.T0Ns = int64(i) * 1e6
		status := int32(200)
		r.HTTPStatus = &status
		for k := range 250 {
			r.Chunks = append(r.Chunks, trace.Chunk{TNs: r.T0Ns + int64(k+1)*1e6, Data: chunk})
		}
	}
	return reqs
}

// TestMappedFileCut: a mapped file cut short while it is read (by another
// program) ends the read in an error naming the file, not in a crash
// (SIGBUS).
func TestMappedFileCut(t *testing.T) {
	reqs := bigRequests(100)
	for _, f := range formats[:2] {
		t.Run(f.name, func(t *testing.T) {
			data := writeTrace(t, f, trace.WriteOptions{RowGroupRequests: len(reqs)}, reqs, nil)
			src := source(t, "cut."+f.name, data)
			r, err := f.open(src, memory.NewGoAllocator())
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if !r.Scan() {
				t.Fatalf("no first request: %v", r.Err())
			}
			if err := os.Truncate(src.File.Name(), 4096); err != nil {
				t.Fatal(err)
			}
			n := 1
			for r.Scan() {
				n++
			}
			var te *trace.Error
			if err := r.Err(); !errors.As(err, &te) || !strings.Contains(err.Error(), src.Name) || !strings.Contains(err.Error(), "cut short") {
				t.Fatalf("after %d requests: got %v (%T), want a *trace.Error naming %s and saying it was cut short", n, err, err, src.Name)
			}
			t.Logf("after %d requests: %v", n, r.Err())
		})
	}
}

// residentKiB is the resident size of the mapping that starts at start,
// from /proc/self/smaps.
func residentKiB(t *testing.T, start uintptr) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	defer f.Close()
	want := strconv.FormatUint(uint64(start), 16) + "-"
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		if fields := strings.Fields(line); len(fields) > 0 && !strings.HasSuffix(fields[0], ":") { // a mapping's first line
			in = strings.HasPrefix(line, want)
			continue
		}
		if in && strings.HasPrefix(line, "Rss:") {
			v, err := strconv.ParseInt(strings.Fields(line)[1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
	}
	t.Fatalf("no mapping at %#x in /proc/self/smaps", start)
	return 0
}
