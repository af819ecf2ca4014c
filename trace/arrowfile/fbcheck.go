package arrowfile

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Arrow IPC metadata is FlatBuffers. Arrow-go sizes some slices by vector
// lengths read from it (the fields of a schema, their children, custom
// metadata) before looking at the bytes behind them, so a few corrupt bytes
// can ask for hundreds of gigabytes: an out-of-memory crash no recover
// catches. The checks here walk the tables arrow-go decodes eagerly and make
// sure every vector fits in its buffer, before arrow-go sees the metadata.

// Values of the unions Field.type and Message.header (format/Schema.fbs,
// format/Message.fbs).
const (
	fbTypeUnion         = 14
	fbHeaderSchema      = 1
	fbHeaderDictionary  = 2
	fbHeaderRecordBatch = 3
)

// Sizes of the structs in vectors, and other constants of the format.
const (
	blockSize          = 24 // struct Block { offset: long; metaDataLength: int; bodyLength: long }
	fieldNodeSize      = 16
	bufferSize         = 16
	continuationMarker = 0xFFFFFFFF
	maxFieldDepth      = 64 // arrow-go's own nesting limit
)

type fbChecker struct {
	buf    []byte
	tables int // tables left to visit: bounds the walk of shared (DAG) tables
}

type fbTable struct {
	pos, vt, vtLen int
}

func newFBChecker(buf []byte) *fbChecker {
	return &fbChecker{buf: buf, tables: len(buf)/4 + 16}
}

func (c *fbChecker) u32(p int64) (uint32, error) {
	if p < 0 || p+4 > int64(len(c.buf)) {
		return 0, fmt.Errorf("flatbuffer offset %d out of a %d-byte buffer", p, len(c.buf))
	}
	return binary.LittleEndian.Uint32(c.buf[p:]), nil
}

func (c *fbChecker) u16(p int64) (uint16, error) {
	if p < 0 || p+2 > int64(len(c.buf)) {
		return 0, fmt.Errorf("flatbuffer offset %d out of a %d-byte buffer", p, len(c.buf))
	}
	return binary.LittleEndian.Uint16(c.buf[p:]), nil
}

func (c *fbChecker) table(p int64) (fbTable, error) {
	if c.tables--; c.tables < 0 {
		return fbTable{}, errors.New("flatbuffer has more tables than its size allows")
	}
	soff, err := c.u32(p)
	if err != nil {
		return fbTable{}, err
	}
	vt := p - int64(int32(soff))
	vtLen, err := c.u16(vt)
	if err != nil {
		return fbTable{}, err
	}
	tblLen, err := c.u16(vt + 2)
	if err != nil {
		return fbTable{}, err
	}
	if vtLen < 4 || vt+int64(vtLen) > int64(len(c.buf)) || p+int64(tblLen) > int64(len(c.buf)) {
		return fbTable{}, fmt.Errorf("flatbuffer table at %d out of its buffer", p)
	}
	return fbTable{pos: int(p), vt: int(vt), vtLen: int(vtLen)}, nil
}

func (c *fbChecker) root() (fbTable, error) {
	off, err := c.u32(0)
	if err != nil {
		return fbTable{}, err
	}
	return c.table(int64(off))
}

// field returns the position of field i of t, or -1 when absent.
func (c *fbChecker) field(t fbTable, i int) (int64, error) {
	at := 4 + 2*i
	if at+2 > t.vtLen {
		return -1, nil
	}
	off, err := c.u16(int64(t.vt + at))
	if err != nil || off == 0 {
		return -1, err
	}
	return int64(t.pos) + int64(off), nil
}

// ref follows the offset stored in field i of t, or returns -1.
func (c *fbChecker) ref(t fbTable, i int) (int64, error) {
	p, err := c.field(t, i)
	if err != nil || p < 0 {
		return -1, err
	}
	off, err := c.u32(p)
	if err != nil {
		return -1, err
	}
	return p + int64(off), nil
}

