package trace

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// SchemaVersion is the trace schema version this package reads and writes.
const SchemaVersion = "1"

// Chunk is one read of a response body: the bytes it delivered and when.
type Chunk struct {
	TNs  int64  // arrival time on the clock of Request.T0Ns
	Data []byte // the bytes of that read, never nil for a read
}

// Request is one streamed request of a trace (one row of the nested layout).
//
// Nullable columns are pointers or nil slices: a nil Chunks or TimePointsS is a
// null list, a non-nil empty slice an empty one.
type Request struct {
	RequestID    string
	T0Ns         int64
	EndNs        *int64
	HTTPStatus   *int32
	Error        *string
	Chunks       []Chunk
	TimePointsS  []float64
	InputTokens  *int64
	OutputTokens *int64
	// Extra holds the values of the extra columns, aligned with Info.Extra.
	Extra []Value
}

// BodyBytes is the number of body bytes the request's chunks hold.
func (r *Request) BodyBytes() int64 {
	var n int64
	for _, c := range r.Chunks {
		n += int64(len(c.Data))
	}
	return n
}

// Failed reports whether the request failed on the client side or got a
// status other than 200.
func (r *Request) Failed() bool {
	return r.Error != nil || r.HTTPStatus == nil || *r.HTTPStatus != 200
}

// TimePointsOnly reports whether the request holds what a client recorded
// (its time points) instead of the bytes it read: a trace imported from
// another tool's records. Its events are the time points themselves.
func (r *Request) TimePointsOnly() bool {
	return r.Chunks == nil && r.TimePointsS != nil
}

// Layout is how requests are laid out in a file.
type Layout string

const (
	// Nested is one row a request, chunks as a list column.
	Nested Layout = "nested"
	// Flat is one row a chunk, request-level columns repeated.
	Flat Layout = "flat"
)

// ExtraKind is the type of an extra (unknown) column that travels through
// conversions unchanged.
type ExtraKind uint8

const (
	ExtraString  ExtraKind = iota + 1 // utf8
	ExtraInt64                        // int64
	ExtraFloat64                      // float64
	ExtraBool                         // bool
	ExtraBinary                       // binary
	ExtraJSON                         // utf8 holding JSON text (what JSONL extra keys become)
)

var extraKindNames = map[ExtraKind]string{
	ExtraString: "string", ExtraInt64: "int64", ExtraFloat64: "float64",
	ExtraBool: "bool", ExtraBinary: "binary", ExtraJSON: "json",
}

func (k ExtraKind) String() string {
	if s, ok := extraKindNames[k]; ok {
		return s
	}
	return "ExtraKind(" + strconv.Itoa(int(k)) + ")"
}

// ParseExtraKind is the inverse of ExtraKind.String.
func ParseExtraKind(s string) (ExtraKind, bool) {
	for k, name := range extraKindNames {
		if name == s {
			return k, true
		}
	}
	return 0, false
}

// ExtraColumn names an extra column and its type.
type ExtraColumn struct {
	Name string
	Kind ExtraKind
}

// Value is one cell of an extra column; the field used follows the column's
// kind (Str for string and json, Bytes for binary).
type Value struct {
	Null  bool
	Str   string
	Bytes []byte
	Int   int64
	Float float64
	Bool  bool
}

// MetaPrefix starts every run-level metadata key a trace carries.
const MetaPrefix = "sseaudit."

// Well-known metadata keys.
const (
	KeySchemaVersion  = "sseaudit.schema_version"
	KeyMaxConcurrency = "sseaudit.max_concurrency"
	KeyRequestRate    = "sseaudit.request_rate"
	KeySource         = "sseaudit.source"
	// KeyStartTimes is set, with the reason, when the requests' send times
	// are unknown (a trace imported from records that lack them: every
	// request starts at 0); its presence is what matters.
	KeyStartTimes = KeyRunPrefix + "start_times"
	// KeyExtraKindPrefix + column name records an extra column's ExtraKind
	// where the file format cannot say it (JSON text in a utf8 column).
	KeyExtraKindPrefix = "sseaudit.extra_kind."
	// KeyRunPrefix starts free-form run metadata.
	KeyRunPrefix = "sseaudit.run."
)

// RunKeys are the run's keys of schemas/trace-v1.md: what a run's metadata
// may say besides the free-form KeyRunPrefix keys. The others,
// KeySchemaVersion and KeyExtraKindPrefix, say how the file was written.
func RunKeys() []string {
	return []string{KeyMaxConcurrency, KeyRequestRate, KeySource}
}

// IsRunKey reports whether key is one of RunKeys or starts with
// KeyRunPrefix.
func IsRunKey(key string) bool {
	return strings.HasPrefix(key, KeyRunPrefix) || slices.Contains(RunKeys(), key)
}

// Meta is run-level key/value metadata, kept sorted by key.
type Meta []KV

// KV is one metadata entry.
type KV struct{ Key, Value string }

