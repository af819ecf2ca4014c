package parquetfile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// pageState is a data page being read: its levels and its values, decoded
// a window at a time.
type pageState struct {
	s         *columnStream
	p         *pageInfo
	whole     bool // the page is in the window's raw bytes
	pos       int  // whole: the next value byte in raw (PLAIN, DELTA_LENGTH_BYTE_ARRAY)
	bytesR    bytes.Reader
	src       byteSource // the values, after the levels
	enc       format.Encoding
	slotsLeft int

	rep, def         levelReader
	rleRep, rleDef   fastLevels
	bpRep, bpDef     bitPackedLevels
	repBR, defBR     bytes.Reader
	levelBuf         []byte // a streamed page's levels
	pendRep, pendDef []byte // levels decoded and not yet used (a window cut)

	idx      rleDecoder   // dictionary indexes, booleans (RLE)
	delta    deltaDecoder // DELTA_BINARY_PACKED values
	lengths  []int32      // DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY suffixes
	prefixes []int32      // DELTA_BYTE_ARRAY
	nextLen  int
	prev     []byte // DELTA_BYTE_ARRAY: the last value
	carry    []byte // a streamed page's bytes read past the last window's values
	bss      []byte // BYTE_STREAM_SPLIT: the page's values, split
	bssNext  int
	bitByte  byte // PLAIN booleans: the byte being read, and its bits left
	bitLeft  int
}

func (ps *pageState) reset(s *columnStream, p *pageInfo) {
	*ps = pageState{s: s, p: p, slotsLeft: p.numValues, enc: p.encoding,
		levelBuf: ps.levelBuf[:0], pendRep: ps.pendRep[:0], pendDef: ps.pendDef[:0],
		lengths: ps.lengths[:0], prefixes: ps.prefixes[:0], prev: ps.prev[:0], carry: ps.carry[:0],
		delta: ps.delta}
}

func levelWidth(max int) uint { return uint(bits.Len(uint(max))) }

// v1Levels reads the levels a v1 page starts with from src (a page held
// whole in raw, whose level bytes are then used where they lie; or a stream,
// read into levelBuf). It returns the bytes they took.
func (ps *pageState) v1Levels(src byteSource, raw []byte) (int, error) {
	l, n := ps.s.l, 0
	var err error
	if l.maxRep > 0 {
		ps.rep, err = ps.v1Level(src, raw, &n, ps.p.repEnc, l.maxRep, &ps.rleRep, &ps.bpRep, &ps.repBR)
		if err != nil {
			return 0, fmt.Errorf("repetition levels: %w", err)
		}
	}
	if l.maxDef > 0 {
		ps.def, err = ps.v1Level(src, raw, &n, ps.p.defEnc, l.maxDef, &ps.rleDef, &ps.bpDef, &ps.defBR)
		if err != nil {
			return 0, fmt.Errorf("definition levels: %w", err)
		}
	}
	return n, nil
}

func (ps *pageState) v1Level(src byteSource, raw []byte, used *int, enc format.Encoding, max int,
	rle *fastLevels, bp *bitPackedLevels, br *bytes.Reader) (levelReader, error) {
	w := levelWidth(max)
	var size int64
	switch enc {
	case format.RLE:
		var b [4]byte
		if err := readFull(src, b[:]); err != nil {
			return nil, err
		}
		*used += 4
		size = int64(binary.LittleEndian.Uint32(b[:]))
	case format.BitPacked:
		size = (int64(ps.p.numValues)*int64(w) + 7) / 8
	default:
		return nil, fmt.Errorf("encoding %s: want RLE or BIT_PACKED", enc)
	}
	if size > ps.p.uncomp {
		return nil, fmt.Errorf("%d bytes in a page of %d", size, ps.p.uncomp)
	}
	var b []byte
	if raw != nil {
		if int64(len(raw)-*used) < size {
			return nil, errShortPage
		}
		b = raw[*used : *used+int(size)]
		if _, err := ps.bytesR.Seek(int64(*used)+size, io.SeekStart); err != nil {
			return nil, err
		}
	} else {
		start := len(ps.levelBuf)
		ps.levelBuf = append(ps.levelBuf, make([]byte, size)...)
		b = ps.levelBuf[start:]
		if err := readFull(src, b); err != nil {
			return nil, err
		}
	}
	*used += int(size)
	br.Reset(b)
	if enc == format.BitPacked {
		*bp = bitPackedLevels{b: b, width: w}
		return bp, nil
	}
	rle.reset(br, w)
	return rle, nil
}

