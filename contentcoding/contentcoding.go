// Package contentcoding decodes the bodies of a trace recorded as the
// server sent them, encoded (audit tap passes a gzip answer through
// untouched and records it so). A trace says a request's encoding in its
// "content_encoding" column; Reader hands such requests on decoded, as a
// client that decodes reads them: each decoded read at the time of the
// encoded read that let its bytes out of the decoder.
package contentcoding

import (
	"compress/gzip"
	"compress/zlib"
	"fmt"
	"io"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"

	"github.com/sseaudit/sseaudit/trace"
)

// Column is the extra column naming a request's Content-Encoding (null or
// "" or "identity": none).
const Column = "content_encoding"

// Known reports whether enc (a Content-Encoding value) is one Decode
// decodes; "" and identity are.
func Known(enc string) bool {
	switch norm(enc) {
	case "", "identity", "gzip", "x-gzip", "deflate", "br", "zstd":
		return true
	}
	return false
}

func norm(enc string) string { return strings.ToLower(strings.TrimSpace(enc)) }

// feeder is the decoder's source: the encoded reads handed to it one at a
// time. Asked for more than it was given, it says so on hungry and waits:
// the decoder has then let out all it can of the reads so far.
type feeder struct {
	in     chan []byte // closed after the last read
	hungry chan struct{}
	cur    []byte
}

func (f *feeder) Read(p []byte) (int, error) {
	for len(f.cur) == 0 {
		f.hungry <- struct{}{}
		b, ok := <-f.in
		if !ok {
			return 0, io.EOF
		}
		f.cur = b
	}
	n := copy(p, f.cur)
	f.cur = f.cur[n:]
	return n, nil
}

// newDecoder reads what src decodes to with the encoding e.
func newDecoder(e string, src io.Reader) (io.Reader, error) {
	switch e {
	case "gzip", "x-gzip":
		return gzip.NewReader(src)
	case "deflate":
		return zlib.NewReader(src)
	case "br":
		return brotli.NewReader(src), nil
	case "zstd":
		// RFC 8878: an HTTP zstd frame's window is 8 MB at most.
		z, err := zstd.NewReader(src, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(8<<20))
		if err != nil {
			return nil, err
		}
		return z.IOReadCloser(), nil
	}
	return nil, fmt.Errorf("unknown encoding %q", e)
}

// Decode decodes the chunks of a body encoded with enc: each decoded read
// at the time of the encoded read that let its bytes out. A body that does
// not decode (cut short, corrupt) keeps the reads that decoded and returns
// the error; bytes after the encoded stream's end are dropped.
func Decode(enc string, chunks []trace.Chunk) ([]trace.Chunk, error) {
	e := norm(enc)
	if e == "" || e == "identity" || len(chunks) == 0 {
		// No body (HEAD, 204, 304): nothing to decode.
		return chunks, nil
	}
	if !Known(e) {
		return chunks, fmt.Errorf("Content-Encoding %q: not one sseaudit decodes (gzip, deflate, br, zstd)", enc)
	}
	f := &feeder{in: make(chan []byte), hungry: make(chan struct{})}
	var dec []byte // written by the decoder while the loop below waits
	result := make(chan error, 1)
	go func() {
		r, err := newDecoder(e, f)
		if err != nil {
			result <- err
			return
		}
		buf := make([]byte, 32<<10)
		for err == nil {
			var n int
			n, err = r.Read(buf)
			dec = append(dec, buf[:n]...)
		}
		if c, ok := r.(io.Closer); ok {
			c.Close()
		}
		if err == io.EOF {
			err = nil
		}
		result <- err
	}()
	var err error
	finished := false
	wait := func() {
		select {
		case <-f.hungry:
		case err = <-result:
			finished = true
		}
	}
	wait()
	out := []trace.Chunk{}
	done := 0
	for _, c := range chunks {
		if finished {
			break
		}
		f.in <- c.Data
		wait()
		if len(dec) > done {
			out = append(out, trace.Chunk{TNs: c.TNs, Data: dec[done:len(dec):len(dec)]})
			done = len(dec)
		}
	}
	if !finished {
		close(f.in)
		for !finished {
			wait()
		}
	}
	if len(dec) > done && len(chunks) > 0 {
		// Bytes the decoder held until the body's end (a gzip member's
		// last bytes wait for its trailer): the last read's.
		out = append(out, trace.Chunk{TNs: chunks[len(chunks)-1].TNs, Data: dec[done:len(dec):len(dec)]})
	}
	if chunks == nil {
		out = nil
	}
	if err != nil {
		return out, fmt.Errorf("Content-Encoding %s: %v", e, err)
	}
	return out, nil
}

// Reader hands on the requests of a trace with a content_encoding column
// decoded, the column then null; a request whose body does not decode
// keeps what did and is failed, its error saying why. Any other trace's
// requests pass as they are.
type Reader struct {
	trace.Reader
	col  int  // the column's index in Info().Extra, -1 when none
	json bool // the column holds JSON text (a quoted string)
	req  trace.Request
}

// NewReader wraps r.
func NewReader(r trace.Reader) *Reader {
	d := &Reader{Reader: r, col: -1}
	for i, x := range r.Info().Extra {
		if x.Name == Column && (x.Kind == trace.ExtraString || x.Kind == trace.ExtraJSON) {
			d.col, d.json = i, x.Kind == trace.ExtraJSON
		}
	}
	return d
}

// Request is the current request, decoded.
func (d *Reader) Request() *trace.Request {
	src := d.Reader.Request()
	if d.col < 0 || src == nil || d.col >= len(src.Extra) {
		return src
	}
	v := src.Extra[d.col]
	enc := v.Str
	if d.json {
		enc = strings.Trim(enc, `"`)
	}
	if v.Null || norm(enc) == "" || norm(enc) == "identity" {
		return src
	}
	d.req = *src
	d.req.Extra = append([]trace.Value(nil), src.Extra...)
	d.req.Extra[d.col] = trace.Value{Null: true}
	chunks, err := Decode(enc, src.Chunks)
	d.req.Chunks = chunks
	if err != nil {
		msg := err.Error()
		if src.Error != nil {
			msg = *src.Error + "; " + msg
		}
		d.req.Error = &msg
	}
	return &d.req
}
