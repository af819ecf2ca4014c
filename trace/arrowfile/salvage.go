package arrowfile

import (
	"encoding/binary"
	"fmt"
	"io"
)

// StreamPrefix returns the length of the longest prefix of an Arrow IPC
// stream (.arrows) of size bytes that ends at a message boundary: the
// part of a stream cut short (a crash in the middle of writing a record
// batch, a full disk) that the stream reader reads without an error.
// Copying that prefix finishes the file: every complete record batch is
// kept. eos reports that the stream ended with its end-of-stream marker
// (the returned length then includes it). An error is returned only for
// metadata that is not a message (a corrupt file, not a cut one).
//
// (Added by the capture work, issue 6, for `audit capture --salvage`; the
// readers and writers are unchanged.)
func StreamPrefix(r io.ReaderAt, size int64) (end int64, eos bool, err error) {
	var word [4]byte
	read := func(off int64, b []byte) bool {
		if off+int64(len(b)) > size {
			return false
		}
		_, err := r.ReadAt(b, off)
		return err == nil
	}
	off := int64(0)
	for {
		if !read(off, word[:]) {
			return off, false, nil
		}
		prefix := int64(4)
		n := binary.LittleEndian.Uint32(word[:])
		if n == continuationMarker {
			if !read(off+4, word[:]) {
				return off, false, nil
			}
			prefix = 8
			n = binary.LittleEndian.Uint32(word[:])
		}
		if n == 0 {
			return off + prefix, true, nil
		}
		if off+prefix+int64(n) > size {
			return off, false, nil // cut inside the metadata
		}
		meta := make([]byte, n)
		if !read(off+prefix, meta) {
			return off, false, nil
		}
		_, bodyLen, err := checkMessage(meta)
		if err != nil {
			return off, false, fmt.Errorf("message at offset %d: corrupt metadata: %w", off, err)
		}
		if bodyLen < 0 {
			return off, false, fmt.Errorf("message at offset %d: body length %d", off, bodyLen)
		}
		next := off + prefix + int64(n) + bodyLen
		if next > size {
			return off, false, nil
		}
		off = next
	}
}
