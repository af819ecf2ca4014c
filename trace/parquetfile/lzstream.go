package parquetfile

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/snappy"
)

// Parquet's SNAPPY and LZ4_RAW pages are single raw blocks, which the
// libraries decode whole. The decoders here decode them as a stream, keeping
// a window of the output they produced for the matches to copy from: a page
// of 200 MB (DuckDB writes a row group's column as one page) then costs the
// window, not the page. An LZ4 match reaches at most 65,535 bytes back, so
// its window is exact. A snappy match may reach back anywhere in the block;
// writers cut their input into 64 KiB fragments (Google's snappy, Go's) or
// 4 MiB blocks (S2), so a window of 4 MiB covers them, and a match that
// reaches further makes the decoder decode the page whole, as the libraries
// do, and go on from where it was.

// lzHistory is the bytes a streaming LZ decoder keeps behind its output.
const (
	lz4History = 64 << 10
	// lzStep is how much output a decoder makes before handing it out.
	lzStep = 64 << 10
)

// snappyHistory is a variable so that the tests can make matches reach
// behind it.
var snappyHistory = 4 << 20

// lzWindow is the output of a streaming LZ decoder: buf[:rd] is history,
// buf[rd:] decoded and not yet read.
type lzWindow struct {
	buf      []byte
	rd       int
	history  int
	produced int64 // bytes decoded in all
	limit    int64 // bytes the page claims: decoding more is an error
}

func (w *lzWindow) reset(history int, limit int64) {
	w.buf, w.rd, w.history, w.produced, w.limit = w.buf[:0], 0, history, 0, limit
}

// room makes space for n more bytes of output, dropping history beyond the
// window.
func (w *lzWindow) room(n int) error {
	if w.produced+int64(n) > w.limit {
		return fmt.Errorf("decompresses to more than the %d bytes the page header claims", w.limit)
	}
	if len(w.buf)+n <= cap(w.buf) {
		return nil
	}
	keep := min(len(w.buf), max(w.history, len(w.buf)-w.rd))
	drop := len(w.buf) - keep
	if drop > 0 && keep+n <= cap(w.buf) {
		copy(w.buf, w.buf[drop:])
		w.buf, w.rd = w.buf[:keep], w.rd-drop
		return nil
	}
	// Twice the history: sliding the window then copies the history once
	// per history's worth of output, not once per step (a 4 MiB snappy
	// window slid every 64 KiB spent half the read in copying).
	nb := make([]byte, len(w.buf)-drop, max(2*cap(w.buf), 2*w.history+2*lzStep, keep+n))
	copy(nb, w.buf[drop:])
	w.buf, w.rd = nb, w.rd-drop
	return nil
}

// literal appends n bytes of src.
func (w *lzWindow) literal(src byteSource, n int) error {
	if err := w.room(n); err != nil {
		return err
	}
	start := len(w.buf)
	w.buf = w.buf[:start+n]
	if err := readFull(src, w.buf[start:]); err != nil {
		w.buf = w.buf[:start]
		return err
	}
	w.produced += int64(n)
	return nil
}

// errFarMatch is a match reaching behind the window, within the output.
var errFarMatch = errors.New("match beyond the window")

// match appends n bytes copied from off bytes back.
func (w *lzWindow) match(off, n int) error {
	if off <= 0 || int64(off) > w.produced {
		return fmt.Errorf("a match %d bytes back after %d bytes of output", off, w.produced)
	}
	if off > len(w.buf) {
		return errFarMatch
	}
	if err := w.room(n); err != nil {
		return err
	}
	start := len(w.buf)
	w.buf = w.buf[:start+n]
	from := start - off
	if off >= n {
		copy(w.buf[start:], w.buf[from:from+n])
	} else {
		for i := range n { // overlapping: byte by byte
			w.buf[start+i] = w.buf[from+i]
		}
	}
	w.produced += int64(n)
	return nil
}

// read hands out decoded bytes.
func (w *lzWindow) read(p []byte) int {
	n := copy(p, w.buf[w.rd:])
	w.rd += n
	return n
}

func (w *lzWindow) unread() int { return len(w.buf) - w.rd }

// lzReader is a streaming SNAPPY or LZ4_RAW decoder: an io.Reader of the
// page's decompressed bytes.
type lzReader struct {
	snappy bool
	in     *bufio.Reader
	page   *io.SectionReader // the compressed bytes, for a whole decode
	out    lzWindow
	done   bool
	// Pending parts of an element cut at lzStep: a literal's bytes, a
	// match's length.
	litLeft, matchLeft, matchOff int
	token                        byte    // the LZ4 sequence being read
	tmp                          [4]byte // an offset or a length being read (not on the heap per element)
	matchNext                    bool    // its match follows its literal
	// whole is the page decoded whole after a far match; wholePos the next
	// byte to hand out.
	whole    []byte
	wholePos int64
}

func (z *lzReader) reset(page *io.SectionReader, isSnappy bool, limit int64) error {
	if z.in == nil {
		z.in = bufio.NewReaderSize(page, 64<<10)
	} else {
		z.in.Reset(page)
	}
	z.snappy, z.page, z.done, z.whole = isSnappy, page, false, nil
	z.litLeft, z.matchLeft, z.matchOff, z.matchNext = 0, 0, 0, false
	history := lz4History
	if isSnappy {
		history = snappyHistory
		n, err := readUvarint(z.in)
		if err != nil {
			return fmt.Errorf("snappy: %w", err)
		}
		if n > uint64(limit) {
			return fmt.Errorf("snappy data of %d bytes, more than the %d the page header claims", n, limit)
		}
		limit = int64(n)
	}
	z.out.reset(history, limit)
	return nil
}