// v2Levels takes a v2 page's levels from b (repetition, then definition,
// without length prefixes).
func (ps *pageState) v2Levels(b []byte) error {
	l, p := ps.s.l, ps.p
	if (l.maxRep == 0 && p.repLen != 0) || (l.maxDef == 0 && p.defLen != 0) {
		return fmt.Errorf("%d bytes of repetition and %d of definition levels in a column with levels up to %d and %d", p.repLen, p.defLen, l.maxRep, l.maxDef)
	}
	if l.maxRep > 0 {
		ps.repBR.Reset(b[:p.repLen])
		ps.rleRep.reset(&ps.repBR, levelWidth(l.maxRep))
		ps.rep = &ps.rleRep
	}
	if l.maxDef > 0 {
		ps.defBR.Reset(b[p.repLen : p.repLen+p.defLen])
		ps.rleDef.reset(&ps.defBR, levelWidth(l.maxDef))
		ps.def = &ps.rleDef
	}
	return nil
}

// startValues reads what an encoding puts before the values.
func (ps *pageState) startValues() error {
	s, kind := ps.s, ps.s.l.kind
	switch ps.enc {
	case format.Plain:
		return nil
	case plainDictionary, format.RLEDictionary:
		if s.dict == nil {
			return fmt.Errorf("a dictionary-encoded page without a dictionary page")
		}
		w, err := ps.src.ReadByte()
		if err != nil {
			return errShortPage
		}
		if w > 32 {
			return fmt.Errorf("dictionary indexes of %d bits", w)
		}
		ps.idx.reset(ps.src, uint(w))
		return nil
	case format.DeltaBinaryPacked:
		if kind != parquet.Int64 && kind != parquet.Int32 {
			break
		}
		return ps.delta.reset(ps.src, uint(8*kindWidth(kind)))
	case format.DeltaLengthByteArray:
		if kind != parquet.ByteArray {
			break
		}
		return ps.readLengths(&ps.lengths, "value length")
	case format.DeltaByteArray:
		if kind != parquet.ByteArray {
			break
		}
		if err := ps.readLengths(&ps.prefixes, "prefix length"); err != nil {
			return err
		}
		return ps.readLengths(&ps.lengths, "suffix length")
	case format.ByteStreamSplit:
		if kindWidth(kind) == 0 {
			break
		}
		b, err := io.ReadAll(io.LimitReader(ps.src, ps.p.uncomp))
		if err != nil {
			return err
		}
		ps.bss = b
		return nil
	case format.RLE:
		if kind != parquet.Boolean {
			break
		}
		var b [4]byte
		if err := readFull(ps.src, b[:]); err != nil {
			return err
		}
		ps.idx.reset(ps.src, 1)
		return nil
	}
	return fmt.Errorf("encoding %s of a %s column: not supported", ps.enc, kind)
}

func (ps *pageState) readLengths(dst *[]int32, what string) error {
	if err := ps.delta.reset(ps.src, 32); err != nil {
		return fmt.Errorf("%ss: %w", what, err)
	}
	if ps.delta.total > ps.p.numValues {
		return fmt.Errorf("%d %ss in a page of %d values", ps.delta.total, what, ps.p.numValues)
	}
	var err error
	*dst, err = ps.delta.readLengths((*dst)[:0], what)
	if err != nil {
		return fmt.Errorf("%ss: %w", what, err)
	}
	return nil
}

