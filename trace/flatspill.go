package trace

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"os"

	"github.com/klauspost/compress/s2"
)

// A flatSpill holds the rows of a non-contiguous flat file that the first
// pass could not group in memory, in buckets: bucket k holds every row of
// the requests of window k (consecutive requests, in order of first
// appearance), in file order. Each row is written once and read once, so a
// file of any order costs one pass over it and one over the spill, however
// many windows it needs; a pass over the file each window made a file with
// every request in flight 7.6 times slower than one in time order.
//
// A row's request-level columns are written in full for the request's first
// row, and for a later row only when they differ from the first's (a 128-bit
// hash of their encoding tells): the flat layout repeats them on every row,
// a prompt or request body included.
//
// The rows go into one temporary file, unlinked as soon as it is made, in
// blocks of a bucket each, compressed (S2: SSE bodies shrink severalfold,
// and the 1 GB trace set 1.04 GB aside uncompressed); a bucket's unwritten
// rows wait in memory.
type flatSpill struct {
	f       *os.File
	size    int64
	buckets []spillBucket
	seeds   [2]maphash.Seed
	// first is the hash of each spilled request's first row's
	// request-level columns, request from+i at i (requests are set aside
	// in order of first appearance).
	from    int
	first   [][2]uint64
	scratch []byte
	packed  []byte // a block compressed
	pending int    // bytes in the buckets' pending, all told
}

// spillPendingBytes bounds what the buckets' unwritten rows may come to
// together: past it every bucket is written and its buffer let go.
const spillPendingBytes = 8 << 20

type spillBucket struct {
	pending []byte // rows not written yet
	blocks  []spillBlock
}

type spillBlock struct{ off, n int64 }

// spillBlockBytes is how many bytes of rows a bucket gathers before it
// writes them.
const spillBlockBytes = 64 << 10

func newFlatSpill(from int) (*flatSpill, error) {
	f, err := os.CreateTemp("", "sseaudit-grouping-*")
	if err != nil {
		return nil, err
	}
	// Unlinked at once: the space goes back when the file is closed, even
	// if the process is killed.
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	return &flatSpill{f: f, seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}, from: from}, nil
}

func (s *flatSpill) close() error {
	if s == nil || s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	return err
}

// Row flags.
const (
	spillChunkNull = 1 << iota
	spillDataNil
	spillSameAsFirst // request-level columns: the request's first row's
)

// add writes row, of request idx, into bucket.
func (s *flatSpill) add(bucket, idx int, row *FlatRow) error {
	for len(s.buckets) <= bucket {
		s.buckets = append(s.buckets, spillBucket{})
	}
	s.scratch = appendRequestColumns(s.scratch[:0], &row.Req)
	h := [2]uint64{maphash.Bytes(s.seeds[0], s.scratch), maphash.Bytes(s.seeds[1], s.scratch)}
	var flags byte
	switch k := idx - s.from; {
	case k == len(s.first): // the request's first row
		s.first = append(s.first, h)
	case k < 0 || k > len(s.first):
		return errSpillOrder
	case s.first[k] == h:
		flags |= spillSameAsFirst
	}
	if row.ChunkNull {
		flags |= spillChunkNull
	}
	if row.Chunk.Data == nil {
		flags |= spillDataNil
	}
	b := &s.buckets[bucket]
	p := append(b.pending, flags)
	p = binary.AppendUvarint(p, uint64(idx))
	p = binary.AppendVarint(p, int64(row.RowGroup))
	p = binary.AppendVarint(p, row.Row)
	p = binary.AppendVarint(p, row.Chunk.TNs)
	p = appendBytes(p, row.Chunk.Data)
	if flags&spillSameAsFirst == 0 {
		p = append(p, s.scratch...)
	}
	s.pending += len(p) - len(b.pending)
	b.pending = p
	if len(p) >= spillBlockBytes {
		return s.flush(bucket)
	}
	if s.pending > spillPendingBytes {
		for k := range s.buckets {
			if err := s.flush(k); err != nil {
				return err
			}
			s.buckets[k].pending = nil
		}
	}
	return nil
}