func (c *fbChecker) byteField(t fbTable, i int) (byte, error) {
	p, err := c.field(t, i)
	if err != nil || p < 0 {
		return 0, err
	}
	if p >= int64(len(c.buf)) {
		return 0, fmt.Errorf("flatbuffer offset %d out of a %d-byte buffer", p, len(c.buf))
	}
	return c.buf[p], nil
}

// vector checks that field i of t, a vector of elemSize-byte elements, fits
// in the buffer; it returns its start and length (n = 0 when absent).
func (c *fbChecker) vector(t fbTable, i int, elemSize int64) (start int64, n int, err error) {
	p, err := c.ref(t, i)
	if err != nil || p < 0 {
		return 0, 0, err
	}
	l, err := c.u32(p)
	if err != nil {
		return 0, 0, err
	}
	start = p + 4
	if int64(l)*elemSize > int64(len(c.buf))-start {
		return 0, 0, fmt.Errorf("flatbuffer vector of %d elements at %d out of a %d-byte buffer", l, p, len(c.buf))
	}
	return start, int(l), nil
}

func (c *fbChecker) tableVector(t fbTable, i int, each func(fbTable) error) error {
	start, n, err := c.vector(t, i, 4)
	if err != nil {
		return err
	}
	for j := range n {
		p := start + 4*int64(j)
		off, err := c.u32(p)
		if err != nil {
			return err
		}
		el, err := c.table(p + int64(off))
		if err != nil {
			return err
		}
		if err := each(el); err != nil {
			return err
		}
	}
	return nil
}

func (c *fbChecker) subTable(t fbTable, i int) (fbTable, bool, error) {
	p, err := c.ref(t, i)
	if err != nil || p < 0 {
		return fbTable{}, false, err
	}
	st, err := c.table(p)
	return st, err == nil, err
}

func (c *fbChecker) keyValues(t fbTable, i int) error {
	return c.tableVector(t, i, func(kv fbTable) error {
		if _, _, err := c.vector(kv, 0, 1); err != nil {
			return err
		}
		_, _, err := c.vector(kv, 1, 1)
		return err
	})
}

func (c *fbChecker) schema(s fbTable) error {
	if err := c.tableVector(s, 1, func(f fbTable) error { return c.checkField(f, 0) }); err != nil {
		return err
	}
	if err := c.keyValues(s, 2); err != nil {
		return err
	}
	_, _, err := c.vector(s, 3, 8)
	return err
}

func (c *fbChecker) checkField(f fbTable, depth int) error {
	if depth > maxFieldDepth {
		return fmt.Errorf("fields nested deeper than %d levels", maxFieldDepth)
	}
	if _, _, err := c.vector(f, 0, 1); err != nil {
		return err
	}
	typeType, err := c.byteField(f, 2)
	if err != nil {
		return err
	}
	typ, ok, err := c.subTable(f, 3)
	if err != nil {
		return err
	}
	if ok && typeType == fbTypeUnion {
		if _, _, err := c.vector(typ, 1, 4); err != nil {
			return err
		}
	}
	// A dictionary-encoded field (pandas writes a categorical so):
	// DictionaryEncoding { id; indexType: Int; isOrdered; dictionaryKind }.
	if enc, ok, err := c.subTable(f, 4); err != nil {
		return err
	} else if ok {
		if _, _, err := c.subTable(enc, 1); err != nil {
			return err
		}
	}
	if err := c.tableVector(f, 5, func(ch fbTable) error { return c.checkField(ch, depth+1) }); err != nil {
		return err
	}
	return c.keyValues(f, 6)
}

