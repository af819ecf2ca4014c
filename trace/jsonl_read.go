package trace

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/valyala/fastjson"
)

// The JSONL interchange: an optional first line {"run": {...}} with the
// metadata, then one request object a line. See schemas/trace-v1.md.

func init() {
	Register(&Format{
		Name:       "jsonl",
		Extensions: []string{".jsonl", ".ndjson"},
		Open:       openJSONL,
		NewWriter:  newJSONLWriter,
		Layouts:    []Layout{Nested},
	})
}

// Column names of the nested layout, in their canonical order.
const (
	ColRequestID    = "request_id"
	ColT0Ns         = "t0_ns"
	ColEndNs        = "end_ns"
	ColHTTPStatus   = "http_status"
	ColError        = "error"
	ColChunks       = "chunks"
	ColTimePointsS  = "time_points_s"
	ColInputTokens  = "input_tokens"
	ColOutputTokens = "output_tokens"
	// Flat layout only.
	ColTNs  = "t_ns"
	ColData = "data"
)

// Columns lists the nested layout's columns in order.
var Columns = []string{ColRequestID, ColT0Ns, ColEndNs, ColHTTPStatus, ColError, ColChunks, ColTimePointsS, ColInputTokens, ColOutputTokens}

// IsSchemaColumn reports whether name is a column of the nested layout.
func IsSchemaColumn(name string) bool {
	for _, c := range Columns {
		if c == name {
			return true
		}
	}
	return false
}

// runKeyToMeta maps a key of the JSONL run object to its metadata key.
func runKeyToMeta(k string) string {
	switch {
	case k == "schema_version" || k == "max_concurrency" || k == "request_rate" || k == "source":
		return MetaPrefix + k
	case strings.HasPrefix(k, "extra_kind."):
		return MetaPrefix + k
	}
	return KeyRunPrefix + k
}

// metaKeyToRun is the inverse of runKeyToMeta; ok is false for keys the run
// object cannot hold.
func metaKeyToRun(k string) (string, bool) {
	if strings.HasPrefix(k, KeyRunPrefix) {
		return strings.TrimPrefix(k, KeyRunPrefix), true
	}
	if strings.HasPrefix(k, MetaPrefix) {
		short := strings.TrimPrefix(k, MetaPrefix)
		if runKeyToMeta(short) == k {
			return short, true
		}
	}
	return "", false
}

type jsonlReader struct {
	src     Source
	info    Info
	br      *bufio.Reader
	line    int
	parser  fastjson.Parser
	check   *Checker
	extra   map[string]int // extra column -> index in info.Extra
	runLine int            // line of the {"run": ...} object, 0 if none
	cur     Request
	err     error
	done    bool
	keys    map[string]struct{} // the keys of the object being decoded
}

func openJSONL(src Source) (Reader, error) {
	r := &jsonlReader{src: src, info: Info{Path: src.Name, Format: "jsonl", Layout: Nested},
		check: NewChecker(src.Name, src.Limits), extra: map[string]int{}}
	// First pass: the run line, every line well-formed, and the extra keys in
	// order of first appearance, so that writers know the columns up front.
	if err := r.prescan(); err != nil {
		return nil, err
	}
	if err := checkSchemaVersion(src.Name, &r.info); err != nil {
		return nil, err
	}
	if _, err := src.File.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	r.br = bufio.NewReaderSize(src.File, 1<<20)
	r.line = 0
	return r, nil
}

func (r *jsonlReader) lineErr(column, format string, args ...any) *Error {
	return &Error{File: r.src.Name, Line: r.line, RowGroup: -1, Row: -1, Column: column, Msg: fmt.Sprintf(format, args...)}
}