// fill decodes the page's next window into w.
func (ps *pageState) fill(w *window) error {
	l := ps.s.l
	n, budget := ps.slotsLeft, 0
	if !ps.whole {
		n, budget = min(n, streamSlots), streamBlock
	}
	var reps, defs []byte
	var err error
	if l.maxRep > 0 {
		if reps, err = ps.levels(&w.repBuf, &ps.pendRep, ps.rep, n, l.maxRep); err != nil {
			return fmt.Errorf("repetition levels: %w", err)
		}
	}
	present := n
	if l.maxDef > 0 {
		if defs, err = ps.levels(&w.defBuf, &ps.pendDef, ps.def, n, l.maxDef); err != nil {
			return fmt.Errorf("definition levels: %w", err)
		}
		present = 0
		for _, d := range defs {
			if int(d) == l.maxDef {
				present++
			}
		}
	}
	got, err := ps.values(w, present, budget)
	if err != nil {
		return err
	}
	if got < present { // the window is full: cut it after its last value
		k, seen := 0, 0
		for ; seen < got; k++ {
			if defs == nil || int(defs[k]) == l.maxDef {
				seen++
			}
		}
		if reps != nil {
			ps.pendRep = append(ps.pendRep[:0], reps[k:]...)
			reps = reps[:k]
		}
		if defs != nil {
			ps.pendDef = append(ps.pendDef[:0], defs[k:]...)
			defs = defs[:k]
		}
		n = k
	}
	w.reps, w.defs, w.slots = reps, defs, n
	ps.slotsLeft -= n
	if ps.enc == plainDictionary || ps.enc == format.RLEDictionary {
		w.dict = ps.s.dict
	}
	return nil
}

// levels decodes the next n levels into *buf, those left over from the last
// window first.
func (ps *pageState) levels(buf, pend *[]byte, r levelReader, n, max int) ([]byte, error) {
	if cap(*buf) < n {
		*buf = make([]byte, n)
	}
	b := (*buf)[:n]
	k := copy(b, *pend)
	*pend = (*pend)[:copy(*pend, (*pend)[k:])]
	if k < n {
		if err := r.readLevels(b[k:], max); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// values decodes the next n values into w; with a budget (bytes), fewer
// once a window holds that many bytes of values (at least one value).
func (ps *pageState) values(w *window, n, budget int) (int, error) {
	kind := ps.s.l.kind
	switch ps.enc {
	case plainDictionary, format.RLEDictionary:
		w.indexes = grow(&w.indexBuf, n)
		if err := ps.idx.readIndexes(w.indexes); err != nil {
			return 0, fmt.Errorf("dictionary indexes: %w", err)
		}
		return n, nil
	}
	switch kind {
	case parquet.ByteArray:
		return ps.byteArrays(w, n, budget)
	case parquet.Boolean:
		return n, ps.booleans(w, n)
	}
	width := kindWidth(kind)
	switch ps.enc {
	case format.Plain:
		var b []byte
		if ps.whole {
			if len(w.raw)-ps.pos < n*width {
				return 0, errShortPage
			}
			b = w.raw[ps.pos : ps.pos+n*width]
			ps.pos += n * width
		} else {
			if cap(w.raw) < n*width {
				w.raw = make([]byte, n*width)
			}
			b = w.raw[:n*width]
			if err := readFull(ps.src, b); err != nil {
				return 0, err
			}
		}
		putFixed(w, kind, n, func(i int) uint64 {
			if width == 8 {
				return binary.LittleEndian.Uint64(b[8*i:])
			}
			return uint64(binary.LittleEndian.Uint32(b[4*i:]))
		})
	case format.DeltaBinaryPacked:
		var err error
		putFixed(w, kind, n, func(int) uint64 {
			v, e := ps.delta.next()
			if e != nil && err == nil {
				err = e
			}
			return uint64(v)
		})
		if err != nil {
			return 0, err
		}
	case format.ByteStreamSplit:
		total := len(ps.bss) / width
		if ps.bssNext+n > total {
			return 0, errShortPage
		}
		putFixed(w, kind, n, func(i int) uint64 {
			var v uint64
			for k := range width {
				v |= uint64(ps.bss[k*total+ps.bssNext+i]) << (8 * k)
			}
			return v
		})
		ps.bssNext += n
	}
	return n, nil
}

// putFixed puts n fixed-width values, given by their bits, into w.
func putFixed(w *window, kind parquet.Kind, n int, at func(i int) uint64) {
	switch kind {
	case parquet.Int64:
		w.ints = grow(&w.intBuf, n)
		for i := range n {
			w.ints[i] = int64(at(i))
		}
	case parquet.Int32:
		w.int32s = grow(&w.int32Buf, n)
		for i := range n {
			w.int32s[i] = int32(uint32(at(i)))
		}
	case parquet.Double:
		w.floats = grow(&w.floatBuf, n)
		for i := range n {
			w.floats[i] = math.Float64frombits(at(i))
		}
	case parquet.Float:
		w.float32s = grow(&w.float32Buf, n)
		for i := range n {
			w.float32s[i] = math.Float32frombits(uint32(at(i)))
		}
	}
}

func grow[T any](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n)
	}
	return (*buf)[:n]
}

