package parquetfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// The parquet library trusts the sizes a file claims: the footer length, the
// length of every thrift list, and the page sizes and value counts of every
// page header become allocations before any data is read. The guards below
// check each claim against the bytes that are really there first, so that a
// hostile or damaged file ends in an error rather than an out-of-memory kill.

const (
	magic = "PAR1"
	// minFileSize is the magic, a footer length and the magic again.
	minFileSize = 4 + 4 + 4
	// maxCompressionRatio bounds a page's claimed uncompressed size relative
	// to its compressed size, beyond the largest value allowed (for traces
	// Limits.MaxChunkBytes), which may compress without bound (a body of
	// one repeated byte) and is a cost the limit already accepts.
	maxCompressionRatio = 4096
	compressionSlack    = 1 << 20
	// minValuesCap is the fewest values a page may always claim; beyond it a
	// page may claim at most 8 values a byte of uncompressed data.
	minValuesCap = 1 << 24
)

// Guard checks the sizes a Parquet file claims before the parquet library
// allocates for them: NewGuard checks the footer, CheckRowGroup the column
// chunks and page headers of a row group. It is not safe for concurrent use.
type Guard struct {
	r       io.ReaderAt
	dataEnd int64 // where the footer starts
	// maxPageBytes is the uncompressed size a page may always claim,
	// however small its compressed size.
	maxPageBytes int64
	// limitName names what sets maxPageBytes, for the error messages.
	limitName     string
	zstd          *zstd.Decoder
	body, scratch []byte
	// streamed: the caller reads pages through a columnStream, which holds
	// every page to the uncompressed size its header claims as it
	// decompresses: the trial decompression of checkBody is skipped.
	streamed bool
}

// NewGuard checks the magic bytes and the footer of the Parquet file r of
// size bytes. A page may claim maxCompressionRatio times its compressed
// size, or maxPageBytes however small it is: the largest value the file may
// hold (a value of one repeated byte compresses without bound). limitName
// names what sets maxPageBytes (a flag, say) in the errors.
func NewGuard(r io.ReaderAt, size, maxPageBytes int64, limitName string) (*Guard, error) {
	footerLen, err := checkFooter(r, size)
	if err != nil {
		return nil, err
	}
	return &Guard{r: r, dataEnd: size - 8 - footerLen, maxPageBytes: maxPageBytes, limitName: limitName}, nil
}

// checkFooter checks the magic bytes and the footer length, and walks the
// footer's thrift encoding checking every length against the bytes left. It
// returns the footer length.
func checkFooter(r io.ReaderAt, size int64) (int64, error) {
	if size < minFileSize {
		return 0, fmt.Errorf("file is %d bytes long: want at least %d for a Parquet file (truncated or not Parquet)", size, minFileSize)
	}
	var head [4]byte
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return 0, fmt.Errorf("reading the magic bytes: %w", err)
	}
	if string(head[:]) != magic {
		if string(head[:]) == "PARE" {
			return 0, errors.New("encrypted Parquet file: want an unencrypted file")
		}
		return 0, fmt.Errorf("starts with %q: want the Parquet magic bytes %q (not a Parquet file)", head[:], magic)
	}
	var tail [8]byte
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return 0, fmt.Errorf("reading the footer length: %w", err)
	}
	if string(tail[4:]) != magic {
		return 0, fmt.Errorf("ends with %q: want the Parquet magic bytes %q at the end (truncated file?)", tail[4:], magic)
	}
	footerLen := int64(binary.LittleEndian.Uint32(tail[:4]))
	if footerLen == 0 || footerLen > size-minFileSize {
		return 0, fmt.Errorf("footer claims %d bytes in a file of %d bytes: want a footer that fits in the file (truncated or corrupt footer)", footerLen, size)
	}
	footer := make([]byte, footerLen)
	if _, err := r.ReadAt(footer, size-8-footerLen); err != nil {
		return 0, fmt.Errorf("reading the footer: %w", err)
	}
	n, err := thriftStructLen(footer)
	if err != nil {
		return 0, fmt.Errorf("corrupt footer: %w", err)
	}
	if int64(n) != footerLen {
		return 0, fmt.Errorf("corrupt footer: %d bytes of metadata in a footer of %d bytes", n, footerLen)
	}
	return footerLen, nil
}