// readLine returns the next line without its line end, or io.EOF. The
// line limit holds before the bytes are kept; a line longer than the read
// buffer has its bytes looked at as they come, so that input that is no
// JSON text at all (/dev/zero named x.jsonl) ends at its first control
// byte, not at the limit.
func (r *jsonlReader) readLine() ([]byte, error) {
	limit := r.src.Limits.MaxChunkBytes*4 + 1<<20
	var buf []byte
	for {
		frag, err := r.br.ReadSlice('\n')
		if int64(len(buf))+int64(len(frag)) > limit {
			r.line++
			e := r.lineErr("", "line longer than %d bytes (limit: 4 × --max-chunk-bytes + 1 MiB)", limit)
			e.Err = ErrLimit
			return nil, e
		}
		if err == bufio.ErrBufferFull || buf != nil {
			if i := rawControlByte(frag); i >= 0 {
				r.line++
				return nil, r.lineErr("", "not JSON: a raw control byte 0x%02x at byte %d of the line: want JSON text (which holds none)", frag[i], len(buf)+i)
			}
		}
		buf = append(buf, frag...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && len(buf) == 0 {
			return nil, io.EOF
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		r.line++
		buf = bytes.TrimSuffix(buf, []byte("\n"))
		buf = bytes.TrimSuffix(buf, []byte("\r"))
		return buf, nil
	}
}

// rawControlByte is the index of the first byte of b below 0x20 other than
// tab, line feed and carriage return (JSON allows none, in a string or out
// of one), or -1.
func rawControlByte(b []byte) int {
	for i, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
			return i
		}
	}
	return -1
}

var errBlank = errors.New("blank line")

// parseLine parses one line as a JSON object.
func (r *jsonlReader) parseLine(line []byte) (*fastjson.Object, error) {
	if len(bytes.TrimSpace(line)) == 0 {
		return nil, errBlank
	}
	if !utf8.Valid(line) {
		return nil, r.lineErr("", "not valid UTF-8: want JSON text (chunk bytes that are not UTF-8 go in data_b64)")
	}
	if !json.Valid(line) {
		var v any
		err := json.Unmarshal(line, &v)
		return nil, r.lineErr("", "not JSON: %v", err)
	}
	if d := jsonDepth(line); d > fastjson.MaxDepth {
		return nil, r.lineErr("", "JSON nested %d deep: want at most %d levels", d, fastjson.MaxDepth)
	}
	line, err := r.surrogates(line)
	if err != nil {
		return nil, err
	}
	v, err := r.parser.ParseBytes(line)
	if err != nil {
		return nil, r.lineErr("", "not JSON: %v", err)
	}
	o, err := v.Object()
	if err != nil {
		return nil, r.lineErr("", "a JSON %s: want an object (a request, or {\"run\": {...}} on the first line)", v.Type())
	}
	return o, nil
}

// surrogates rewrites the surrogate escapes of a line's strings, valid
// JSON, so that fastjson reads them right: fastjson keeps a lone surrogate
// as its six characters and decodes two lone ones in a row as one U+FFFD.
// A pair stays (fastjson decodes it); \udc80 to \udcff, what Python's
// surrogateescape writes for a byte that is not UTF-8, becomes that byte;
// any other lone surrogate refuses the line. A line without a surrogate
// escape is returned as it is.
func (r *jsonlReader) surrogates(line []byte) ([]byte, error) {
	if !bytes.Contains(line, []byte(`\u`)) {
		return line, nil
	}
	var out []byte // nil until the first change
	done := 0      // line[:done] is in out
	inString := false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case !inString:
			inString = c == '"'
		case c == '"':
			inString = false
		case c == '\\' && line[i+1] != 'u':
			i++
		case c == '\\':
			x := hex4(line[i+2 : i+6])
			switch {
			case x < 0xd800 || x > 0xdfff:
				i += 5
			case x <= 0xdbff && i+12 <= len(line) && line[i+6] == '\\' && line[i+7] == 'u' && isLowSurrogate(hex4(line[i+8:i+12])):
				i += 11 // a pair
			case x >= 0xdc80 && x <= 0xdcff:
				out = append(append(out, line[done:i]...), byte(x-0xdc00))
				i += 5
				done = i + 1
			default:
				return nil, r.lineErr("", "a lone surrogate %s at byte %d of the line: want a surrogate pair, or \\udc80 to \\udcff for a byte that is not UTF-8 (Python's surrogateescape)", line[i:i+6], i)
			}
		}
	}
	if out == nil {
		return line, nil
	}
	return append(out, line[done:]...), nil
}

