package parquetfile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
	"github.com/pierrec/lz4/v4"
)

// A column chunk is read page by page, and a large page piece by piece: a
// page of at most wholePageBytes is decompressed whole into a window and its
// values are read where they lie; a larger one (DuckDB writes a row group's
// column as one page of up to a few hundred MB) is decompressed as a stream,
// its levels held (a byte or two per value, packed), its values cut into
// windows of about streamBlock bytes. Memory then follows the window, not the
// page or the row group.

// Variables, not constants, so that the tests can stream small pages.
var (
	wholePageBytes int64 = 4 << 20
	wholePageSlots       = 1 << 20
	streamBlock          = 1 << 20
	// streamSlots bounds the slots of a window of a streamed page.
	streamSlots = 1 << 14
)

// plainDictionary is PLAIN_DICTIONARY, deprecated for writers but what
// Parquet 1.0 writers put in dictionary and data pages: read as
// RLE_DICTIONARY in data pages, as PLAIN in dictionary pages.
const plainDictionary format.Encoding = 2

// pageInfo is what the reader keeps of a page header (read and checked by
// the Guard).
type pageInfo struct {
	offset     int64 // the header's first byte, for errors
	body       int64 // the body's first byte
	typ        format.PageType
	comp       int64
	uncomp     int64
	numValues  int
	numNulls   int
	encoding   format.Encoding
	repEnc     format.Encoding
	defEnc     format.Encoding
	v2         bool
	repLen     int64
	defLen     int64
	compressed bool
}

func newPageInfo(pos, headerLen int64, h *format.PageHeader) pageInfo {
	p := pageInfo{offset: pos, body: pos + headerLen, typ: h.Type, comp: int64(h.CompressedPageSize),
		uncomp: int64(h.UncompressedPageSize), compressed: true}
	switch {
	case h.DataPageHeader.Valid:
		d := &h.DataPageHeader.V
		p.numValues, p.encoding, p.repEnc, p.defEnc = int(d.NumValues), d.Encoding, d.RepetitionLevelEncoding, d.DefinitionLevelEncoding
	case h.DataPageHeaderV2.Valid:
		d := &h.DataPageHeaderV2.V
		p.v2, p.numValues, p.numNulls, p.encoding = true, int(d.NumValues), int(d.NumNulls), d.Encoding
		p.repLen, p.defLen = int64(d.RepetitionLevelsByteLength), int64(d.DefinitionLevelsByteLength)
		if d.IsCompressed.Valid {
			p.compressed = d.IsCompressed.V
		}
	case h.DictionaryPageHeader.Valid:
		d := &h.DictionaryPageHeader.V
		p.numValues, p.encoding = int(d.NumValues), d.Encoding
	}
	return p
}

// window is a run of a column's slots (a level pair each) with the values
// of those present, decoded: the unit the column reader works on.
type window struct {
	reps, defs []byte // nil when the column has no such level
	slots      int
	ints       []int64
	int32s     []int32
	floats     []float64
	float32s   []float32
	bools      []bool
	// Byte arrays: value i is data[starts[i]:ends[i]].
	data         []byte
	starts, ends []uint32
	// A dictionary-encoded window: the index of each value in dict.
	indexes []int32
	dict    *dictionary

	// The buffers the slices above are cut from, kept from use to use.
	repBuf, defBuf []byte
	raw            []byte // a page held whole, or a block of a streamed page's values
	own            []byte // values put together (DELTA_BYTE_ARRAY)
	intBuf         []int64
	int32Buf       []int32
	floatBuf       []float64
	float32Buf     []float32
	boolBuf        []bool
	startBuf       []uint32
	endBuf         []uint32
	indexBuf       []int32
}

func (w *window) clear() {
	w.reps, w.defs, w.slots = nil, nil, 0
	w.ints, w.int32s, w.floats, w.float32s, w.bools = nil, nil, nil, nil, nil
	w.data, w.starts, w.ends, w.indexes, w.dict = nil, nil, nil, nil, nil
}

