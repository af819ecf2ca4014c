package parquetfile

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// The decoders below read Parquet's encodings from a stream (a page held
// whole, or a page decompressed as it is read), so that a page never needs
// to be in memory at once: the levels and dictionary indexes of the RLE /
// bit-packing hybrid, the deprecated BIT_PACKED levels and DELTA_BINARY_PACKED
// integers. Each checks every count it reads against what is left, so that a
// damaged page ends in an error, not in an allocation.

// byteSource is a page's bytes: a *bytes.Reader over a page held whole, or a
// *bufio.Reader over a page decompressed as it is read.
type byteSource interface {
	io.Reader
	io.ByteReader
}

// errShortPage is a page whose data ends before the values its header
// claims.
var errShortPage = errors.New("the page's data ends early")

func readFull(src byteSource, b []byte) error {
	if _, err := io.ReadFull(src, b); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return errShortPage
		}
		return err
	}
	return nil
}

func readUvarint(src byteSource) (uint64, error) {
	x, err := binary.ReadUvarint(src)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return 0, errShortPage
		}
		return 0, err
	}
	return x, nil
}

func readZigzag(src byteSource) (int64, error) {
	x, err := readUvarint(src)
	return int64(x>>1) ^ -int64(x&1), err
}

// bitsAt returns the width bits at bit position pos of b, least
// significant bit first (Parquet's bit packing).
func bitsAt(b []byte, pos uint64, width uint) uint64 {
	var v uint64
	for got := uint(0); got < width; {
		shift := uint(pos & 7)
		take := min(8-shift, width-got)
		v |= uint64((b[pos>>3]>>shift)&byte(1<<take-1)) << got
		got += take
		pos += uint64(take)
	}
	return v
}

// unpack8 unpacks the 8 values of width bits packed in b (width bytes).
func unpack8(dst *[8]uint64, b []byte, width uint) {
	if width <= 7 { // the 8 values fit in 56 bits: one load
		var x uint64
		for i := range int(width) {
			x |= uint64(b[i]) << (8 * i)
		}
		mask := uint64(1)<<width - 1
		for i := range 8 {
			dst[i] = (x >> (uint(i) * width)) & mask
		}
		return
	}
	for i := range 8 {
		dst[i] = bitsAt(b, uint64(i)*uint64(width), width)
	}
}

// rleDecoder decodes the RLE / bit-packing hybrid: runs of one repeated
// value and groups of 8 bit-packed values.
type rleDecoder struct {
	src   byteSource
	width uint
	// The current run: repeated (value, runLeft times) or bit-packed
	// (groupsLeft groups, of which the values of group[next:] are unread).
	repeat     bool
	value      uint64
	runLeft    int
	groupsLeft uint64
	group      [8]uint64
	next       int // next value of group; 8 when used up
	packed     [64]byte
}

func (d *rleDecoder) reset(src byteSource, width uint) {
	*d = rleDecoder{src: src, width: width, next: 8}
}

// nextRun reads the header of the next run.
func (d *rleDecoder) nextRun() error {
	h, err := readUvarint(d.src)
	if err != nil {
		return err
	}
	if h&1 == 1 {
		d.repeat, d.groupsLeft, d.next = false, h>>1, 8
		if d.groupsLeft == 0 {
			return errors.New("an empty bit-packed run")
		}
		return nil
	}
	n := h >> 1
	if n == 0 {
		return errors.New("an empty RLE run")
	}
	if n > 1<<31 {
		return fmt.Errorf("an RLE run of %d values", n)
	}
	var b [8]byte
	w := (d.width + 7) / 8
	if err := readFull(d.src, b[:w]); err != nil {
		return err
	}
	d.repeat, d.runLeft, d.value = true, int(n), binary.LittleEndian.Uint64(b[:])
	if d.width < 64 && d.value>>d.width != 0 {
		return fmt.Errorf("RLE run value %d wider than %d bits", d.value, d.width)
	}
	return nil
}

// read decodes len(dst) values into dst through put.
func (d *rleDecoder) read(n int, put func(i int, v uint64)) error {
	if d.width == 0 { // every value is 0, and no byte holds them
		for i := range n {
			put(i, 0)
		}
		return nil
	}
	for i := 0; i < n; {
		switch {
		case d.repeat && d.runLeft > 0:
			k := min(d.runLeft, n-i)
			for j := range k {
				put(i+j, d.value)
			}
			d.runLeft -= k
			i += k
		case !d.repeat && d.next < 8:
			for ; d.next < 8 && i < n; d.next++ {
				put(i, d.group[d.next])
				i++
			}
		case !d.repeat && d.groupsLeft > 0:
			b := d.packed[:d.width]
			if err := readFull(d.src, b); err != nil {
				return err
			}
			unpack8(&d.group, b, d.width)
			d.groupsLeft--
			d.next = 0
		default:
			if err := d.nextRun(); err != nil {
				return err
			}
		}
	}
	return nil
}