func isLowSurrogate(x int) bool { return x >= 0xdc00 && x <= 0xdfff }

// hex4 is the value of four hex digits (valid JSON has them).
func hex4(b []byte) int {
	x := 0
	for _, c := range b {
		x <<= 4
		switch {
		case c >= '0' && c <= '9':
			x |= int(c - '0')
		case c >= 'a' && c <= 'f':
			x |= int(c-'a') + 10
		case c >= 'A' && c <= 'F':
			x |= int(c-'A') + 10
		}
	}
	return x
}

// jsonDepth is the deepest nesting of brackets outside strings in b, valid
// JSON.
func jsonDepth(b []byte) int {
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(b); i++ {
		switch ch := b[i]; {
		case inString:
			switch ch {
			case '\\':
				i++
			case '"':
				inString = false
			}
		case ch == '"':
			inString = true
		case ch == '[' || ch == '{':
			depth++
			deepest = max(deepest, depth)
		case ch == ']' || ch == '}':
			depth--
		}
	}
	return deepest
}

func (r *jsonlReader) prescan() error {
	br := bufio.NewReaderSize(r.src.File, 1<<20)
	r.br = br
	first := true
	for {
		line, err := r.readLine()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		o, err := r.parseLine(line)
		if err == errBlank {
			continue
		}
		if err != nil {
			return err
		}
		if run := o.Get("run"); run != nil && o.Get(ColRequestID) == nil {
			if !first {
				return r.lineErr("run", "a run line after the first line: want the run metadata on the first line only")
			}
			first = false
			r.runLine = r.line
			if err := r.readRun(run); err != nil {
				return err
			}
			continue
		}
		first = false
		var kerr error
		o.Visit(func(key []byte, _ *fastjson.Value) {
			k := string(key)
			if kerr != nil || IsSchemaColumn(k) {
				return
			}
			if _, ok := r.extra[k]; ok {
				return
			}
			if err := CheckExtraColumns(r.src.Name, r.src.Limits, len(r.info.Extra)+1, k, Error{Line: r.line, RowGroup: -1, Row: -1}); err != nil {
				kerr = err
				return
			}
			kind := ExtraJSON
			if s, ok := r.info.Meta.Get(KeyExtraKindPrefix + k); ok {
				kk, ok := ParseExtraKind(s)
				if !ok {
					kerr = r.lineErr(k, "metadata %s%s = %q: want one of string, int64, float64, bool, binary, json", KeyExtraKindPrefix, k, s)
					return
				}
				kind = kk
			}
			r.extra[k] = len(r.info.Extra)
			r.info.Extra = append(r.info.Extra, ExtraColumn{Name: k, Kind: kind})
		})
		if kerr != nil {
			return kerr
		}
	}
	return nil
}

var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

func (r *jsonlReader) readRun(run *fastjson.Value) error {
	o, err := run.Object()
	if err != nil {
		return r.lineErr("run", "a JSON %s: want an object of run metadata", run.Type())
	}
	var kerr error
	seen := map[string]bool{}
	o.Visit(func(key []byte, v *fastjson.Value) {
		if kerr != nil {
			return
		}
		if seen[string(key)] {
			kerr = r.lineErr("run", "the key %q appears twice: want each key once", key)
			return
		}
		seen[string(key)] = true
		var val string
		switch v.Type() {
		case fastjson.TypeString:
			val = string(v.GetStringBytes())
		case fastjson.TypeNull:
			return
		default:
			val = string(appendJSONValue(nil, v))
		}
		r.info.Meta.Set(runKeyToMeta(string(key)), val)
	})
	return kerr
}

