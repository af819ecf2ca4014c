package parquetfile

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/sseaudit/sseaudit/trace"
)

// benchTrace is a trace of n requests of 64 SSE chunks each, about 100
// bytes a chunk, as a streaming benchmark produces.
func benchTrace(b *testing.B, n int, layout trace.Layout) ([]byte, int64) {
	reqs := make([]trace.Request, n)
	var body int64
	for i := range reqs {
		r := trace.Request{RequestID: fmt.Sprintf("req-%06d", i), T0Ns: int64(i) * 1e6, HTTPStatus: ptr[int32](200)}
		for j := 0; j < 64; j++ {
			data := []byte(fmt.Sprintf("data: {\"id\":\"chatcmpl-%d\",\"choices\":[{\"delta\":{\"content\":\"tok%d\"}}]}\n\n", i, j))
			r.Chunks = append(r.Chunks, trace.Chunk{TNs: r.T0Ns + int64(j)*1e5, Data: data})
			body += int64(len(data))
		}
		r.EndNs = ptr(r.T0Ns + 64*1e5)
		reqs[i] = r
	}
	return writeTrace(b, reqs, trace.WriteOptions{Layout: layout}), body
}

// BenchmarkReadNested and BenchmarkReadFlat read the trace named by
// SSEAUDIT_BENCH_TRACE (nested) or SSEAUDIT_BENCH_FLAT_TRACE (flat), or a
// generated one of 4000 requests, and scan every request; the throughput
// is of body bytes.
func BenchmarkReadNested(b *testing.B) {
	benchmarkRead(b, trace.Nested, os.Getenv("SSEAUDIT_BENCH_TRACE"))
}

func BenchmarkReadFlat(b *testing.B) {
	benchmarkRead(b, trace.Flat, os.Getenv("SSEAUDIT_BENCH_FLAT_TRACE"))
}

func benchmarkRead(b *testing.B, layout trace.Layout, path string) {
	var src io.ReaderAt
	var size int64
	if path == "" {
		data, _ := benchTrace(b, 4000, layout)
		src, size = bytes.NewReader(data), int64(len(data))
	} else {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			b.Fatal(err)
		}
		src, size = f, st.Size()
	}
	scan := func() (requests int, body int64) {
		r, err := openReader("bench.parquet", src, size, trace.Limits{}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer r.Close()
		if got := r.Info().Layout; got != layout {
			b.Fatalf("layout %s, want %s", got, layout)
		}
		for r.Scan() {
			requests++
			body += r.Request().BodyBytes()
		}
		if err := r.Err(); err != nil {
			b.Fatal(err)
		}
		return requests, body
	}
	wantRequests, wantBody := scan()
	b.SetBytes(wantBody)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if n, body := scan(); n != wantRequests || body != wantBody {
			b.Fatalf("%d requests of %d body bytes, want %d of %d", n, body, wantRequests, wantBody)
		}
	}
}

func BenchmarkWrite(b *testing.B) {
	data, body := benchTrace(b, 4000, trace.Nested)
	_, reqs, err := readAll(b, "w.parquet", data)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(body)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		writeTrace(b, reqs, trace.WriteOptions{})
	}
}