// Get returns the value of key.
func (m Meta) Get(key string) (string, bool) {
	i := sort.Search(len(m), func(i int) bool { return m[i].Key >= key })
	if i < len(m) && m[i].Key == key {
		return m[i].Value, true
	}
	return "", false
}

// Set adds or replaces key, keeping the order.
func (m *Meta) Set(key, value string) {
	s := *m
	i := sort.Search(len(s), func(i int) bool { return s[i].Key >= key })
	if i < len(s) && s[i].Key == key {
		s[i].Value = value
		return
	}
	s = append(s, KV{})
	copy(s[i+1:], s[i:])
	s[i] = KV{key, value}
	*m = s
}

// Delete removes key.
func (m *Meta) Delete(key string) {
	s := *m
	i := sort.Search(len(s), func(i int) bool { return s[i].Key >= key })
	if i < len(s) && s[i].Key == key {
		*m = append(s[:i], s[i+1:]...)
	}
}

// MetaFromMap builds Meta from format key/value pairs, keeping only the keys
// that start with MetaPrefix (format-internal keys such as ARROW:schema stay
// behind).
func MetaFromMap(kv map[string]string) Meta {
	var m Meta
	for k, v := range kv {
		if strings.HasPrefix(k, MetaPrefix) {
			m = append(m, KV{k, v})
		}
	}
	sort.Slice(m, func(i, j int) bool { return m[i].Key < m[j].Key })
	return m
}

// MaxConcurrency returns sseaudit.max_concurrency, if present.
func (m Meta) MaxConcurrency() (int, bool, error) {
	v, ok := m.Get(KeyMaxConcurrency)
	if !ok {
		return 0, false, nil
	}
	c, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || c < 1 {
		return 0, true, fmt.Errorf("metadata %s = %q: want a positive integer", KeyMaxConcurrency, v)
	}
	return c, true, nil
}

// Info describes an open trace file.
type Info struct {
	Path   string
	Format string // "parquet", "arrow", "arrows" or "jsonl"
	Layout Layout
	Meta   Meta
	Extra  []ExtraColumn
	// Regrouped is true when a flat file's rows of one request were not
	// contiguous and had to be regrouped (see NewGroupingFlatReader).
	Regrouped bool
	// Notes are remarks about the file worth showing in inspect.
	Notes []string
}

// Reader reads the requests of a trace one at a time, in file order.
//
//	for r.Scan() { req := r.Request(); ... }
//	if err := r.Err(); err != nil { ... }
//
// The *Request returned by Request is valid until the next call to Scan.
// Bad input ends the scan; Err then returns a *Error naming where.
type Reader interface {
	Scan() bool
	Request() *Request
	Err() error
	Info() Info
	Close() error
}

// MemoryReader is a Reader over requests already in memory: each request,
// and everything it points to, stays valid and unchanged after the next
// Scan for as long as the reader is referenced, so a consumer may keep it
// without copying it. Len is the number of requests.
type MemoryReader interface {
	Reader
	Len() int
	InMemory()
}

// WriteOptions are what a writer needs before its first request.
type WriteOptions struct {
	Meta   Meta
	Extra  []ExtraColumn
	Layout Layout // Nested unless Flat is asked for (Parquet and Arrow only)
	// RowGroupRequests bounds a Parquet row group or Arrow record batch, in
	// requests; 0 means the format's default.
	RowGroupRequests int
}

// RequestWriter writes requests to an io.Writer in one format. Close
// finishes the format (footer) but does not close the underlying writer.
type RequestWriter interface {
	Write(*Request) error
	Close() error
}

// Clone is a deep copy of r, for keeping a request past the next Scan: its
// chunks' bytes in one allocation, nil and empty slices kept apart.
func (r *Request) Clone() *Request {
	c := *r
	c.EndNs = clonePtr(r.EndNs)
	c.HTTPStatus = clonePtr(r.HTTPStatus)
	c.Error = clonePtr(r.Error)
	c.InputTokens = clonePtr(r.InputTokens)
	c.OutputTokens = clonePtr(r.OutputTokens)
	if r.Chunks != nil {
		data := make([]byte, 0, r.BodyBytes())
		c.Chunks = make([]Chunk, len(r.Chunks))
		for i, ch := range r.Chunks {
			start := len(data)
			data = append(data, ch.Data...)
			c.Chunks[i] = Chunk{TNs: ch.TNs, Data: data[start:len(data):len(data)]}
		}
	}
	if r.TimePointsS != nil {
		c.TimePointsS = append(make([]float64, 0, len(r.TimePointsS)), r.TimePointsS...)
	}
	if r.Extra != nil {
		c.Extra = make([]Value, len(r.Extra))
		for i, v := range r.Extra {
			if v.Bytes != nil {
				v.Bytes = append(make([]byte, 0, len(v.Bytes)), v.Bytes...)
			}
			c.Extra[i] = v
		}
	}
	return &c
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
