package contentcoding

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"io"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"

	"github.com/sseaudit/sseaudit/trace"
)

// encodeFlushed encodes the events with enc, flushed after each: one
// encoded read an event, as a streaming server writes them.
func encodeFlushed(t testing.TB, enc string, events [][]byte) []trace.Chunk {
	var buf bytes.Buffer
	var w interface {
		io.Writer
		Flush() error
		Close() error
	}
	switch enc {
	case "gzip":
		w = gzip.NewWriter(&buf)
	case "deflate":
		w = zlib.NewWriter(&buf)
	case "br":
		w = brotli.NewWriter(&buf)
	case "zstd":
		z, err := zstd.NewWriter(&buf)
		if err != nil {
			t.Fatal(err)
		}
		w = z
	}
	var chunks []trace.Chunk
	cut := func(i int) {
		if buf.Len() > 0 {
			chunks = append(chunks, trace.Chunk{TNs: int64(i), Data: append([]byte(nil), buf.Bytes()...)})
			buf.Reset()
		}
	}
	for i, e := range events {
		w.Write(e)
		w.Flush()
		cut(i + 1)
	}
	w.Close()
	cut(len(events) + 1)
	return chunks
}

// Each encoding decodes read by read: a flushed event comes out at the
// time of the read that carried it.
func TestDecodeFlushed(t *testing.T) {
	events := [][]byte{[]byte("data: {\"a\":1}\n\n"), []byte("data: {\"b\":2}\n\n"), []byte("data: [DONE]\n\n")}
	for _, enc := range []string{"gzip", "deflate", "br", "zstd"} {
		chunks := encodeFlushed(t, enc, events)
		dec, err := Decode(enc, chunks)
		if err != nil {
			t.Fatalf("%s: %v", enc, err)
		}
		if len(dec) != len(events) {
			t.Fatalf("%s: %d decoded reads, want %d", enc, len(dec), len(events))
		}
		for i, c := range dec {
			if !bytes.Equal(c.Data, events[i]) || c.TNs != int64(i+1) {
				t.Errorf("%s: read %d: %q at %d", enc, i, c.Data, c.TNs)
			}
		}
	}
	if got, err := Decode("identity", []trace.Chunk{{Data: []byte("x")}}); err != nil || string(got[0].Data) != "x" {
		t.Errorf("identity: %v %v", got, err)
	}
	if _, err := Decode("compress", []trace.Chunk{{Data: []byte("x")}}); err == nil {
		t.Errorf("an unknown encoding decoded")
	}
}

// A body cut short keeps what decoded and says why.
func TestDecodeCut(t *testing.T) {
	events := [][]byte{[]byte("data: 1\n\n"), []byte("data: 2\n\n")}
	chunks := encodeFlushed(t, "gzip", events)
	chunks = chunks[:len(chunks)-1] // no trailer
	dec, err := Decode("gzip", chunks)
	if err == nil || len(dec) != 2 {
		t.Fatalf("cut: %d reads, error %v", len(dec), err)
	}
}

// FuzzDecode: any bytes cut anywhere never panic nor hang; a gzip body
// cut into any reads decodes to the same bytes as whole.
func FuzzDecode(f *testing.F) {
	f.Add([]byte("hello, world"), uint8(3), false)
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0}, uint8(1), true)
	f.Fuzz(func(t *testing.T, data []byte, step uint8, raw bool) {
		body := data
		if !raw {
			var b bytes.Buffer
			w := gzip.NewWriter(&b)
			w.Write(data)
			w.Close()
			body = b.Bytes()
		}
		n := int(step)%16 + 1
		var chunks []trace.Chunk
		for i := 0; i < len(body); i += n {
			chunks = append(chunks, trace.Chunk{TNs: int64(i), Data: body[i:min(i+n, len(body))]})
		}
		dec, err := Decode("gzip", chunks)
		if raw {
			return
		}
		var got []byte
		for _, c := range dec {
			got = append(got, c.Data...)
		}
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("decoded %q (%v), want %q", got, err, data)
		}
	})
}