func (ps *pageState) booleans(w *window, n int) error {
	w.bools = grow(&w.boolBuf, n)
	if ps.enc == format.RLE {
		return ps.idx.readBools(w.bools)
	}
	if ps.enc != format.Plain {
		return fmt.Errorf("encoding %s of a BOOLEAN column: not supported", ps.enc)
	}
	for i := range n {
		if ps.bitLeft == 0 {
			b, err := ps.src.ReadByte()
			if err != nil {
				return errShortPage
			}
			ps.bitByte, ps.bitLeft = b, 8
		}
		w.bools[i] = ps.bitByte&1 != 0
		ps.bitByte >>= 1
		ps.bitLeft--
	}
	return nil
}

// byteArrays decodes n BYTE_ARRAY values into w.
func (ps *pageState) byteArrays(w *window, n, budget int) (int, error) {
	switch ps.enc {
	case format.Plain, format.DeltaLengthByteArray:
		if ps.whole {
			return n, ps.bytesInPlace(w, n)
		}
		return ps.bytesStreamed(w, n, budget)
	case format.DeltaByteArray:
		return ps.deltaBytes(w, n, budget)
	}
	return 0, fmt.Errorf("encoding %s of a BYTE_ARRAY column: not supported", ps.enc)
}

// nextLength is the length of the next value of a DELTA_LENGTH_BYTE_ARRAY
// or DELTA_BYTE_ARRAY page.
func (ps *pageState) nextLength() (int, error) {
	if ps.nextLen >= len(ps.lengths) {
		return 0, fmt.Errorf("more values than the page's %d lengths", len(ps.lengths))
	}
	ps.nextLen++
	return int(ps.lengths[ps.nextLen-1]), nil
}

// bytesInPlace cuts n PLAIN or DELTA_LENGTH_BYTE_ARRAY values out of the page
// held whole, without copying them.
func (ps *pageState) bytesInPlace(w *window, n int) error {
	raw, pos := w.raw, ps.pos
	starts, ends := grow(&w.startBuf, n), grow(&w.endBuf, n)
	plain := ps.enc == format.Plain
	for i := range n {
		var size uint64
		if plain {
			if len(raw)-pos < 4 {
				return errShortPage
			}
			size = uint64(binary.LittleEndian.Uint32(raw[pos:]))
			pos += 4
		} else {
			l, err := ps.nextLength()
			if err != nil {
				return err
			}
			size = uint64(l)
		}
		if size > uint64(len(raw)-pos) {
			return errShortPage
		}
		starts[i], ends[i] = uint32(pos), uint32(pos+int(size))
		pos += int(size)
	}
	ps.pos = pos
	w.data, w.starts, w.ends = raw, starts, ends
	return nil
}

