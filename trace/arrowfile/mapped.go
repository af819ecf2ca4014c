package arrowfile

import (
	"bytes"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sseaudit/sseaudit/trace"
)

// A mapping is a trace file mapped into memory (issue 18): record batches
// are decoded in place, their buffers slices of the mapping, so a file of
// one record batch (what apache-arrow JS and pyarrow write for a table)
// does not have to fit in the heap. Mapped pages count in the resident set
// as they are touched, so the reader drops them (madvise MADV_DONTNEED)
// each time it has consumed dropEvery bytes: they are the page cache's,
// and the few still in use come back on the next touch. A file that cannot
// be mapped (a pipe, a platform without mmap) is read into the heap as
// before.
type mapping struct {
	data  []byte
	since int64 // bytes consumed since the pages were last dropped
}

const dropEvery = 32 << 20

// consumed counts n bytes of records decoded, and drops the mapped pages
// once dropEvery bytes have been.
func (m *mapping) consumed(n int) {
	if m == nil {
		return
	}
	m.since += int64(n)
	if m.since >= dropEvery {
		m.since = 0
		m.drop()
	}
}

// sliceReader reads a mapping from an offset; take hands out its bytes in
// place.
type sliceReader struct {
	data []byte
	off  int64
}

func (s *sliceReader) Read(p []byte) (int, error) {
	if s.off >= int64(len(s.data)) {
		return 0, io.EOF
	}
	n := copy(p, s.data[s.off:])
	s.off += int64(n)
	return n, nil
}

// take returns the next n bytes, or fewer at the end of the data.
func (s *sliceReader) take(n int64) []byte {
	end := min(s.off+n, int64(len(s.data)))
	b := s.data[s.off:end:end]
	s.off = end
	return b
}

// blockMessages reads the messages of a mapped Arrow IPC file as a stream:
// the schema, then the dictionaries and the record batches its footer
// lists, each framed as a stream's message at its block's offset.
// arrow-go's own NewMappedFileReader does the same but cannot read a
// file's dictionaries (its memo of them is never made).
type blockMessages struct {
	*messageReader
	s      *sliceReader
	schema *sliceReader // the schema message
	blocks []fileBlock
	kinds  []byte // fbHeaderDictionary or fbHeaderRecordBatch, of each block
	i      int    // the next message: 0 the schema, i the block i-1
}

// schemaOffset is where a file's stream of messages starts, after the magic
// and its padding.
const schemaOffset = int64(len("ARROW1\x00\x00"))

// newBlockMessages reads data, the mapped file; schema is the schema
// message, a slice of data or one made from the footer's schema (see
// mappedSchema).
func newBlockMessages(src trace.Source, data, schema []byte, dicts, batches []fileBlock) *blockMessages {
	s := &sliceReader{data: data}
	b := &blockMessages{messageReader: &messageReader{r: s, size: src.Size}, s: s, schema: &sliceReader{data: schema}}
	for _, blk := range dicts {
		b.blocks, b.kinds = append(b.blocks, blk), append(b.kinds, fbHeaderDictionary)
	}
	for _, blk := range batches {
		b.blocks, b.kinds = append(b.blocks, blk), append(b.kinds, fbHeaderRecordBatch)
	}
	b.refs.Store(1)
	return b
}

func (b *blockMessages) Message() (*ipc.Message, error) {
	if b.i > len(b.blocks) {
		return nil, io.EOF
	}
	want, off := byte(fbHeaderSchema), int64(0)
	var blk fileBlock
	b.messageReader.r = b.schema
	if b.i > 0 {
		blk = b.blocks[b.i-1]
		want, off = b.kinds[b.i-1], blk.offset
		b.messageReader.r = b.s
	}
	b.i++
	b.schema.off, b.s.off = 0, off
	msg, err := b.messageReader.Message()
	if err == io.EOF {
		err = fmt.Errorf("arrow/ipc: end-of-stream marker at offset %d, where a message was due", off)
	}
	if err != nil {
		return nil, err
	}
	if b.kind != want {
		return nil, fmt.Errorf("arrow/ipc: message of type %d at offset %d, where the file wants one of type %d", b.kind, off, want)
	}
	if b.i > 1 && (b.s.off-off != int64(blk.metaLen)+blk.bodyLen) {
		return nil, fmt.Errorf("arrow/ipc: the message at offset %d is %d bytes long, where the footer says %d", off, b.s.off-off, int64(blk.metaLen)+blk.bodyLen)
	}
	return msg, nil
}

// mappedSchema returns the schema message of a mapped Arrow IPC file: the
// one its stream of messages starts with, or, for a writer that leaves it
// out (apache-arrow JS), one written from the footer's schema; ok is false
// when neither will do (such a file with dictionaries, whose ids a schema
// written again may not keep).
func mappedSchema(src trace.Source, data []byte, mem memory.Allocator, dicts []fileBlock) (msg []byte, ok bool, err error) {
	s := &sliceReader{data: data, off: schemaOffset}
	first := &messageReader{r: s, size: src.Size}
	if _, err := first.Message(); err == nil && first.kind == fbHeaderSchema {
		return data[schemaOffset:s.off], true, nil
	}
	if len(dicts) > 0 {
		return nil, false, nil
	}
	fr, err := ipc.NewFileReader(src.File, ipcReadOptions(src, mem)...)
	if err != nil {
		return nil, false, arrowError(src.Name, -1, "cannot read the Arrow IPC file footer and schema (truncated or corrupt file?)", err)
	}
	defer fr.Close()
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(fr.Schema()), ipc.WithAllocator(mem))
	if err := w.Close(); err != nil {
		return nil, false, trace.FileError(src.Name, err, "cannot write the file's schema as a message")
	}
	return buf.Bytes(), true, nil
}
