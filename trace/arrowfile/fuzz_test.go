package arrowfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sseaudit/sseaudit/trace"
)

// fuzzLimits keep the memory a hostile input may claim small.
var fuzzLimits = trace.Limits{MaxChunkBytes: 1 << 20, MaxRequests: 10_000, MaxGroupingRows: 10_000}

func fuzzSeeds(f *testing.F, fm format) {
	for _, layout := range []trace.Layout{trace.Nested, trace.Flat} {
		for _, codec := range []ipc.Option{nil, ipc.WithLZ4(), ipc.WithZstd()} {
			reqs := sampleRequests()
			f.Add(writeTrace(f, fm, trace.WriteOptions{Extra: sampleExtra, Layout: layout, RowGroupRequests: 3}, reqs[:4], codec))
		}
	}
	f.Add(writeRecords(f, fm.stream, flatSchema(), fillFlat(flatRow{"a", 1, i64(2), []byte("x")}, flatRow{"b", 1, nil, nil}, flatRow{"a", 1, i64(3), []byte("y")})))
	f.Add([]byte{})
	f.Add([]byte("ARROW1\x00\x00"))
}

// fuzzFile is one file reused by every input of a fuzz process, so that an
// execution costs a read, not a temporary directory.
func fuzzFile(f *testing.F) *os.File {
	file, err := os.Create(filepath.Join(f.TempDir(), "fuzz"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { file.Close() })
	return file
}

// fuzzRead reads data to the end: it must not panic, and every error must
// be a *trace.Error.
func fuzzRead(t *testing.T, fm format, file *os.File, data []byte) {
	if err := file.Truncate(0); err != nil {
		t.Fatal(err)
	}
	if _, err := file.WriteAt(data, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := file.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	src := trace.Source{Name: "fuzz", File: file, Size: int64(len(data)), Limits: fuzzLimits}
	r, err := fm.open(src, memory.NewGoAllocator())
	var te *trace.Error
	if err != nil {
		if !errors.As(err, &te) {
			t.Fatalf("Open: %v (%T), want a *trace.Error", err, err)
		}
		return
	}
	defer r.Close()
	for r.Scan() {
		if r.Request() == nil {
			t.Fatal("Scan returned true with a nil Request")
		}
	}
	if err := r.Err(); err != nil && !errors.As(err, &te) {
		t.Fatalf("Err: %v (%T), want a *trace.Error", err, err)
	}
}

// hostileSeeds adds the hostile corpus's files with the extension ext.
func hostileSeeds(f *testing.F, ext string) {
	names, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "hostile", "*"+ext))
	if len(names) == 0 {
		f.Fatalf("no %s files in testdata/hostile", ext)
	}
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

func FuzzOpenFile(f *testing.F) {
	fuzzSeeds(f, formats[0])
	hostileSeeds(f, ".arrow")
	file := fuzzFile(f)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, formats[0], file, data) })
}

func FuzzOpenStream(f *testing.F) {
	fuzzSeeds(f, formats[1])
	hostileSeeds(f, ".arrows")
	file := fuzzFile(f)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(t, formats[1], file, data) })
}