// bytesStreamed reads PLAIN or DELTA_LENGTH_BYTE_ARRAY values of a streamed
// page into w.raw a block at a time and cuts them out there: up to n, and
// no more once the block holds budget bytes. The bytes of a value cut by the
// block's end are carried to the next window.
func (ps *pageState) bytesStreamed(w *window, n, budget int) (int, error) {
	raw := append(w.raw[:0], ps.carry...)
	ps.carry = ps.carry[:0]
	starts, ends := w.startBuf[:0], w.endBuf[:0]
	plain := ps.enc == format.Plain
	pos, got := 0, 0
	for got < n {
		avail := len(raw) - pos
		var need int
		if plain {
			if avail >= 4 {
				size := uint64(binary.LittleEndian.Uint32(raw[pos:]))
				if size <= uint64(avail-4) {
					starts, ends = append(starts, uint32(pos+4)), append(ends, uint32(pos+4+int(size)))
					pos += 4 + int(size)
					got++
					continue
				}
				if size > uint64(ps.p.uncomp) {
					return 0, fmt.Errorf("a value of %d bytes in a page of %d", size, ps.p.uncomp)
				}
				need = 4 + int(size) - avail
			} else {
				need = 4 - avail
			}
		} else {
			if ps.nextLen >= len(ps.lengths) {
				return 0, fmt.Errorf("more values than the page's %d lengths", len(ps.lengths))
			}
			size := int(ps.lengths[ps.nextLen])
			if size <= avail {
				starts, ends = append(starts, uint32(pos)), append(ends, uint32(pos+size))
				pos += size
				got++
				ps.nextLen++
				continue
			}
			if int64(size) > ps.p.uncomp {
				return 0, fmt.Errorf("a value of %d bytes in a page of %d", size, ps.p.uncomp)
			}
			need = size - avail
		}
		if got > 0 && len(raw) >= budget {
			break
		}
		want := max(need, budget-len(raw), 64<<10)
		if cap(raw)-len(raw) < want {
			grown := make([]byte, len(raw), len(raw)+want)
			copy(grown, raw)
			raw = grown
		}
		m, err := io.ReadAtLeast(ps.src, raw[len(raw):len(raw)+want], need)
		raw = raw[:len(raw)+m]
		if err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return 0, errShortPage
			}
			return 0, err
		}
	}
	ps.carry = append(ps.carry, raw[pos:]...)
	w.raw, w.data, w.starts, w.ends = raw, raw, starts, ends
	w.startBuf, w.endBuf = starts, ends
	return got, nil
}

// deltaBytes reads DELTA_BYTE_ARRAY values (a prefix of the value before,
// then a suffix) into w.own.
func (ps *pageState) deltaBytes(w *window, n, budget int) (int, error) {
	own, starts, ends := w.own[:0], w.startBuf[:0], w.endBuf[:0]
	got := 0
	for ; got < n; got++ {
		if got > 0 && budget > 0 && len(own) >= budget {
			break
		}
		if ps.nextLen >= len(ps.prefixes) {
			return 0, fmt.Errorf("more values than the page's %d prefix lengths", len(ps.prefixes))
		}
		prefix := int(ps.prefixes[ps.nextLen])
		suffix, err := ps.nextLength()
		if err != nil {
			return 0, err
		}
		if prefix > len(ps.prev) || int64(suffix) > ps.p.uncomp {
			return 0, fmt.Errorf("a prefix of %d bytes of a value of %d, and a suffix of %d", prefix, len(ps.prev), suffix)
		}
		start := len(own)
		own = append(own, ps.prev[:prefix]...)
		own = append(own, make([]byte, suffix)...)
		if err := readFull(ps.src, own[start+prefix:]); err != nil {
			return 0, err
		}
		ps.prev = append(ps.prev[:0], own[start:]...)
		starts, ends = append(starts, uint32(start)), append(ends, uint32(len(own)))
	}
	w.own, w.data, w.starts, w.ends = own, own, starts, ends
	w.startBuf, w.endBuf = starts, ends
	return got, nil
}