// readLevels decodes len(dst) levels; each must be at most max.
func (d *rleDecoder) readLevels(dst []byte, max int) error {
	bad := -1
	err := d.read(len(dst), func(i int, v uint64) {
		if v > uint64(max) && bad < 0 {
			bad = i
		}
		dst[i] = byte(v)
	})
	if err == nil && bad >= 0 {
		err = fmt.Errorf("level %d of a column whose levels go up to %d", dst[bad], max)
	}
	return err
}

// readLevelsFast is readLevels for the levels of the common case: repeated
// runs and bit-packed groups of width 1 or 2, without a call a value.
func (d *rleDecoder) readLevelsFast(dst []byte, max int) error {
	if d.width == 0 || d.width > 7 {
		return d.readLevels(dst, max)
	}
	mask := byte(1)<<d.width - 1
	for i := 0; i < len(dst); {
		switch {
		case d.repeat && d.runLeft > 0:
			k := min(d.runLeft, len(dst)-i)
			v := byte(d.value)
			if int(v) > max {
				return fmt.Errorf("level %d of a column whose levels go up to %d", v, max)
			}
			for j := range dst[i : i+k] {
				dst[i+j] = v
			}
			d.runLeft -= k
			i += k
		case !d.repeat && d.next < 8:
			for ; d.next < 8 && i < len(dst); d.next++ {
				dst[i] = byte(d.group[d.next])
				i++
			}
		case !d.repeat && d.groupsLeft > 0 && len(dst)-i >= 8:
			// Whole groups straight into dst.
			b := d.packed[:d.width]
			if err := readFull(d.src, b); err != nil {
				return err
			}
			var x uint64
			for k := range int(d.width) {
				x |= uint64(b[k]) << (8 * k)
			}
			for k := range 8 {
				dst[i+k] = byte(x>>(uint(k)*d.width)) & mask
			}
			d.groupsLeft--
			i += 8
		case !d.repeat && d.groupsLeft > 0:
			b := d.packed[:d.width]
			if err := readFull(d.src, b); err != nil {
				return err
			}
			unpack8(&d.group, b, d.width)
			d.groupsLeft--
			d.next = 0
		default:
			if err := d.nextRun(); err != nil {
				return err
			}
		}
	}
	if max < int(mask) {
		for _, v := range dst {
			if int(v) > max {
				return fmt.Errorf("level %d of a column whose levels go up to %d", v, max)
			}
		}
	}
	return nil
}

// readIndexes decodes len(dst) dictionary indexes; the caller checks them
// against the dictionary.
func (d *rleDecoder) readIndexes(dst []int32) error {
	wide := false
	err := d.read(len(dst), func(i int, v uint64) {
		if v > 1<<31-1 {
			wide = true
		}
		dst[i] = int32(v)
	})
	if err == nil && wide {
		err = errors.New("a dictionary index over 2³¹")
	}
	return err
}

// readBools decodes len(dst) booleans (width 1).
func (d *rleDecoder) readBools(dst []bool) error {
	return d.read(len(dst), func(i int, v uint64) { dst[i] = v != 0 })
}

// bitPackedLevels decodes the deprecated BIT_PACKED levels: values packed
// from the most significant bit, without runs.
type bitPackedLevels struct {
	b     []byte
	width uint
	pos   uint64 // next bit
}

func (d *bitPackedLevels) readLevels(dst []byte, max int) error {
	need := d.pos + uint64(len(dst))*uint64(d.width)
	if need > uint64(len(d.b))*8 {
		return errShortPage
	}
	for i := range dst {
		var v uint64
		for range d.width {
			v = v<<1 | uint64(d.b[d.pos>>3]>>(7-d.pos&7)&1)
			d.pos++
		}
		if v > uint64(max) {
			return fmt.Errorf("level %d of a column whose levels go up to %d", v, max)
		}
		dst[i] = byte(v)
	}
	return nil
}

// levelReader is a page's repetition or definition levels.
type levelReader interface {
	readLevels(dst []byte, max int) error
}

