package parquetfile

import (
	"bytes"
	"fmt"
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

func BenchmarkRead(b *testing.B) {
	for _, layout := range []trace.Layout{trace.Nested, trace.Flat} {
		b.Run(string(layout), func(b *testing.B) {
			data, body := benchTrace(b, 4000, layout)
			b.SetBytes(body)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r, err := openReader("bench.parquet", bytes.NewReader(data), int64(len(data)), trace.Limits{}, nil)
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for r.Scan() {
					n++
				}
				if r.Err() != nil || n != 4000 {
					b.Fatalf("%d requests, %v", n, r.Err())
				}
				r.Close()
			}
		})
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