func (s *flatSpill) flush(bucket int) error {
	b := &s.buckets[bucket]
	if len(b.pending) == 0 {
		return nil
	}
	s.packed = s2.Encode(s.packed[:cap(s.packed)], b.pending)
	if _, err := s.f.WriteAt(s.packed, s.size); err != nil {
		return err
	}
	b.blocks = append(b.blocks, spillBlock{off: s.size, n: int64(len(s.packed))})
	s.size += int64(len(s.packed))
	s.pending -= len(b.pending)
	// Let the buffer go: kept, every bucket written would hold one of
	// at least spillBlockBytes (of its largest row, when bigger), which
	// s.pending does not count.
	b.pending = nil
	return nil
}

// finish writes every bucket's last rows; the spill is then read.
func (s *flatSpill) finish() error {
	for k := range s.buckets {
		if err := s.flush(k); err != nil {
			return err
		}
		s.buckets[k].pending = nil
	}
	s.first = nil
	return nil
}

// rows reads bucket k back, the ids of the requests by index.
func (s *flatSpill) rows(k int, keys []string) *spillRows {
	r := &spillRows{s: s, keys: keys}
	if k < len(s.buckets) {
		r.blocks = s.buckets[k].blocks
	}
	return r
}

// spillRows is a FlatRows over one bucket. A row's chunk bytes are valid
// until the block after its own is read; its request-level columns,
// decoded anew, are its own.
type spillRows struct {
	s      *flatSpill
	keys   []string
	blocks []spillBlock
	packed []byte // a block as written
	buf    []byte // and decompressed
	rest   []byte
	err    error
}

var (
	errSpillCorrupt = errors.New("spilled rows do not decode")
	errSpillOrder   = errors.New("a request set aside out of the order of first appearance")
)

func (r *spillRows) Next(row *FlatRow) bool {
	if r.err != nil {
		return false
	}
	for len(r.rest) == 0 {
		if len(r.blocks) == 0 {
			return false
		}
		blk := r.blocks[0]
		r.blocks = r.blocks[1:]
		if int64(cap(r.packed)) < blk.n {
			r.packed = make([]byte, blk.n)
		}
		r.packed = r.packed[:blk.n]
		if _, err := r.s.f.ReadAt(r.packed, blk.off); err != nil {
			r.err = err
			return false
		}
		n, err := s2.DecodedLen(r.packed)
		if err == nil {
			if cap(r.buf) < n {
				r.buf = make([]byte, n)
			}
			r.buf, err = s2.Decode(r.buf[:cap(r.buf)], r.packed)
		}
		if err != nil {
			r.err = fmt.Errorf("%w: %v", errSpillCorrupt, err)
			return false
		}
		r.rest = r.buf
	}
	if err := r.decode(row); err != nil {
		r.err = err
		return false
	}
	return true
}

func (r *spillRows) Err() error { return r.err }

func (r *spillRows) decode(row *FlatRow) error {
	d := spillDecoder{b: r.rest}
	flags := d.byte()
	idx := d.uvarint()
	if d.err != nil || idx >= uint64(len(r.keys)) {
		return errSpillCorrupt
	}
	*row = FlatRow{RowGroup: int(d.varint()), Row: d.varint(), ChunkNull: flags&spillChunkNull != 0,
		sameAsFirst: flags&spillSameAsFirst != 0}
	row.Chunk.TNs = d.varint()
	row.Chunk.Data = d.bytes(flags&spillDataNil != 0, false)
	if !row.sameAsFirst {
		d.requestColumns(&row.Req)
	}
	row.Req.RequestID = r.keys[idx]
	if d.err != nil {
		return d.err
	}
	r.rest = d.b
	return nil
}