// CheckRowGroup checks that every column chunk of rg lies inside the file's
// data area and that every page header in it claims sizes and value counts
// that the chunk can hold, before the library allocates for them.
func (g *Guard) CheckRowGroup(rg *format.RowGroup) error {
	_, err := g.checkRowGroup(rg, false)
	return err
}

// checkRowGroup is CheckRowGroup; with keep, it returns the pages of every
// column chunk as the headers describe them.
func (g *Guard) checkRowGroup(rg *format.RowGroup, keep bool) ([][]pageInfo, error) {
	var pages [][]pageInfo
	if keep {
		pages = make([][]pageInfo, len(rg.Columns))
	}
	dataEnd := g.dataEnd
	// The buffers are as large as the largest page: do not keep them while
	// the library reads the row group.
	defer func() { g.body, g.scratch = nil, nil }()
	for i := range rg.Columns {
		cc := &rg.Columns[i]
		if cc.FilePath != "" {
			return nil, fmt.Errorf("column chunk %d is in another file (%q): want a self-contained file", i, cc.FilePath)
		}
		md := &cc.MetaData
		start := md.DataPageOffset
		if md.DictionaryPageOffset > 0 && md.DictionaryPageOffset < start {
			start = md.DictionaryPageOffset
		}
		if start < int64(len(magic)) || md.TotalCompressedSize < 0 || md.TotalCompressedSize > dataEnd-start {
			return nil, fmt.Errorf("column chunk %d (%s) claims bytes %d..%d: want them within the %d data bytes of the file",
				i, columnPathOf(md), start, start+md.TotalCompressedSize, dataEnd)
		}
		var out *[]pageInfo
		if keep {
			out = &pages[i]
		}
		if err := g.checkPages(start, start+md.TotalCompressedSize, md.Codec, out); err != nil {
			return nil, fmt.Errorf("column chunk %d (%s): %w", i, columnPathOf(md), err)
		}
	}
	return pages, nil
}

func columnPathOf(md *format.ColumnMetaData) string {
	s := ""
	for i, p := range md.PathInSchema {
		if i > 0 {
			s += "."
		}
		s += p
	}
	return s
}

