package aisbench

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"unsafe"

	"codeberg.org/sbinet/npyio"
)

var shapeRe = regexp.MustCompile(`^'shape': \(\s*(\d{1,12})\s*,\s*\)`)

func shapeText(b []byte) string {
	if i := bytes.IndexByte(b, ')'); i >= 0 {
		return string(b[:i+1])
	}
	return string(b)
}

// maxHeader bounds an .npy header: np.save writes a few dozen bytes.
const maxHeader = 1 << 16

// decodeTimePoints reads one numpy_store blob: what np.save(buf, arr,
// allow_pickle=False) writes for a 1-D float64 array. The header is parsed by
// npyio; before it is handed the blob, its declared lengths are checked
// against the blob's, so that a hostile blob is an error and never a huge
// allocation or a panic in the reader.
func decodeTimePoints(blob []byte) (tp []float64, err error) { return decodeNpy(blob, false) }

// decodeOwnedTimePoints is decodeTimePoints of a blob the caller gives up
// (never changed, nor reused, afterwards): np.save's own little-endian
// array is then read in place, the blob's bytes taken as the float64
// values they are, instead of copied into new memory (on this project's
// machines fresh memory costs more than the copy).
func decodeOwnedTimePoints(blob []byte) (tp []float64, err error) { return decodeNpy(blob, true) }

func decodeNpy(blob []byte, owned bool) (tp []float64, err error) {
	if len(blob) < 10 || !bytes.Equal(blob[:6], []byte("\x93NUMPY")) {
		return nil, errors.New("not an .npy array (no \\x93NUMPY magic)")
	}
	if blob[7] != 0 { // numpy's _check_version: (1,0), (2,0) or (3,0) only
		return nil, fmt.Errorf(".npy format version %d.%d: want 1.0, 2.0 or 3.0", blob[6], blob[7])
	}
	var hdrLen, start int
	switch blob[6] {
	case 1:
		hdrLen, start = int(binary.LittleEndian.Uint16(blob[8:10])), 10
	case 2, 3:
		if len(blob) < 12 {
			return nil, errors.New("truncated .npy header")
		}
		n := binary.LittleEndian.Uint32(blob[8:12])
		if n > maxHeader {
			return nil, fmt.Errorf(".npy header of %d bytes: want at most %d", n, maxHeader)
		}
		hdrLen, start = int(n), 12
	default:
		return nil, fmt.Errorf(".npy format version %d.%d: want 1.0, 2.0 or 3.0", blob[6], blob[7])
	}
	if start+hdrLen > len(blob) {
		return nil, fmt.Errorf(".npy header of %d bytes runs past the blob's %d bytes", hdrLen, len(blob))
	}
	hdr := blob[start : start+hdrLen]
	if bytes.IndexByte(hdr, '\n') < 0 || bytes.IndexByte(hdr, '{') < 0 || bytes.IndexByte(hdr, '}') < 0 {
		return nil, errors.New(".npy header is not a dictionary ended by a newline")
	}
	// npyio slices the header by the positions of its keys; keys out of
	// np.save's order would make it slice backwards.
	d, o, s := bytes.Index(hdr, []byte("'descr': ")), bytes.Index(hdr, []byte("'fortran_order': ")), bytes.Index(hdr, []byte("'shape': "))
	e := bytes.IndexByte(hdr, '}')
	if d < 0 || o < 0 || s < 0 || !(d+11 <= o && o+19 <= s && s+13 <= e) {
		return nil, errors.New(".npy header lacks 'descr', 'fortran_order' and 'shape' in np.save's order")
	}
	// The shape, read here too: npyio's reader cuts it by position.
	m := shapeRe.FindSubmatch(hdr[s:])
	if m == nil {
		return nil, fmt.Errorf(".npy shape %q: want a 1-D array", shapeText(hdr[s:]))
	}
	// numpy reads the header with ast.literal_eval, which refuses a
	// decimal literal with leading zeros (but takes 0, 00...).
	if len(m[1]) > 1 && m[1][0] == '0' && len(bytes.Trim(m[1], "0")) > 0 {
		return nil, fmt.Errorf(".npy shape %q: not a Python integer literal", m[0])
	}
	want, err := strconv.Atoi(string(m[1]))
	if err != nil {
		return nil, fmt.Errorf(".npy shape %q: %v", m[0], err)
	}
	if blob[6] <= 2 && canonicalF8(hdr) { // npyio reads versions 1 and 2 only
		data := blob[start+hdrLen:]
		if owned && littleEndianHost && len(data) == 8*want && want > 0 && uintptr(unsafe.Pointer(&data[0]))%8 == 0 {
			return unsafe.Slice((*float64)(unsafe.Pointer(&data[0])), want), nil
		}
		return decodeF8(data, want, binary.LittleEndian)
	}
	defer func() {
		if p := recover(); p != nil {
			tp, err = nil, fmt.Errorf("malformed .npy header: %v", p)
		}
	}()
	r, err := npyio.NewReader(bytes.NewReader(blob))
	if err != nil {
		return nil, fmt.Errorf("malformed .npy header: %w", err)
	}
	h := r.Header.Descr
	dt := unquote(h.Type)
	if dt != "<f8" && dt != ">f8" {
		return nil, fmt.Errorf(".npy dtype %q: want float64 ('<f8')", h.Type)
	}
	if len(h.Shape) != 1 {
		return nil, fmt.Errorf(".npy shape %v: want a 1-D array", h.Shape)
	}
	n := h.Shape[0]
	if n != want {
		return nil, fmt.Errorf(".npy shape %q read as %d values", m[0], n)
	}
	var order binary.ByteOrder = binary.LittleEndian
	if dt == ">f8" {
		order = binary.BigEndian
	}
	return decodeF8(blob[start+hdrLen:], n, order)
}

// unquote is a Python string literal's text, quoted alike at both ends
// ('<f8' or "<f8"); anything else comes back as it is, and so is no dtype.
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// canonicalF8 reports whether hdr is the header np.save writes for a 1-D
// little-endian float64 array, byte for byte: one that needs no parser
// (npyio's took a fifth of a work_dir's import).
func canonicalF8(hdr []byte) bool {
	rest, ok := bytes.CutPrefix(hdr, []byte("{'descr': '<f8', 'fortran_order': False, 'shape': ("))
	if !ok {
		return false
	}
	digits := 0
	for digits < len(rest) && rest[digits] >= '0' && rest[digits] <= '9' {
		digits++
	}
	rest, ok = bytes.CutPrefix(rest[digits:], []byte(",), }"))
	if digits == 0 || !ok || len(rest) == 0 || rest[len(rest)-1] != '\n' {
		return false
	}
	return len(bytes.TrimLeft(rest[:len(rest)-1], " ")) == 0
}

// littleEndianHost: the machine stores a float64 as '<f8' does.
var littleEndianHost = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// decodeF8 is n float64 values, the whole of data.
func decodeF8(data []byte, n int, order binary.ByteOrder) ([]float64, error) {
	if n < 0 || len(data) != 8*n {
		return nil, fmt.Errorf(".npy array of %d float64 values needs %d data bytes, the blob has %d", n, 8*n, len(data))
	}
	if n == 0 {
		return []float64{}, nil
	}
	tp := make([]float64, n)
	if order == binary.ByteOrder(binary.LittleEndian) && littleEndianHost {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&tp[0])), 8*n), data) // the same bytes in the same order
		return tp, nil
	}
	for i := range tp {
		tp[i] = math.Float64frombits(order.Uint64(data[8*i:]))
	}
	return tp, nil
}