// appendRequestColumns encodes a row's request-level columns but its id.
func appendRequestColumns(p []byte, q *Request) []byte {
	p = binary.AppendVarint(p, q.T0Ns)
	p = appendOptInt(p, q.EndNs)
	if q.HTTPStatus != nil {
		v := int64(*q.HTTPStatus)
		p = appendOptInt(p, &v)
	} else {
		p = appendOptInt(p, nil)
	}
	if q.Error != nil {
		p = append(p, 1)
		p = appendBytes(p, []byte(*q.Error))
	} else {
		p = append(p, 0)
	}
	if q.TimePointsS != nil {
		p = append(p, 1)
		p = binary.AppendUvarint(p, uint64(len(q.TimePointsS)))
		for _, x := range q.TimePointsS {
			p = binary.LittleEndian.AppendUint64(p, math.Float64bits(x))
		}
	} else {
		p = append(p, 0)
	}
	p = appendOptInt(p, q.InputTokens)
	p = appendOptInt(p, q.OutputTokens)
	if q.Extra != nil {
		p = append(p, 1)
		p = binary.AppendUvarint(p, uint64(len(q.Extra)))
		for _, v := range q.Extra {
			var f byte
			if v.Null {
				f |= 1
			}
			if v.Bool {
				f |= 2
			}
			if v.Bytes == nil {
				f |= 4
			}
			p = append(p, f)
			p = appendBytes(p, []byte(v.Str))
			p = appendBytes(p, v.Bytes)
			p = binary.AppendVarint(p, v.Int)
			p = binary.LittleEndian.AppendUint64(p, math.Float64bits(v.Float))
		}
	} else {
		p = append(p, 0)
	}
	return p
}

func appendOptInt(p []byte, v *int64) []byte {
	if v == nil {
		return append(p, 0)
	}
	return binary.AppendVarint(append(p, 1), *v)
}

func appendBytes(p, b []byte) []byte {
	return append(binary.AppendUvarint(p, uint64(len(b))), b...)
}

// spillDecoder reads what the spill wrote; the first error sticks.
type spillDecoder struct {
	b   []byte
	err error
}

func (d *spillDecoder) byte() byte {
	if d.err != nil || len(d.b) == 0 {
		d.err = errSpillCorrupt
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *spillDecoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if d.err != nil || n <= 0 {
		d.err = errSpillCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *spillDecoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if d.err != nil || n <= 0 {
		d.err = errSpillCorrupt
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *spillDecoder) uint64() uint64 {
	if d.err != nil || len(d.b) < 8 {
		d.err = errSpillCorrupt
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

// bytes reads a length and as many bytes: nil when isNil, a copy when own,
// else a slice of the block.
func (d *spillDecoder) bytes(isNil, own bool) []byte {
	n := d.uvarint()
	if d.err != nil || n > uint64(len(d.b)) {
		d.err = errSpillCorrupt
		return nil
	}
	b := d.b[:n:n]
	d.b = d.b[n:]
	switch {
	case isNil:
		return nil
	case own:
		return append([]byte{}, b...)
	}
	return b
}

func (d *spillDecoder) optInt() *int64 {
	if d.byte() == 0 {
		return nil
	}
	v := d.varint()
	return &v
}

func (d *spillDecoder) requestColumns(q *Request) {
	q.T0Ns = d.varint()
	q.EndNs = d.optInt()
	if v := d.optInt(); v != nil {
		s := int32(*v)
		q.HTTPStatus = &s
	}
	if d.byte() == 1 {
		s := string(d.bytes(false, false))
		q.Error = &s
	}
	if d.byte() == 1 {
		n := d.uvarint()
		if n > uint64(len(d.b))/8 {
			d.err = errSpillCorrupt
			return
		}
		q.TimePointsS = make([]float64, n)
		for i := range q.TimePointsS {
			q.TimePointsS[i] = math.Float64frombits(d.uint64())
		}
	}
	q.InputTokens = d.optInt()
	q.OutputTokens = d.optInt()
	if d.byte() == 1 {
		n := d.uvarint()
		if n > uint64(len(d.b)) {
			d.err = errSpillCorrupt
			return
		}
		q.Extra = make([]Value, n)
		for i := range q.Extra {
			f := d.byte()
			v := Value{Null: f&1 != 0, Bool: f&2 != 0}
			v.Str = string(d.bytes(false, false))
			v.Bytes = d.bytes(f&4 != 0, true)
			v.Int = d.varint()
			v.Float = math.Float64frombits(d.uint64())
			q.Extra[i] = v
		}
	}
}

// spillError is an error of the temporary file rows were spilled to.
func spillError(path string, err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return FileError(path, err, "grouping the rows of requests that are not contiguous: the temporary file they were set aside in: %v", fmt.Sprint(err))
}
