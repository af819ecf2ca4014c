package replay

import (
	"strconv"
	"unicode/utf8"
)

// Python's notions of whitespace, which AISBench's client strips with.

// isPyBytesSpace is bytes.isspace for one byte: what bytes.strip() removes.
func isPyBytesSpace(b byte) bool {
	switch b {
	case ' ', '\t', '\n', '\r', '\x0b', '\x0c':
		return true
	}
	return false
}

// pyBytesStrip returns the bounds [i, j) of b.strip() within b.
func pyBytesStrip(b []byte) (i, j int) {
	j = len(b)
	for i < j && isPyBytesSpace(b[i]) {
		i++
	}
	for j > i && isPyBytesSpace(b[j-1]) {
		j--
	}
	return i, j
}

// isPyStrSpace is str.isspace for one code point.
func isPyStrSpace(r rune) bool {
	switch {
	case r <= 0x20:
		return r == ' ' || r >= '\t' && r <= '\r' || r >= 0x1c && r <= 0x1f
	case r < 0x85:
		return false
	case r == 0x85, r == 0xa0, r == 0x1680, r >= 0x2000 && r <= 0x200a,
		r == 0x2028, r == 0x2029, r == 0x202f, r == 0x205f, r == 0x3000:
		return true
	}
	return false
}

// pyStrStrip returns the bounds [i, j) of str.strip() within the valid
// UTF-8 text s.
func pyStrStrip(s []byte) (i, j int) {
	j = len(s)
	for i < j {
		r, n := utf8.DecodeRune(s[i:])
		if !isPyStrSpace(r) {
			break
		}
		i += n
	}
	for j > i {
		r, n := utf8.DecodeLastRune(s[i:j])
		if !isPyStrSpace(r) {
			break
		}
		j -= n
	}
	return i, j
}

// pyUTF8Error is the message of the UnicodeDecodeError Python's strict
// UTF-8 decoder raises for the first invalid sequence of b, or "" when b is
// valid UTF-8.
func pyUTF8Error(b []byte) string {
	for i := 0; i < len(b); {
		if r, n := utf8.DecodeRune(b[i:]); r != utf8.RuneError || n > 1 {
			i += n
			continue
		}
		if c := b[i]; c < 0xc2 || c > 0xf4 {
			return decodeError(b, i, 1, "invalid start byte")
		}
		k := validPrefix(b[i:]) // the start byte and its valid continuations
		if i+k == len(b) {
			return decodeError(b, i, k, "unexpected end of data")
		}
		return decodeError(b, i, k, "invalid continuation byte")
	}
	return ""
}

func decodeError(b []byte, pos, n int, reason string) string {
	const hex = "0123456789abcdef"
	if n == 1 {
		return "'utf-8' codec can't decode byte 0x" + string([]byte{hex[b[pos]>>4], hex[b[pos]&15]}) +
			" in position " + strconv.Itoa(pos) + ": " + reason
	}
	return "'utf-8' codec can't decode bytes in position " + strconv.Itoa(pos) + "-" + strconv.Itoa(pos+n-1) + ": " + reason
}

// PyDecodeIgnore appends b decoded as Python's bytes.decode("utf-8",
// errors="ignore") decodes it: each maximal invalid subsequence dropped.
func PyDecodeIgnore(dst, b []byte) []byte {
	for i := 0; i < len(b); {
		if r, n := utf8.DecodeRune(b[i:]); r != utf8.RuneError || n > 1 {
			dst = append(dst, b[i:i+n]...)
			i += n
			continue
		}
		i += validPrefix(b[i:])
	}
	return dst
}

// pyDecodeReplace appends b decoded as Python's bytes.decode("utf-8",
// errors="replace") decodes it: each maximal invalid subsequence (an
// invalid start byte, or the valid start of a sequence cut short) becomes
// one U+FFFD.
func pyDecodeReplace(dst, b []byte) []byte {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			dst = append(dst, c)
			i++
			continue
		}
		if r, n := utf8.DecodeRune(b[i:]); r != utf8.RuneError || n > 1 {
			dst = append(dst, b[i:i+n]...)
			i += n
			continue
		}
		dst = utf8.AppendRune(dst, utf8.RuneError)
		i += validPrefix(b[i:])
	}
	return dst
}

// validPrefix is the length of the maximal subpart of an ill-formed
// sequence at the start of b: its start byte and the continuation bytes
// that are still valid for it (at least 1).
func validPrefix(b []byte) int {
	c := b[0]
	var need int
	lo, hi := byte(0x80), byte(0xbf)
	switch {
	case c >= 0xc2 && c <= 0xdf:
		need = 1
	case c >= 0xe0 && c <= 0xef:
		need = 2
		if c == 0xe0 {
			lo = 0xa0
		} else if c == 0xed {
			hi = 0x9f
		}
	case c >= 0xf0 && c <= 0xf4:
		need = 3
		if c == 0xf0 {
			lo = 0x90
		} else if c == 0xf4 {
			hi = 0x8f
		}
	default:
		return 1
	}
	k := 1
	for ; k <= need && k < len(b); k++ {
		x := b[k]
		if k == 1 && (x < lo || x > hi) || k > 1 && (x < 0x80 || x > 0xbf) {
			break
		}
	}
	return k
}