// checkPages walks the pages of the column chunk at [start, end): each
// header's claims must fit the chunk, and each compressed body must
// decompress to at most the size its header claims. The parquet library's
// decoders do not stop there: LZ4 doubles its buffer for ever on a damaged
// block, and zstd (for frames that do not declare their content size), gzip
// and brotli grow their output to whatever the data holds. The check costs a
// second decompression of every compressed page but those of zstd frames
// that declare sizes within the claim.
func (g *Guard) checkPages(start, end int64, codec format.CompressionCodec, out *[]pageInfo) error {
	r := g.r
	var proto thrift.CompactProtocol
	window := make([]byte, 0, 4096)
	for pos := start; pos < end; {
		left := end - pos
		want := min(left, int64(64<<10))
		var headerLen int
		for {
			if int64(cap(window)) < want {
				window = make([]byte, want)
			}
			window = window[:want]
			if _, err := r.ReadAt(window, pos); err != nil && !errors.Is(err, io.EOF) {
				return fmt.Errorf("reading the page header at byte %d: %w", pos, err)
			}
			n, err := thriftStructLen(window)
			if err == nil {
				headerLen = n
				break
			}
			// A header holds statistics that can be as long as a value:
			// read more, up to the end of the column chunk.
			if !errors.Is(err, errShort) || want == left {
				return fmt.Errorf("page header at byte %d: %w", pos, err)
			}
			want = min(left, want*4)
		}
		var h format.PageHeader
		if err := thrift.Unmarshal(&proto, window[:headerLen], &h); err != nil {
			return fmt.Errorf("page header at byte %d: %w", pos, err)
		}
		body := left - int64(headerLen)
		if h.CompressedPageSize < 0 || int64(h.CompressedPageSize) > body {
			return fmt.Errorf("page at byte %d claims %d compressed bytes: want at most the %d bytes left in the column chunk", pos, h.CompressedPageSize, body)
		}
		maxUncompressed := max(int64(h.CompressedPageSize)*maxCompressionRatio, g.maxPageBytes) + compressionSlack
		if h.UncompressedPageSize < 0 || int64(h.UncompressedPageSize) > maxUncompressed {
			return fmt.Errorf("page at byte %d claims %d uncompressed bytes from %d compressed: want at most %d (limit: %d × the compressed size or %s, plus 1 MiB)", pos, h.UncompressedPageSize, h.CompressedPageSize, maxUncompressed, maxCompressionRatio, g.limitName)
		}
		valuesCap := max(int64(minValuesCap), 8*int64(h.UncompressedPageSize))
		var numValues int64
		switch {
		case h.DataPageHeader.Valid:
			numValues = int64(h.DataPageHeader.V.NumValues)
		case h.DataPageHeaderV2.Valid:
			v2 := &h.DataPageHeaderV2.V
			numValues = int64(v2.NumValues)
			if v2.NumRows < 0 || v2.NumNulls < 0 || v2.NumNulls > v2.NumValues || v2.NumRows > v2.NumValues {
				return fmt.Errorf("page at byte %d claims %d values, %d nulls and %d rows: want counts that agree", pos, v2.NumValues, v2.NumNulls, v2.NumRows)
			}
			levels := int64(v2.RepetitionLevelsByteLength) + int64(v2.DefinitionLevelsByteLength)
			if v2.RepetitionLevelsByteLength < 0 || v2.DefinitionLevelsByteLength < 0 || levels > int64(h.CompressedPageSize) || levels > int64(h.UncompressedPageSize) {
				return fmt.Errorf("page at byte %d claims %d bytes of levels in a page of %d: want levels within the page", pos, levels, h.CompressedPageSize)
			}
		case h.DictionaryPageHeader.Valid:
			numValues = int64(h.DictionaryPageHeader.V.NumValues)
		}
		if numValues < 0 || numValues > valuesCap {
			return fmt.Errorf("page at byte %d claims %d values in %d bytes: want at most %d", pos, numValues, h.UncompressedPageSize, valuesCap)
		}
		if !g.streamed {
			if err := g.checkBody(pos+int64(headerLen), &h, codec); err != nil {
				return fmt.Errorf("page at byte %d: %w", pos, err)
			}
		}
		if out != nil {
			*out = append(*out, newPageInfo(pos, int64(headerLen), &h))
		}
		pos += int64(headerLen) + int64(h.CompressedPageSize)
	}
	return nil
}

// checkBody decompresses the body of the page with header h, at off, into
// at most the uncompressed size the header claims.
func (g *Guard) checkBody(off int64, h *format.PageHeader, codec format.CompressionCodec) error {
	if codec == format.Uncompressed {
		return nil
	}
	skip, size := int64(0), int64(h.UncompressedPageSize)
	if v2 := &h.DataPageHeaderV2; v2.Valid {
		if v2.V.IsCompressed.Valid && !v2.V.IsCompressed.V {
			return nil
		}
		// Levels come first, uncompressed.
		skip = int64(v2.V.RepetitionLevelsByteLength) + int64(v2.V.DefinitionLevelsByteLength)
		size -= skip
	}
	n := int64(h.CompressedPageSize) - skip
	if n < 0 || size < 0 {
		return fmt.Errorf("levels longer than the page")
	}
	if int64(cap(g.body)) < n {
		g.body = make([]byte, n)
	}
	body := g.body[:n]
	if _, err := g.r.ReadAt(body, off+skip); err != nil {
		return fmt.Errorf("reading the page: %w", err)
	}
	var err error
	switch codec {
	case format.Snappy:
		var m int
		if m, err = snappy.DecodedLen(body); err == nil && int64(m) > size {
			err = fmt.Errorf("snappy data of %d bytes", m)
		}
	case format.Gzip:
		var zr *gzip.Reader
		if zr, err = gzip.NewReader(bytes.NewReader(body)); err == nil {
			err = copyAtMost(zr, size)
		}
	case format.Brotli:
		err = copyAtMost(brotli.NewReader(bytes.NewReader(body)), size)
	case format.Zstd:
		// The library's zstd decoder stops a frame at the content size it
		// declares (TestZstdContentSize), so frames that declare sizes
		// within the claim need no trial run.
		if declared, ok := zstdContentSize(body); ok && declared <= uint64(size) {
			return nil
		}
		if g.zstd == nil {
			g.zstd, err = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecodeAllCapLimit(true))
			if err != nil {
				return err
			}
		}
		_, err = g.zstd.DecodeAll(body, g.scratchOf(size)[:0])
	case format.Lz4Raw:
		_, err = lz4.UncompressBlock(body, g.scratchOf(size))
	default:
		return nil // the library refuses codecs it does not know
	}
	if err != nil {
		return fmt.Errorf("%s data does not decompress to the %d bytes the header claims: %w", codec, size, err)
	}
	return nil
}

