package trace

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// refString decodes the body of a JSON string literal (valid JSON) the way
// the JSONL reader must: escapes as JSON says, a surrogate pair as its
// character, \udc80-\udcff as the byte (Python's surrogateescape), any
// other lone surrogate an error. A plain second implementation of
// jsonlReader.surrogates followed by fastjson's unescaping.
func refString(lit string) ([]byte, bool) {
	var out []byte
	for i := 0; i < len(lit); i++ {
		c := lit[i]
		if c != '\\' {
			out = append(out, c)
			continue
		}
		i++
		switch lit[i] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			x, _ := strconv.ParseUint(lit[i+1:i+5], 16, 32)
			i += 4
			r := rune(x)
			switch {
			case !utf16.IsSurrogate(r):
				out = utf8.AppendRune(out, r)
			case r < 0xdc00 && i+6 < len(lit) && lit[i+1] == '\\' && lit[i+2] == 'u':
				y, _ := strconv.ParseUint(lit[i+3:i+7], 16, 32)
				if y < 0xdc00 || y > 0xdfff {
					return nil, false
				}
				out = utf8.AppendRune(out, utf16.DecodeRune(r, rune(y)))
				i += 6
			case r >= 0xdc80 && r <= 0xdcff:
				out = append(out, byte(r-0xdc00))
			default:
				return nil, false
			}
		default: // " \ /
			out = append(out, lit[i])
		}
	}
	return out, true
}

// FuzzJSONLStrings: a chunk's data, given as any valid JSON string, reads
// as refString says, or the line is refused as holding a lone surrogate.
func FuzzJSONLStrings(f *testing.F) {
	for _, s := range []string{`a`, `\udce9\udce9x`, `\ud83d\ude00`, `\ud800`, `\\udce9`, `\ud800\udc80`, `\udc7f`, `\uDCFF\u0041`, `\"\n\t\u00e9`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, lit string) {
		line := `{"request_id": "r", "t0_ns": 1, "chunks": [{"t_ns": 1, "data": "` + lit + `"}]}` + "\n"
		if !utf8.ValidString(line) || !json.Valid([]byte(line)) || strings.ContainsAny(lit, "\n\r") || strings.Contains(lit, `"`) && !validStringBody(lit) {
			return
		}
		var probe struct {
			Chunks []struct{ Data json.RawMessage } `json:"chunks"`
		}
		if json.Unmarshal([]byte(line), &probe) != nil || len(probe.Chunks) != 1 || string(probe.Chunks[0].Data) != `"`+lit+`"` {
			return // lit is not one string literal's body
		}
		want, ok := refString(lit)
		_, reqs, err := readAllBytes(t, "s.jsonl", "", []byte(line))
		switch {
		case !ok:
			if err == nil || !strings.Contains(err.Error(), "lone surrogate") {
				t.Fatalf("%q: %v, want a lone surrogate refused", lit, err)
			}
		case err != nil:
			t.Fatalf("%q: %v, want %q", lit, err, want)
		case !bytes.Equal(reqs[0].Chunks[0].Data, want):
			t.Fatalf("%q: data %q, want %q", lit, reqs[0].Chunks[0].Data, want)
		}
	})
}

// validStringBody reports whether every quote of lit is escaped.
func validStringBody(lit string) bool {
	for i := 0; i < len(lit); i++ {
		switch lit[i] {
		case '\\':
			i++
		case '"':
			return false
		}
	}
	return true
}