// checkMessage checks the metadata flatbuffer of an IPC message and returns
// its header type and body length.
func checkMessage(meta []byte) (kind byte, bodyLen int64, err error) {
	c := newFBChecker(meta)
	m, err := c.root()
	if err != nil {
		return 0, 0, err
	}
	if err := c.keyValues(m, 4); err != nil {
		return 0, 0, err
	}
	if kind, err = c.byteField(m, 1); err != nil {
		return 0, 0, err
	}
	if p, err := c.field(m, 3); err != nil {
		return 0, 0, err
	} else if p >= 0 {
		if p+8 > int64(len(meta)) {
			return 0, 0, fmt.Errorf("flatbuffer offset %d out of a %d-byte buffer", p, len(meta))
		}
		bodyLen = int64(binary.LittleEndian.Uint64(meta[p:]))
	}
	h, ok, err := c.subTable(m, 2)
	if err != nil {
		return 0, 0, err
	}
	if !ok {
		return 0, 0, errors.New("message without a header")
	}
	switch kind {
	case fbHeaderSchema:
		return kind, bodyLen, c.schema(h)
	case fbHeaderRecordBatch:
		return kind, bodyLen, c.recordBatch(h)
	case fbHeaderDictionary:
		// DictionaryBatch { id; data: RecordBatch; isDelta }
		data, ok, err := c.subTable(h, 1)
		if err != nil {
			return 0, 0, err
		}
		if !ok {
			return 0, 0, errors.New("dictionary batch without data")
		}
		return kind, bodyLen, c.recordBatch(data)
	}
	return 0, 0, fmt.Errorf("message of type %d: want a schema, a dictionary batch or a record batch", kind)
}

// recordBatch checks the vectors of a RecordBatch table.
func (c *fbChecker) recordBatch(h fbTable) error {
	for _, v := range []struct {
		field int
		size  int64
	}{{1, fieldNodeSize}, {2, bufferSize}, {4, 8}} {
		if _, _, err := c.vector(h, v.field, v.size); err != nil {
			return err
		}
	}
	_, _, err := c.subTable(h, 3)
	return err
}

// fileBlock is where a record batch message sits in an Arrow file.
type fileBlock struct {
	offset  int64
	metaLen int32
	bodyLen int64
}

// checkFooter checks the footer flatbuffer of an Arrow file and returns its
// record batch blocks and its dictionary blocks.
func checkFooter(footer []byte) (batches, dicts []fileBlock, err error) {
	c := newFBChecker(footer)
	f, err := c.root()
	if err != nil {
		return nil, nil, err
	}
	s, ok, err := c.subTable(f, 1)
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		return nil, nil, errors.New("footer without a schema")
	}
	if err := c.schema(s); err != nil {
		return nil, nil, err
	}
	if err := c.keyValues(f, 4); err != nil {
		return nil, nil, err
	}
	blocks := func(field int) ([]fileBlock, error) {
		start, n, err := c.vector(f, field, blockSize)
		if err != nil {
			return nil, err
		}
		out := make([]fileBlock, n)
		for i := range out {
			b := footer[start+int64(i)*blockSize:]
			out[i] = fileBlock{
				offset:  int64(binary.LittleEndian.Uint64(b)),
				metaLen: int32(binary.LittleEndian.Uint32(b[8:])),
				bodyLen: int64(binary.LittleEndian.Uint64(b[16:])),
			}
		}
		return out, nil
	}
	if dicts, err = blocks(2); err != nil {
		return nil, nil, err
	}
	if batches, err = blocks(3); err != nil {
		return nil, nil, err
	}
	return batches, dicts, nil
}

// messageFlatbuffer strips the length prefix (with or without the
// continuation marker) from the metadata of a message.
func messageFlatbuffer(meta []byte) ([]byte, error) {
	if len(meta) < 8 {
		return nil, fmt.Errorf("message metadata of %d bytes is too short", len(meta))
	}
	prefix := 4
	if binary.LittleEndian.Uint32(meta) == continuationMarker {
		prefix = 8
	}
	n := int64(binary.LittleEndian.Uint32(meta[prefix-4:]))
	if n > int64(len(meta)-prefix) {
		return nil, fmt.Errorf("message metadata length %d is more than the %d bytes its block holds", n, len(meta)-prefix)
	}
	return meta[prefix : prefix+int(n)], nil
}
