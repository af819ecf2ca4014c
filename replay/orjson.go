package replay

import (
	"math"
	"strconv"
)

// ORJSONRejects reports what orjson.loads (AIPerf's and GenAI-Perf's
// load_json_str; orjson 3.8, the image's) refuses and Python's json.loads,
// which JSONParser follows, accepts: the literals NaN, Infinity and
// -Infinity, a number too large for a double (1e400: json.loads makes it
// inf), and a \u escape of a lone surrogate (json.loads keeps it).
// Anything else either both accept or both refuse.
func ORJSONRejects(b []byte) bool {
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			j, bad := orjsonStringEnd(b, i+1)
			if bad {
				return true
			}
			i = j
		case c == 'N' || c == 'I':
			return true // NaN, Infinity outside a string
		case c == '-' || '0' <= c && c <= '9':
			j := i + 1
			for j < len(b) && isNumberByte(b[j]) {
				j++
			}
			if x, err := strconv.ParseFloat(string(b[i:j]), 64); err != nil && math.IsInf(x, 0) {
				return true
			}
			i = j - 1
		}
	}
	return false
}

func isNumberByte(c byte) bool {
	return '0' <= c && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}

// orjsonStringEnd scans a JSON string from just after its opening quote: the
// index of its closing quote (len(b) when unterminated), and whether it
// holds a lone surrogate escape.
func orjsonStringEnd(b []byte, i int) (int, bool) {
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			return i, false
		case '\\':
			if i+1 < len(b) && b[i+1] == 'u' {
				u, ok := hex4(b, i+2)
				switch {
				case !ok:
				case 0xdc00 <= u && u <= 0xdfff:
					return i, true
				case 0xd800 <= u && u <= 0xdbff:
					lo, ok := uint16(0), false
					if i+7 < len(b) && b[i+6] == '\\' && b[i+7] == 'u' {
						lo, ok = hex4(b, i+8)
					}
					if !ok || lo < 0xdc00 || lo > 0xdfff {
						return i, true
					}
					i += 6 // the pair's low half
				}
				i += 5
				continue
			}
			i++ // the escaped byte
		}
	}
	return i, false
}

// hex4 reads four hex digits at b[i:].
func hex4(b []byte, i int) (uint16, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[i:i+4]), 16, 16)
	return uint16(n), err == nil
}