// checkSchemaVersion accepts version 1 and files without a version (noted).
func checkSchemaVersion(file string, info *Info) error {
	v, ok := info.Meta.Get(KeySchemaVersion)
	if !ok {
		info.Notes = append(info.Notes, "no "+KeySchemaVersion+": read as version 1")
		return nil
	}
	if strings.TrimSpace(v) != SchemaVersion {
		return FileError(file, nil, "%s is %q: this sseaudit reads version %s", KeySchemaVersion, v, SchemaVersion)
	}
	return nil
}

// CheckSchemaVersion is checkSchemaVersion for the other formats' readers.
func CheckSchemaVersion(file string, info *Info) error { return checkSchemaVersion(file, info) }

func (r *jsonlReader) Info() Info        { return r.info }
func (r *jsonlReader) Request() *Request { return &r.cur }
func (r *jsonlReader) Err() error        { return r.err }
func (r *jsonlReader) Close() error      { return nil }

func (r *jsonlReader) Scan() bool {
	if r.err != nil || r.done {
		return false
	}
	for {
		line, err := r.readLine()
		if err == io.EOF {
			r.done = true
			return false
		}
		if err != nil {
			r.err = err
			return false
		}
		o, err := r.parseLine(line)
		if err == errBlank {
			continue
		}
		if err != nil {
			r.err = err
			return false
		}
		if r.line == r.runLine {
			continue
		}
		r.cur = Request{}
		if err := r.decode(o, &r.cur); err != nil {
			r.err = err
			return false
		}
		if err := r.check.Check(&r.cur, Error{Line: r.line, RowGroup: -1, Row: -1}); err != nil {
			r.err = err
			return false
		}
		return true
	}
}

func (r *jsonlReader) decode(o *fastjson.Object, req *Request) error {
	req.Extra = make([]Value, len(r.info.Extra))
	for i := range req.Extra {
		req.Extra[i].Null = true
	}
	var err error
	if r.keys == nil {
		r.keys = make(map[string]struct{})
	}
	clear(r.keys)
	o.Visit(func(key []byte, v *fastjson.Value) {
		if err != nil {
			return
		}
		k := string(key)
		// A key given twice would have one of its values dropped without a
		// word: the line is refused instead.
		if _, dup := r.keys[k]; dup {
			err = r.lineErr(k, "the key %q appears twice: want each key once", k)
			return
		}
		r.keys[k] = struct{}{}
		if v.Type() == fastjson.TypeNull {
			if k == ColRequestID || k == ColT0Ns {
				err = r.lineErr(k, "null: want a value")
			}
			return
		}
		switch k {
		case ColRequestID:
			var s []byte
			if s, err = v.StringBytes(); err != nil {
				err = r.lineErr(k, "a JSON %s: want a string", v.Type())
				return
			}
			req.RequestID = string(s)
		case ColT0Ns:
			req.T0Ns, err = r.int64Field(k, v)
		case ColEndNs:
			var n int64
			if n, err = r.int64Field(k, v); err == nil {
				req.EndNs = &n
			}
		case ColHTTPStatus:
			var n int64
			if n, err = r.int64Field(k, v); err == nil {
				if n < math.MinInt32 || n > math.MaxInt32 {
					err = r.lineErr(k, "%d: want a 32-bit integer", n)
					return
				}
				s := int32(n)
				req.HTTPStatus = &s
			}
		case ColError:
			var s []byte
			if s, err = v.StringBytes(); err != nil {
				err = r.lineErr(k, "a JSON %s: want a string", v.Type())
				return
			}
			str := string(s)
			req.Error = &str
		case ColInputTokens, ColOutputTokens:
			var n int64
			if n, err = r.int64Field(k, v); err == nil {
				if k == ColInputTokens {
					req.InputTokens = &n
				} else {
					req.OutputTokens = &n
				}
			}
		case ColTimePointsS:
			var a []*fastjson.Value
			if a, err = v.Array(); err != nil {
				err = r.lineErr(k, "a JSON %s: want an array of numbers", v.Type())
				return
			}
			req.TimePointsS = make([]float64, len(a))
			for i, x := range a {
				if req.TimePointsS[i], err = jsonFloat(x); err != nil {
					err = r.lineErr(k, "element %d is a JSON %s: want a number", i, x.Type())
					return
				}
			}
		case ColChunks:
			req.Chunks, err = r.chunks(v)
		default:
			i, ok := r.extra[k]
			if !ok {
				err = r.lineErr(k, "a key not seen in the first pass (the file changed while being read)")
				return
			}
			req.Extra[i], err = r.extraValue(k, r.info.Extra[i].Kind, v)
		}
	})
	if err != nil {
		return err
	}
	if o.Get(ColRequestID) == nil {
		return r.lineErr(ColRequestID, "missing: want a string id on every request line")
	}
	if o.Get(ColT0Ns) == nil {
		return r.lineErr(ColT0Ns, "missing: want the send time in integer nanoseconds")
	}
	return nil
}

