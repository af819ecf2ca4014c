package arrowfile

import (
	"encoding/binary"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sseaudit/sseaudit/trace"
)

// messageReader reads the messages of an Arrow IPC stream like arrow-go's own
// reader, but checks each message's metadata first (see fbcheck.go) and
// bounds its lengths by the file size.
type messageReader struct {
	r    io.Reader // a *sliceReader: the bodies are read in place
	mem  memory.Allocator
	size int64
	msg  *ipc.Message
	kind byte // of msg: fbHeaderSchema, ...
	refs atomic.Int64
	// noEOS is set when the stream ends at a message boundary without the
	// end-of-stream marker.
	noEOS *atomic.Bool
}

func (m *messageReader) Retain() { m.refs.Add(1) }

func (m *messageReader) Release() {
	if m.refs.Add(-1) == 0 && m.msg != nil {
		m.msg.Release()
		m.msg = nil
	}
}

func (m *messageReader) Message() (*ipc.Message, error) {
	if m.msg != nil {
		m.msg.Release()
		m.msg = nil
	}
	var word [4]byte
	if _, err := io.ReadFull(m.r, word[:]); err != nil {
		if err == io.EOF { // the stream may end without an end-of-stream marker
			if m.noEOS != nil {
				m.noEOS.Store(true)
			}
			return nil, io.EOF
		}
		return nil, fmt.Errorf("arrow/ipc: could not read message length: %w (%w)", err, trace.ErrCut)
	}
	n := binary.LittleEndian.Uint32(word[:])
	if n == continuationMarker {
		if _, err := io.ReadFull(m.r, word[:]); err != nil {
			return nil, fmt.Errorf("arrow/ipc: could not read message length: %w (%w)", noEOF(err), trace.ErrCut)
		}
		n = binary.LittleEndian.Uint32(word[:])
	}
	if n == 0 {
		// The end-of-stream marker ends the file: bytes after it (a second
		// stream appended, say) would be left unread without a word.
		if extra, _ := io.Copy(io.Discard, m.r); extra > 0 {
			return nil, fmt.Errorf("arrow/ipc: %d bytes after the end-of-stream marker: want the marker at the end of the file (two streams written one after the other?)", extra)
		}
		return nil, io.EOF
	}
	if int64(n) > m.size {
		return nil, fmt.Errorf("arrow/ipc: message metadata length %d is more than the file size %d (%w)", n, m.size, trace.ErrCut)
	}
	meta := make([]byte, n)
	if _, err := io.ReadFull(m.r, meta); err != nil {
		return nil, fmt.Errorf("arrow/ipc: could not read message metadata: %w (%w)", noEOF(err), trace.ErrCut)
	}
	kind, bodyLen, err := checkMessage(meta)
	if err != nil {
		return nil, fmt.Errorf("arrow/ipc: corrupt message metadata: %w", err)
	}
	m.kind = kind
	if bodyLen < 0 || bodyLen > m.size {
		return nil, fmt.Errorf("arrow/ipc: message body length %d is more than the file size %d (%w)", bodyLen, m.size, trace.ErrCut)
	}
	if s, ok := m.r.(*sliceReader); ok {
		body := s.take(bodyLen)
		if int64(len(body)) < bodyLen {
			return nil, fmt.Errorf("arrow/ipc: could not read message body: %w (%w)", io.ErrUnexpectedEOF, trace.ErrCut)
		}
		m.msg = ipc.NewMessage(memory.NewBufferBytes(meta), memory.NewBufferBytes(body))
		return m.msg, nil
	}
	body := memory.NewResizableBuffer(m.mem)
	defer body.Release()
	body.Resize(int(bodyLen))
	if _, err := io.ReadFull(m.r, body.Bytes()); err != nil {
		return nil, fmt.Errorf("arrow/ipc: could not read message body: %w (%w)", noEOF(err), trace.ErrCut)
	}
	m.msg = ipc.NewMessage(memory.NewBufferBytes(meta), body)
	return m.msg, nil
}

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// noteNoEOS is the note a stream without an end-of-stream marker gets: it is
// read, since a capture that was stopped leaves one, but a stream cut at a
// batch boundary looks the same, and the reader cannot tell how much is
// missing.
const noteNoEOS = "the stream ends without an end-of-stream marker: its writer did not finish (a capture that was stopped?) or the file was cut short; every complete record batch was read"

// eosReader adds noteNoEOS to Info once the stream's end was reached
// without the marker.
type eosReader struct {
	trace.Reader
	noEOS *atomic.Bool
}

func (r *eosReader) Info() trace.Info {
	info := r.Reader.Info()
	if r.noEOS.Load() {
		info.Notes = append(append([]string(nil), info.Notes...), noteNoEOS)
	}
	return info
}