// dictionary is a column chunk's dictionary page, decoded.
type dictionary struct {
	number   int // from 1 in a column chunk
	n        int
	ints     []int64
	int32s   []int32
	floats   []float64
	float32s []float32
	bools    []bool
	data     []byte
	starts   []uint32
	ends     []uint32
}

// columnStream reads the pages of one column chunk into windows.
type columnStream struct {
	file  io.ReaderAt
	l     *leaf
	codec format.CompressionCodec
	pages []pageInfo
	next  int // next page
	dict  *dictionary
	page  *pageState // the page being read, nil between pages
	ps    pageState  // its storage, reused

	comp []byte // a page's compressed bytes, read whole
	zstd *zstd.Decoder
	gz   *gzip.Reader
	lz   lzReader
	br   *brotli.Reader
	vr   *bufio.Reader // a streamed page's values
}

func newColumnStream(file io.ReaderAt, l *leaf, codec format.CompressionCodec, pages []pageInfo) *columnStream {
	return &columnStream{file: file, l: l, codec: codec, pages: pages}
}

// close lets go of the decoders.
func (s *columnStream) close() {
	if s.zstd != nil {
		s.zstd.Close()
		s.zstd = nil
	}
}

// pageError places an error in the page at p.
func pageError(p *pageInfo, err error) error {
	return fmt.Errorf("page at byte %d: %w", p.offset, err)
}

// fill decodes the next window of the column chunk into w; io.EOF after the
// last.
func (s *columnStream) fill(w *window) error {
	w.clear()
	for {
		if s.page != nil {
			err := s.page.fill(w)
			if s.page.slotsLeft == 0 || err != nil {
				s.page = nil
			}
			if err != nil {
				return pageError(s.page0(), err)
			}
			return nil
		}
		if s.next >= len(s.pages) {
			return io.EOF
		}
		p := &s.pages[s.next]
		s.next++
		switch p.typ {
		case format.DictionaryPage:
			if err := s.readDictionary(p); err != nil {
				return pageError(p, fmt.Errorf("dictionary: %w", err))
			}
		case format.DataPage, format.DataPageV2:
			if p.numValues == 0 {
				continue
			}
			if err := s.startPage(p, w); err != nil {
				return pageError(p, err)
			}
		}
	}
}

// page0 is the page being read, for errors.
func (s *columnStream) page0() *pageInfo { return &s.pages[s.next-1] }

// whole reports whether page p is read whole.
func whole(p *pageInfo) bool {
	return p.uncomp <= wholePageBytes && p.comp <= wholePageBytes && p.numValues <= wholePageSlots
}

// startPage opens data page p: its levels, and its values as bytes held
// whole (into w.raw) or as a stream.
func (s *columnStream) startPage(p *pageInfo, w *window) error {
	ps := &s.ps
	ps.reset(s, p)
	if whole(p) {
		raw, err := s.wholeBody(p, w.raw)
		if err != nil {
			return err
		}
		w.raw = raw
		ps.whole = true
		ps.bytesR.Reset(raw)
		ps.src = &ps.bytesR
		if p.v2 {
			if err := ps.v2Levels(raw[:p.repLen+p.defLen]); err != nil {
				return err
			}
			if _, err := ps.bytesR.Seek(p.repLen+p.defLen, io.SeekStart); err != nil {
				return err
			}
		} else if _, err := ps.v1Levels(&ps.bytesR, raw); err != nil {
			return err
		}
	} else {
		r, err := s.streamBody(p)
		if err != nil {
			return err
		}
		if s.vr == nil {
			s.vr = bufio.NewReaderSize(r, 64<<10)
		} else {
			s.vr.Reset(r)
		}
		ps.src = s.vr
		if !p.v2 {
			if _, err := ps.v1Levels(s.vr, nil); err != nil {
				return err
			}
		}
	}
	if err := ps.startValues(); err != nil {
		return err
	}
	if ps.whole {
		ps.pos = len(w.raw) - ps.bytesR.Len()
	}
	s.page = ps
	return nil
}