func (r *jsonlReader) int64Field(k string, v *fastjson.Value) (int64, error) {
	if v.Type() != fastjson.TypeNumber {
		return 0, r.lineErr(k, "a JSON %s: want an integer", v.Type())
	}
	n, err := v.Int64()
	if err != nil {
		return 0, r.lineErr(k, "%s: want an integer that fits in 64 bits", appendJSONValue(nil, v))
	}
	return n, nil
}

func (r *jsonlReader) chunks(v *fastjson.Value) ([]Chunk, error) {
	a, err := v.Array()
	if err != nil {
		return nil, r.lineErr(ColChunks, "a JSON %s: want an array of {t_ns, data | data_b64}", v.Type())
	}
	out := make([]Chunk, len(a))
	for i, c := range a {
		o, err := c.Object()
		if err != nil {
			return nil, r.lineErr(ColChunks, "chunk %d is a JSON %s: want an object {t_ns, data | data_b64}", i, c.Type())
		}
		t := o.Get("t_ns")
		if t == nil || t.Type() == fastjson.TypeNull {
			return nil, r.lineErr(ColChunks, "chunk %d has no t_ns: want its arrival time in integer nanoseconds", i)
		}
		if out[i].TNs, err = r.int64Field(ColChunks, t); err != nil {
			e := err.(*Error)
			e.Msg = fmt.Sprintf("chunk %d t_ns: %s", i, e.Msg)
			return nil, e
		}
		d, d64 := o.Get("data"), o.Get("data_b64")
		switch {
		case d != nil && d64 != nil:
			return nil, r.lineErr(ColChunks, "chunk %d has both data and data_b64: want one", i)
		case d != nil:
			s, err := d.StringBytes()
			if err != nil {
				return nil, r.lineErr(ColChunks, "chunk %d data is a JSON %s: want a string", i, d.Type())
			}
			out[i].Data = append([]byte{}, s...)
		case d64 != nil:
			s, err := d64.StringBytes()
			if err != nil {
				return nil, r.lineErr(ColChunks, "chunk %d data_b64 is a JSON %s: want a base64 string", i, d64.Type())
			}
			out[i].Data, err = base64.StdEncoding.DecodeString(string(s))
			if err != nil {
				return nil, r.lineErr(ColChunks, "chunk %d data_b64: invalid base64 (%v): want standard base64 with padding", i, err)
			}
		default:
			return nil, r.lineErr(ColChunks, "chunk %d has neither data nor data_b64: want the body bytes", i)
		}
		var unknown, twice string
		var nT, nData, nB64 int
		o.Visit(func(key []byte, _ *fastjson.Value) {
			switch string(key) {
			case "t_ns":
				nT++
			case "data":
				nData++
			case "data_b64":
				nB64++
			default:
				if unknown == "" {
					unknown = string(key)
				}
			}
			if twice == "" && (nT > 1 || nData > 1 || nB64 > 1) {
				twice = string(key)
			}
		})
		if unknown != "" {
			return nil, r.lineErr(ColChunks, "chunk %d has the key %q: want only t_ns and data or data_b64", i, unknown)
		}
		if twice != "" {
			return nil, r.lineErr(ColChunks, "chunk %d has the key %q twice: want each key once", i, twice)
		}
	}
	return out, nil
}