// fastLevels reads levels through readLevelsFast.
type fastLevels struct{ rleDecoder }

func (d *fastLevels) readLevels(dst []byte, max int) error { return d.readLevelsFast(dst, max) }

// deltaDecoder decodes DELTA_BINARY_PACKED integers: a header, then blocks of
// miniblocks of deltas from a minimum, each miniblock with its bit width.
type deltaDecoder struct {
	src       byteSource
	bits      uint // 32 or 64: the arithmetic wraps at this width
	total     int  // values the header announces
	done      int  // values handed out
	perMini   int
	miniPer   int // miniblocks a block
	last      int64
	minDelta  int64
	widths    []byte
	mini      int // next miniblock of the block
	deltas    []uint64
	nextDelta int
	scratch   []byte
}

// maxDeltaBlock bounds the block size a header may announce (writers use 128
// or 1024), so that a damaged header allocates nothing large.
const maxDeltaBlock = 1 << 16

// reset reads the header; bits is 32 for INT32 values (and lengths), 64 for
// INT64.
func (d *deltaDecoder) reset(src byteSource, bits uint) error {
	*d = deltaDecoder{src: src, bits: bits, deltas: d.deltas[:0], scratch: d.scratch, widths: d.widths[:0]}
	block, err := readUvarint(src)
	if err != nil {
		return err
	}
	minis, err := readUvarint(src)
	if err != nil {
		return err
	}
	total, err := readUvarint(src)
	if err != nil {
		return err
	}
	first, err := readZigzag(src)
	if err != nil {
		return err
	}
	if block == 0 || block%128 != 0 || block > maxDeltaBlock || minis == 0 || block%minis != 0 || (block/minis)%32 != 0 {
		return fmt.Errorf("DELTA_BINARY_PACKED blocks of %d values in %d miniblocks", block, minis)
	}
	if total > 1<<31 {
		return fmt.Errorf("DELTA_BINARY_PACKED header announces %d values", total)
	}
	d.total, d.perMini, d.miniPer, d.last = int(total), int(block/minis), int(minis), first
	d.mini = d.miniPer // no block read yet
	return nil
}

func (d *deltaDecoder) wrap(v int64) int64 {
	if d.bits == 32 {
		return int64(int32(v))
	}
	return v
}

// next returns the next value.
func (d *deltaDecoder) next() (int64, error) {
	if d.done >= d.total {
		return 0, errShortPage
	}
	if d.done == 0 {
		d.done++
		return d.wrap(d.last), nil
	}
	if d.nextDelta >= len(d.deltas) {
		if err := d.readMiniblock(); err != nil {
			return 0, err
		}
	}
	v := d.wrap(d.last + d.minDelta + int64(d.deltas[d.nextDelta]))
	d.nextDelta++
	d.last = v
	d.done++
	return v, nil
}

func (d *deltaDecoder) readMiniblock() error {
	if d.mini >= d.miniPer {
		md, err := readZigzag(d.src)
		if err != nil {
			return err
		}
		d.minDelta = md
		if cap(d.widths) < d.miniPer {
			d.widths = make([]byte, d.miniPer)
		}
		d.widths = d.widths[:d.miniPer]
		if err := readFull(d.src, d.widths); err != nil {
			return err
		}
		d.mini = 0
	}
	w := uint(d.widths[d.mini])
	d.mini++
	if w > 64 {
		return fmt.Errorf("DELTA_BINARY_PACKED miniblock of bit width %d", w)
	}
	n := d.perMini * int(w) / 8
	if cap(d.scratch) < n {
		d.scratch = make([]byte, n)
	}
	b := d.scratch[:n]
	if err := readFull(d.src, b); err != nil {
		return err
	}
	if cap(d.deltas) < d.perMini {
		d.deltas = make([]uint64, d.perMini)
	}
	d.deltas = d.deltas[:d.perMini]
	for i := range d.deltas {
		d.deltas[i] = bitsAt(b, uint64(i)*uint64(w), w)
	}
	d.nextDelta = 0
	return nil
}

// readLengths decodes n lengths (of DELTA_LENGTH_BYTE_ARRAY or
// DELTA_BYTE_ARRAY) into dst.
func (d *deltaDecoder) readLengths(dst []int32, what string) ([]int32, error) {
	for range d.total {
		v, err := d.next()
		if err != nil {
			return dst, err
		}
		if v < 0 {
			return dst, fmt.Errorf("%s %d", what, v)
		}
		dst = append(dst, int32(v))
	}
	return dst, nil
}