// zstdContentSize is the sum of the content sizes the zstd frames of b
// declare; ok is false unless b is whole frames that all declare one. It
// reads only frame and block headers.
func zstdContentSize(b []byte) (total uint64, ok bool) {
	const (
		frameMagic     = 0xFD2FB528
		skippableMagic = 0x184D2A50 // the low 4 bits are free
	)
	for len(b) > 0 {
		if len(b) < 4 {
			return 0, false
		}
		magic := binary.LittleEndian.Uint32(b)
		if magic&^0xf == skippableMagic {
			if len(b) < 8 || uint64(binary.LittleEndian.Uint32(b[4:])) > uint64(len(b)-8) {
				return 0, false
			}
			b = b[8+binary.LittleEndian.Uint32(b[4:]):]
			continue
		}
		if magic != frameMagic || len(b) < 5 {
			return 0, false
		}
		descriptor := b[4]
		b = b[5:]
		singleSegment := descriptor&0x20 != 0
		if descriptor&0x08 != 0 { // reserved bit
			return 0, false
		}
		if !singleSegment { // window descriptor
			if len(b) < 1 {
				return 0, false
			}
			b = b[1:]
		}
		dictLen := [4]int{0, 1, 2, 4}[descriptor&3]
		sizeLen := [4]int{0, 2, 4, 8}[descriptor>>6]
		if sizeLen == 0 && singleSegment {
			sizeLen = 1
		}
		if sizeLen == 0 || len(b) < dictLen+sizeLen {
			return 0, false
		}
		b = b[dictLen:]
		var size uint64
		switch sizeLen {
		case 1:
			size = uint64(b[0])
		case 2:
			size = uint64(binary.LittleEndian.Uint16(b)) + 256
		case 4:
			size = uint64(binary.LittleEndian.Uint32(b))
		case 8:
			size = binary.LittleEndian.Uint64(b)
		}
		b = b[sizeLen:]
		for last := false; !last; {
			if len(b) < 3 {
				return 0, false
			}
			h := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
			b = b[3:]
			last = h&1 != 0
			n := int(h >> 3)
			switch (h >> 1) & 3 {
			case 1: // RLE: one byte repeated
				n = 1
			case 3: // reserved
				return 0, false
			}
			if n > len(b) {
				return 0, false
			}
			b = b[n:]
		}
		if descriptor&0x04 != 0 { // content checksum
			if len(b) < 4 {
				return 0, false
			}
			b = b[4:]
		}
		if total+size < total {
			return 0, false
		}
		total += size
	}
	return total, true
}

// scratchOf returns a buffer of exactly size bytes (its capacity bounds
// zstd's output).
func (g *Guard) scratchOf(size int64) []byte {
	if int64(cap(g.scratch)) < size {
		g.scratch = make([]byte, size)
	}
	return g.scratch[:size:size]
}

