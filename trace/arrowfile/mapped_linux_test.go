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

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
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

// flatTrace is 100 requests of 250 rows of 380 bytes in the flat layout,
// one record batch, the rows interleaved (every request's k-th row, then
// the (k+1)-th) or each request's together. The data column is the last:
// a file cut short loses chunk bytes, not another column's values.
func flatTrace(t *testing.T, interleaved bool) []byte {
	chunk := bytes.Repeat([]byte("x"), 380)
	var rows []flatRow
	for a := range 250 {
		for b := range 100 {
			i, k := b, a
			if !interleaved {
				i, k = (a*100+b)/250, (a*100+b)%250 // a request's rows together
			}
			rows = append(rows, flatRow{fmt.Sprintf("r%04d", i), int64(i), i64(int64(i) + int64(k)), chunk})
		}
	}
	schema := schemaWith(map[string]string{trace.KeySchemaVersion: "1"},
		arrow.Field{Name: "request_id", Type: arrow.BinaryTypes.LargeString},
		arrow.Field{Name: "t0_ns", Type: arrow.PrimitiveTypes.Int64},
		arrow.Field{Name: "t_ns", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "data", Type: arrow.BinaryTypes.LargeBinary, Nullable: true},
	)
	return writeRecords(t, false, schema, func(b *array.RecordBuilder) {
		for _, r := range rows {
			b.Field(0).(*array.LargeStringBuilder).Append(r.id)
			b.Field(1).(*array.Int64Builder).Append(r.t0)
			b.Field(2).(*array.Int64Builder).Append(*r.tNs)
			b.Field(3).(*array.BinaryBuilder).Append(r.data)
		}
	})
}

// TestMappedFlatCut: a mapped flat file cut short while it is read ends in
// an error, whether its requests' rows are together (streamed) or
// interleaved (grouped: the grouper copies the chunk bytes out of the
// mapping itself).
func TestMappedFlatCut(t *testing.T) {
	for _, interleaved := range []bool{false, true} {
		t.Run(fmt.Sprintf("interleaved=%v", interleaved), func(t *testing.T) {
			data := flatTrace(t, interleaved)
			src := source(t, "cut.arrow", data)
			r, err := formats[0].open(src, memory.NewGoAllocator())
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if r.Info().Regrouped != interleaved {
				t.Fatalf("regrouped %v, want %v", r.Info().Regrouped, interleaved)
			}
			if !r.Scan() {
				t.Fatalf("no first request: %v", r.Err())
			}
			if err := os.Truncate(src.File.Name(), int64(len(data)*3/4)); err != nil {
				t.Fatal(err)
			}
			n, sum := 1, 0
			for r.Scan() {
				n++
				for _, c := range r.Request().Chunks {
					for _, b := range c.Data {
						sum += int(b)
					}
				}
			}
			if err := r.Err(); err == nil || !strings.Contains(err.Error(), "cut short") {
				t.Fatalf("after %d requests (bytes summed to %d): got %v, want an error saying the file was cut short", n, sum, err)
			}
		})
	}
}

// TestMappedFlatCopies: the requests of a mapped flat file hold copies of
// their bytes, not the mapping's: they outlive the reader (a slice kept
// past Close would fault on the unmapped pages).
func TestMappedFlatCopies(t *testing.T) {
	for _, interleaved := range []bool{false, true} {
		data := flatTrace(t, interleaved)
		r, err := formats[0].open(source(t, "copies.arrow", data), memory.NewGoAllocator())
		if err != nil {
			t.Fatal(err)
		}
		var kept [][]byte
		for r.Scan() {
			for _, c := range r.Request().Chunks {
				kept = append(kept, c.Data)
			}
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		r.Close()
		for i, b := range kept {
			if len(b) != 380 || b[0] != 'x' || b[379] != 'x' {
				t.Fatalf("interleaved=%v: chunk %d after Close: %q", interleaved, i, b)
			}
		}
	}
}
