package trace

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf8"
)

// jsonlWriter writes the canonical JSONL: fixed key order, nulls left out for
// schema columns, every extra column written (null included) so that column
// order survives.
type jsonlWriter struct {
	w     *bufio.Writer
	extra []ExtraColumn
	buf   []byte
}

func newJSONLWriter(w io.Writer, opts WriteOptions) (RequestWriter, error) {
	jw := &jsonlWriter{w: bufio.NewWriterSize(w, 1<<20), extra: opts.Extra}
	meta := append(Meta(nil), opts.Meta...)
	for _, c := range opts.Extra {
		meta.Set(KeyExtraKindPrefix+c.Name, c.Kind.String())
	}
	b := append(jw.buf[:0], `{"run": {`...)
	n := 0
	for _, kv := range meta {
		k, ok := metaKeyToRun(kv.Key)
		if !ok {
			continue
		}
		if n > 0 {
			b = append(b, ", "...)
		}
		n++
		b = appendJSONString(b, k)
		b = append(b, ": "...)
		if jsonNumber.MatchString(kv.Value) || kv.Value == "true" || kv.Value == "false" {
			b = append(b, kv.Value...)
		} else {
			b = appendJSONString(b, kv.Value)
		}
	}
	b = append(b, "}}\n"...)
	jw.buf = b
	_, err := jw.w.Write(b)
	return jw, err
}

func (jw *jsonlWriter) Write(r *Request) error {
	if !utf8.ValidString(r.RequestID) {
		return fmt.Errorf("request %q: request_id is not valid UTF-8 and cannot be written to JSONL", r.RequestID)
	}
	b := append(jw.buf[:0], `{"request_id": `...)
	b = appendJSONString(b, r.RequestID)
	b = append(b, `, "t0_ns": `...)
	b = strconv.AppendInt(b, r.T0Ns, 10)
	if r.EndNs != nil {
		b = append(b, `, "end_ns": `...)
		b = strconv.AppendInt(b, *r.EndNs, 10)
	}
	if r.HTTPStatus != nil {
		b = append(b, `, "http_status": `...)
		b = strconv.AppendInt(b, int64(*r.HTTPStatus), 10)
	}
	if r.Error != nil {
		if !utf8.ValidString(*r.Error) {
			return fmt.Errorf("request %q: error is not valid UTF-8 and cannot be written to JSONL", r.RequestID)
		}
		b = append(b, `, "error": `...)
		b = appendJSONString(b, *r.Error)
	}
	if r.Chunks != nil {
		b = append(b, `, "chunks": [`...)
		for i, c := range r.Chunks {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, `{"t_ns": `...)
			b = strconv.AppendInt(b, c.TNs, 10)
			if utf8.Valid(c.Data) {
				b = append(b, `, "data": `...)
				b = appendJSONString(b, string(c.Data))
			} else {
				b = append(b, `, "data_b64": "`...)
				b = base64.StdEncoding.AppendEncode(b, c.Data)
				b = append(b, '"')
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if r.TimePointsS != nil {
		b = append(b, `, "time_points_s": [`...)
		for i, t := range r.TimePointsS {
			if math.IsNaN(t) || math.IsInf(t, 0) {
				return fmt.Errorf("request %q: time_points_s[%d] is %v: JSON has no such number", r.RequestID, i, t)
			}
			if i > 0 {
				b = append(b, ", "...)
			}
			b = strconv.AppendFloat(b, t, 'g', -1, 64)
		}
		b = append(b, ']')
	}
	if r.InputTokens != nil {
		b = append(b, `, "input_tokens": `...)
		b = strconv.AppendInt(b, *r.InputTokens, 10)
	}
	if r.OutputTokens != nil {
		b = append(b, `, "output_tokens": `...)
		b = strconv.AppendInt(b, *r.OutputTokens, 10)
	}
	for i, c := range jw.extra {
		b = append(b, ", "...)
		b = appendJSONString(b, c.Name)
		b = append(b, ": "...)
		var v Value
		if i < len(r.Extra) {
			v = r.Extra[i]
		} else {
			v.Null = true
		}
		var err error
		if b, err = appendExtra(b, c, v); err != nil {
			return fmt.Errorf("request %q: %w", r.RequestID, err)
		}
	}
	b = append(b, "}\n"...)
	jw.buf = b
	_, err := jw.w.Write(b)
	return err
}

func appendExtra(b []byte, c ExtraColumn, v Value) ([]byte, error) {
	if v.Null {
		return append(b, "null"...), nil
	}
	switch c.Kind {
	case ExtraJSON:
		if !json.Valid([]byte(v.Str)) {
			return b, fmt.Errorf("column %s holds %q, which is not JSON text", c.Name, v.Str)
		}
		return append(b, v.Str...), nil
	case ExtraString:
		return appendJSONString(b, v.Str), nil // bytes that are not UTF-8 as \udcXX
	case ExtraBinary:
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, v.Bytes)
		return append(b, '"'), nil
	case ExtraInt64:
		return strconv.AppendInt(b, v.Int, 10), nil
	case ExtraFloat64:
		if math.IsNaN(v.Float) || math.IsInf(v.Float, 0) {
			return appendJSONString(b, strconv.FormatFloat(v.Float, 'g', -1, 64)), nil
		}
		return strconv.AppendFloat(b, v.Float, 'g', -1, 64), nil
	case ExtraBool:
		return strconv.AppendBool(b, v.Bool), nil
	}
	return b, fmt.Errorf("column %s: unknown kind %d", c.Name, c.Kind)
}

func (jw *jsonlWriter) Close() error { return jw.w.Flush() }

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string: quotes, backslashes and
// control characters escaped, a byte that is not UTF-8 as \udcXX, everything
// else as it is.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			if r, size := utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError || size != 1 {
				i += size - 1
				continue
			}
			// A byte that is not UTF-8: Python's surrogateescape, read
			// back as the byte (jsonlReader.surrogates).
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', 'd', 'c', hexDigits[c>>4], hexDigits[c&0xf])
			start = i + 1
			continue
		}
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, '\\', '"')
		case '\\':
			b = append(b, '\\', '\\')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