// copyAtMost reads r to its end, failing if it holds more than size bytes.
func copyAtMost(r io.Reader, size int64) error {
	n, err := io.Copy(io.Discard, io.LimitReader(r, size+1))
	if err != nil {
		return err
	}
	if n > size {
		return fmt.Errorf("more than %d bytes", size)
	}
	return nil
}

var errShort = errors.New("thrift data ends early")

// Thrift compact protocol types.
const (
	tBoolTrue  = 1
	tBoolFalse = 2
	tByte      = 3
	tI16       = 4
	tI32       = 5
	tI64       = 6
	tDouble    = 7
	tBinary    = 8
	tList      = 9
	tSet       = 10
	tMap       = 11
	tStruct    = 12
	maxDepth   = 64
)

// thriftStructLen returns the length of the compact-protocol struct at the
// start of b, checking that every list, map and binary length fits in the
// bytes left (every element takes at least one byte).
func thriftStructLen(b []byte) (int, error) {
	s := thriftScanner{b: b}
	if err := s.skipStruct(0); err != nil {
		return 0, err
	}
	return s.pos, nil
}

type thriftScanner struct {
	b   []byte
	pos int
}

func (s *thriftScanner) left() int { return len(s.b) - s.pos }

func (s *thriftScanner) byte() (byte, error) {
	if s.pos >= len(s.b) {
		return 0, errShort
	}
	c := s.b[s.pos]
	s.pos++
	return c, nil
}

func (s *thriftScanner) uvarint() (uint64, error) {
	var x uint64
	for shift := uint(0); shift < 64; shift += 7 {
		c, err := s.byte()
		if err != nil {
			return 0, err
		}
		x |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return x, nil
		}
	}
	return 0, errors.New("varint longer than 10 bytes")
}

func (s *thriftScanner) skip(n uint64) error {
	if n > uint64(s.left()) {
		return errShort
	}
	s.pos += int(n)
	return nil
}

func (s *thriftScanner) skipStruct(depth int) error {
	if depth > maxDepth {
		return errors.New("thrift structs nested too deep")
	}
	for {
		h, err := s.byte()
		if err != nil {
			return err
		}
		if h == 0 {
			return nil
		}
		if h>>4 == 0 { // long form: the field id follows as a zigzag varint
			if _, err := s.uvarint(); err != nil {
				return err
			}
		}
		typ := h & 0x0f
		if typ == tBoolTrue || typ == tBoolFalse {
			continue // the value is in the field header
		}
		if err := s.skipValue(typ, depth); err != nil {
			return err
		}
	}
}

func (s *thriftScanner) skipValue(typ byte, depth int) error {
	switch typ {
	case tBoolTrue, tBoolFalse, tByte:
		return s.skip(1)
	case tI16, tI32, tI64:
		_, err := s.uvarint()
		return err
	case tDouble:
		return s.skip(8)
	case tBinary:
		n, err := s.uvarint()
		if err != nil {
			return err
		}
		return s.skip(n)
	case tList, tSet:
		h, err := s.byte()
		if err != nil {
			return err
		}
		n := uint64(h >> 4)
		if n == 15 {
			if n, err = s.uvarint(); err != nil {
				return err
			}
		}
		if n > uint64(s.left()) {
			return fmt.Errorf("list of %d elements in %d bytes: %w", n, s.left(), errShort)
		}
		for range n {
			if err := s.skipValue(h&0x0f, depth+1); err != nil {
				return err
			}
		}
		return nil
	case tMap:
		n, err := s.uvarint()
		if err != nil || n == 0 {
			return err
		}
		kv, err := s.byte()
		if err != nil {
			return err
		}
		if n > uint64(s.left())/2 {
			return fmt.Errorf("map of %d entries in %d bytes: %w", n, s.left(), errShort)
		}
		for range n {
			if err := s.skipValue(kv>>4, depth+1); err != nil {
				return err
			}
			if err := s.skipValue(kv&0x0f, depth+1); err != nil {
				return err
			}
		}
		return nil
	case tStruct:
		return s.skipStruct(depth + 1)
	}
	return fmt.Errorf("unknown thrift type %d", typ)
}