func (z *lzReader) Read(p []byte) (int, error) {
	if z.whole != nil {
		if z.wholePos >= int64(len(z.whole)) {
			return 0, io.EOF
		}
		n := copy(p, z.whole[z.wholePos:])
		z.wholePos += int64(n)
		return n, nil
	}
	for z.out.unread() == 0 {
		if z.done {
			return 0, io.EOF
		}
		if err := z.step(); err != nil {
			if errors.Is(err, errFarMatch) {
				if err := z.decodeWhole(); err != nil {
					return 0, err
				}
				return z.Read(p)
			}
			return 0, err
		}
	}
	return z.out.read(p), nil
}

// step decodes about lzStep bytes of output.
func (z *lzReader) step() error {
	target := z.out.produced + lzStep
	for z.out.produced < target && !z.done {
		var err error
		switch {
		case z.litLeft > 0:
			n := min(z.litLeft, lzStep)
			if err = z.out.literal(z.in, n); err == nil {
				z.litLeft -= n
			}
		case z.matchNext:
			err = z.lz4Match()
		case z.matchLeft > 0:
			n := min(z.matchLeft, lzStep)
			if err = z.out.match(z.matchOff, n); err == nil {
				z.matchLeft -= n
			}
		case z.snappy:
			err = z.snappyElement()
		default:
			err = z.lz4Sequence()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// snappyElement reads one snappy tag and its literal or match.
func (z *lzReader) snappyElement() error {
	if z.out.produced == z.out.limit {
		z.done = true
		return nil
	}
	tag, err := z.in.ReadByte()
	if err != nil {
		return errShortPage
	}
	z.tmp = [4]byte{} // a literal's length of fewer than 4 bytes reads the rest as 0
	b := &z.tmp
	switch tag & 3 {
	case 0: // literal
		n := int(tag >> 2)
		if n >= 60 {
			k := n - 59
			if err := readFull(z.in, b[:k]); err != nil {
				return err
			}
			v := uint64(binary.LittleEndian.Uint32(b[:]))
			if v >= uint64(z.out.limit) {
				return fmt.Errorf("a literal of %d bytes in %d bytes of output", v+1, z.out.limit)
			}
			n = int(v)
		}
		z.litLeft = n + 1
		return nil
	case 1:
		c, err := z.in.ReadByte()
		if err != nil {
			return errShortPage
		}
		z.matchLeft, z.matchOff = 4+int(tag>>2)&7, int(tag&0xe0)<<3|int(c)
	case 2:
		if err := readFull(z.in, b[:2]); err != nil {
			return err
		}
		z.matchLeft, z.matchOff = 1+int(tag>>2), int(binary.LittleEndian.Uint16(b[:]))
	case 3:
		if err := readFull(z.in, b[:4]); err != nil {
			return err
		}
		off := binary.LittleEndian.Uint32(b[:])
		if off > 1<<31 {
			return fmt.Errorf("a match %d bytes back", off)
		}
		z.matchLeft, z.matchOff = 1+int(tag>>2), int(off)
	}
	return nil
}

// lz4Sequence reads the token and literal length of the next LZ4
// sequence; its literal and match follow (step).
func (z *lzReader) lz4Sequence() error {
	token, err := z.in.ReadByte()
	if err != nil {
		if errors.Is(err, io.EOF) {
			z.done = true // the block ended after a sequence's literals
			return nil
		}
		return err
	}
	lit, err := z.lz4Length(int(token >> 4))
	if err != nil {
		return err
	}
	z.token, z.litLeft, z.matchNext = token, lit, true
	if lit == 0 {
		return z.lz4Match()
	}
	return nil
}

// lz4Match reads the match that follows a sequence's literals, if the block
// goes on.
func (z *lzReader) lz4Match() error {
	z.matchNext = false
	b := z.tmp[:2]
	if _, err := io.ReadFull(z.in, b); err != nil {
		if errors.Is(err, io.EOF) {
			z.done = true // the last sequence has no match
			return nil
		}
		return errShortPage
	}
	n, err := z.lz4Length(int(z.token & 15))
	if err != nil {
		return err
	}
	z.matchLeft, z.matchOff = n+4, int(binary.LittleEndian.Uint16(b))
	return nil
}

// lz4Length reads the extension bytes of a length whose token nibble is n.
func (z *lzReader) lz4Length(n int) (int, error) {
	if n < 15 {
		return n, nil
	}
	for {
		c, err := z.in.ReadByte()
		if err != nil {
			return 0, errShortPage
		}
		n += int(c)
		if int64(n) > z.out.limit {
			return 0, fmt.Errorf("a length of more than the %d bytes the page header claims", z.out.limit)
		}
		if c != 255 {
			return n, nil
		}
	}
}

// decodeWhole decodes the page whole (a snappy match reached behind the
// window) and goes on from the bytes already handed out.
func (z *lzReader) decodeWhole() error {
	comp := make([]byte, z.page.Size())
	if _, err := z.page.ReadAt(comp, 0); err != nil {
		return err
	}
	out, err := snappy.Decode(make([]byte, z.out.limit), comp)
	if err != nil {
		return fmt.Errorf("snappy: %w", err)
	}
	z.whole = out
	z.wholePos = z.out.produced - int64(z.out.unread())
	return nil
}