// wholeBody reads and decompresses page p whole into buf (reused): for v2
// pages its levels (never compressed) come first.
func (s *columnStream) wholeBody(p *pageInfo, buf []byte) ([]byte, error) {
	levels := p.repLen + p.defLen
	if levels > p.comp || levels > p.uncomp {
		return nil, fmt.Errorf("%d bytes of levels in a page of %d", levels, p.comp)
	}
	if int64(cap(buf)) < p.uncomp {
		buf = make([]byte, p.uncomp)
	}
	buf = buf[:p.uncomp]
	if s.codec == format.Uncompressed || (p.v2 && !p.compressed) {
		if p.comp != p.uncomp {
			return nil, fmt.Errorf("an uncompressed page of %d bytes claims %d", p.comp, p.uncomp)
		}
		return buf, readAt(s.file, buf, p.body)
	}
	if int64(cap(s.comp)) < p.comp {
		s.comp = make([]byte, p.comp)
	}
	comp := s.comp[:p.comp]
	if err := readAt(s.file, comp, p.body); err != nil {
		return nil, err
	}
	copy(buf, comp[:levels])
	out, err := s.decompress(buf[levels:levels:p.uncomp], comp[levels:], p.uncomp-levels)
	if err != nil {
		return nil, fmt.Errorf("%s data: %w", s.codec, err)
	}
	if int64(len(out)) != p.uncomp-levels {
		return nil, fmt.Errorf("%s data decompresses to %d bytes, the page header claims %d", s.codec, len(out), p.uncomp-levels)
	}
	return buf, nil
}

func readAt(r io.ReaderAt, b []byte, off int64) error {
	n, err := r.ReadAt(b, off)
	if n == len(b) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// decompress decompresses src into dst (whose capacity is the size claimed).
func (s *columnStream) decompress(dst, src []byte, size int64) ([]byte, error) {
	switch s.codec {
	case format.Snappy:
		n, err := snappy.DecodedLen(src)
		if err != nil {
			return nil, err
		}
		if int64(n) != size {
			return nil, fmt.Errorf("decompresses to %d bytes, the page header claims %d", n, size)
		}
		return snappy.Decode(dst[:size], src)
	case format.Zstd:
		if err := s.zstdDecoder(); err != nil {
			return nil, err
		}
		return s.zstd.DecodeAll(src, dst)
	case format.Lz4Raw:
		n, err := lz4.UncompressBlock(src, dst[:size])
		return dst[:n], err
	case format.Gzip, format.Brotli:
		r, err := s.streamCodec(bytes.NewReader(src))
		if err != nil {
			return nil, err
		}
		n, err := io.ReadFull(r, dst[:size])
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			err = nil // the caller compares the sizes
		}
		return dst[:n], err
	}
	return nil, fmt.Errorf("unsupported compression codec %s", s.codec)
}

func (s *columnStream) zstdDecoder() error {
	if s.zstd != nil {
		return nil
	}
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecodeAllCapLimit(true),
		zstd.WithDecoderMaxWindow(maxZstdWindow), zstd.WithDecoderLowmem(true))
	if err != nil {
		return err
	}
	s.zstd = d
	return nil
}

// maxZstdWindow bounds the window a zstd frame of a streamed page may ask
// for (the decoder holds a window of output): 2 MiB is what DuckDB and Arrow
// write; a frame asking for more is decoded in a window of that size, up to
// this bound.
const maxZstdWindow = 256 << 20