func (r *jsonlReader) extraValue(k string, kind ExtraKind, v *fastjson.Value) (Value, error) {
	bad := func(want string) (Value, error) {
		return Value{}, r.lineErr(k, "a JSON %s: want %s (the column's kind is %s)", v.Type(), want, kind)
	}
	switch kind {
	case ExtraJSON:
		return Value{Str: string(appendJSONValue(nil, v))}, nil
	case ExtraString:
		s, err := v.StringBytes()
		if err != nil {
			return bad("a string")
		}
		return Value{Str: string(s)}, nil
	case ExtraBinary:
		s, err := v.StringBytes()
		if err != nil {
			return bad("a base64 string")
		}
		b, err := base64.StdEncoding.DecodeString(string(s))
		if err != nil {
			return Value{}, r.lineErr(k, "invalid base64 (%v): want standard base64", err)
		}
		return Value{Bytes: b}, nil
	case ExtraInt64:
		if v.Type() != fastjson.TypeNumber {
			return bad("an integer")
		}
		n, err := v.Int64()
		if err != nil {
			return bad("an integer")
		}
		return Value{Int: n}, nil
	case ExtraFloat64:
		if v.Type() == fastjson.TypeString {
			// NaN and infinities travel as strings.
			s := string(v.GetStringBytes())
			f, err := strconv.ParseFloat(s, 64)
			if err != nil || !(math.IsNaN(f) || math.IsInf(f, 0)) {
				return bad("a number")
			}
			return Value{Float: f}, nil
		}
		f, err := jsonFloat(v)
		if err != nil {
			return bad("a number")
		}
		return Value{Float: f}, nil
	case ExtraBool:
		b, err := v.Bool()
		if err != nil {
			return bad("true or false")
		}
		return Value{Bool: b}, nil
	}
	return Value{}, r.lineErr(k, "unknown extra kind %d", kind)
}

// jsonFloat is the float64 nearest to a JSON number, as strconv (and
// Python's json) read it: fastjson's Float64 divides the digits by a power
// of ten and multiplies by another, rounding two or three times, and reads
// "1.7000929701555e+09" one ulp off. A number too large is ±Inf (the
// callers refuse it or keep it, as before).
func jsonFloat(v *fastjson.Value) (float64, error) {
	if v.Type() != fastjson.TypeNumber {
		return 0, fmt.Errorf("a JSON %s: want a number", v.Type())
	}
	var buf [40]byte
	f, err := strconv.ParseFloat(string(v.MarshalTo(buf[:0])), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, err
	}
	return f, nil
}

// appendJSONValue appends v as compact JSON. fastjson's own MarshalTo
// escapes control characters the Go way (\x01), which is not JSON.
func appendJSONValue(b []byte, v *fastjson.Value) []byte {
	switch v.Type() {
	case fastjson.TypeObject:
		o, _ := v.Object()
		b = append(b, '{')
		n := 0
		o.Visit(func(key []byte, x *fastjson.Value) {
			if n > 0 {
				b = append(b, ',')
			}
			n++
			b = appendJSONString(b, string(key))
			b = append(b, ':')
			b = appendJSONValue(b, x)
		})
		return append(b, '}')
	case fastjson.TypeArray:
		a, _ := v.Array()
		b = append(b, '[')
		for i, x := range a {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONValue(b, x)
		}
		return append(b, ']')
	case fastjson.TypeString:
		return appendJSONString(b, string(v.GetStringBytes()))
	}
	return v.MarshalTo(b) // numbers as written, true, false, null
}