// streamCodec is a decompressor reading r (gzip, brotli; zstd, snappy and
// LZ4 are set up in streamBody).
func (s *columnStream) streamCodec(r io.Reader) (io.Reader, error) {
	switch s.codec {
	case format.Gzip:
		if s.gz == nil {
			gz, err := gzip.NewReader(r)
			if err != nil {
				return nil, err
			}
			s.gz = gz
			return gz, nil
		}
		return s.gz, s.gz.Reset(r)
	case format.Brotli:
		if s.br == nil {
			s.br = brotli.NewReader(r)
			return s.br, nil
		}
		return s.br, s.br.Reset(r)
	}
	return nil, fmt.Errorf("unsupported compression codec %s", s.codec)
}

// streamBody opens page p as a stream of its decompressed bytes, from its
// values on for v2 pages, whose levels it reads into the page state.
func (s *columnStream) streamBody(p *pageInfo) (io.Reader, error) {
	levels := p.repLen + p.defLen
	if levels > p.comp || levels > p.uncomp {
		return nil, fmt.Errorf("%d bytes of levels in a page of %d", levels, p.comp)
	}
	if p.v2 {
		b := make([]byte, levels)
		if err := readAt(s.file, b, p.body); err != nil {
			return nil, err
		}
		if err := s.ps.v2Levels(b); err != nil {
			return nil, err
		}
	}
	body := io.NewSectionReader(s.file, p.body+levels, p.comp-levels)
	size := p.uncomp - levels
	var r io.Reader
	switch {
	case s.codec == format.Uncompressed || (p.v2 && !p.compressed):
		r = body
	case s.codec == format.Zstd:
		if err := s.zstdDecoder(); err != nil {
			return nil, err
		}
		if err := s.zstd.Reset(bufio.NewReaderSize(body, 64<<10)); err != nil {
			return nil, fmt.Errorf("zstd data: %w", err)
		}
		r = s.zstd
	case s.codec == format.Snappy || s.codec == format.Lz4Raw:
		if err := s.lz.reset(body, s.codec == format.Snappy, size); err != nil {
			return nil, err
		}
		r = &s.lz
	default:
		var err error
		if r, err = s.streamCodec(bufio.NewReaderSize(body, 64<<10)); err != nil {
			return nil, fmt.Errorf("%s data: %w", s.codec, err)
		}
	}
	return &claimReader{r: r, left: size, codec: s.codec}, nil
}

// claimReader holds a decompressed stream to the size its page claims.
type claimReader struct {
	r     io.Reader
	left  int64
	codec format.CompressionCodec
}

func (c *claimReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if err != nil && !errors.Is(err, io.EOF) {
		err = fmt.Errorf("%s data: %w", c.codec, err)
	}
	return n, err
}

// readDictionary decodes a dictionary page whole.
func (s *columnStream) readDictionary(p *pageInfo) error {
	if p.encoding != format.Plain && p.encoding != plainDictionary {
		return fmt.Errorf("encoding %s: want PLAIN", p.encoding)
	}
	raw, err := s.wholeBody(p, nil)
	if err != nil {
		return err
	}
	d := &dictionary{n: p.numValues}
	if s.dict != nil {
		d.number = s.dict.number + 1
	} else {
		d.number = 1
	}
	var w window
	w.raw = raw
	ps := &pageState{s: s, p: p, whole: true}
	ps.bytesR.Reset(raw)
	ps.src = &ps.bytesR
	ps.enc = format.Plain
	got, err := ps.values(&w, p.numValues, 0)
	if err != nil {
		return err
	}
	if got != p.numValues {
		return fmt.Errorf("%d values, the header claims %d", got, p.numValues)
	}
	d.ints, d.int32s, d.floats, d.float32s, d.bools = w.ints, w.int32s, w.floats, w.float32s, w.bools
	d.data, d.starts, d.ends = w.data, w.starts, w.ends
	s.dict = d
	return nil
}

// kindWidth is the byte width of a fixed-width physical type, 0 for others.
func kindWidth(k parquet.Kind) int {
	switch k {
	case parquet.Int64, parquet.Double:
		return 8
	case parquet.Int32, parquet.Float:
		return 4
	}
	return 0
}
