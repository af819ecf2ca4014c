package trace

import (
	"fmt"
	"hash/maphash"
	"math"
	"unicode/utf8"
)

// Limits bound what a reader accepts, so that a hostile file ends in an error
// that names the limit rather than in an out-of-memory kill.
type Limits struct {
	MaxChunkBytes   int64 // largest single chunk
	MaxRequests     int64 // most requests in a file
	MaxGroupingRows int64 // most rows held in memory to group a non-contiguous flat file
	// MaxEventBytes is the largest event payload; the readers do not look at
	// events: replay enforces it (replay.Options.MaxEventBytes).
	MaxEventBytes int64
	// MaxIDBytes is the longest request_id; 0 means DefaultLimits'. An id
	// is a name: a longer one is refused before it is kept anywhere.
	MaxIDBytes int64
	// MaxExtraColumns is the most extra columns (keys or columns outside
	// the schema) a trace may have; 0 means DefaultLimits'. Every request
	// carries a value for each, so that reading costs requests × columns.
	MaxExtraColumns int64
}

// DefaultLimits are the limits readers use unless told otherwise.
var DefaultLimits = Limits{
	MaxChunkBytes:   256 << 20,
	MaxRequests:     50_000_000,
	MaxGroupingRows: 20_000_000,
	MaxEventBytes:   16 << 20,
	MaxIDBytes:      4 << 10,
	MaxExtraColumns: 1024,
}

// maxExtraColumns is l.MaxExtraColumns, or the default when unset.
func (l Limits) maxExtraColumns() int64 {
	if l.MaxExtraColumns > 0 {
		return l.MaxExtraColumns
	}
	return DefaultLimits.MaxExtraColumns
}

// CheckExtraColumns refuses a trace with more than limits allow of extra
// columns (n, the next one named column), with an error naming the limit
// that wraps ErrLimit. pos places it (a JSONL line).
func CheckExtraColumns(file string, limits Limits, n int, column string, pos Error) error {
	if max := limits.maxExtraColumns(); int64(n) > max {
		e := pos
		e.File, e.Column = file, column
		e.Msg = fmt.Sprintf("more than %d extra columns (keys or columns outside the trace schema; limit --max-extra-columns)", max)
		e.Err = ErrLimit
		return &e
	}
	return nil
}

// maxIDBytes is l.MaxIDBytes, or the default when unset.
func (l Limits) maxIDBytes() int64 {
	if l.MaxIDBytes > 0 {
		return l.MaxIDBytes
	}
	return DefaultLimits.MaxIDBytes
}

// CheckIDLength refuses a request_id longer than limits allow, before a
// reader keeps it (the flat layout's grouping holds every id). The error
// names the limit and wraps ErrLimit.
func CheckIDLength(file string, limits Limits, id string, pos Error) error {
	if n := limits.maxIDBytes(); int64(len(id)) > n {
		e := pos
		e.File, e.RequestID, e.Column = file, id, ColRequestID
		e.Msg = fmt.Sprintf("request_id of %d bytes, more than %d (limit --max-id-bytes)", len(id), n)
		e.Err = ErrLimit
		return &e
	}
	return nil
}

// idSet is a set of request ids kept as 128-bit keyed hashes with a
// position each: its memory is a few dozen bytes an id, however long the
// ids (a file whose ids decompress to gigabytes would otherwise be held
// whole). The seeds are random, so no input can be made to collide; two
// distinct ids collide with a probability of about n²/2¹²⁹.
type idSet struct {
	seeds [2]maphash.Seed
	m     map[idKey]int64
}

type idKey struct{ a, b uint64 }

func newIDSet() *idSet {
	return &idSet{seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}, m: make(map[idKey]int64)}
}

func (s *idSet) key(id string) idKey {
	return idKey{maphash.String(s.seeds[0], id), maphash.String(s.seeds[1], id)}
}

// Checker validates requests as a reader produces them: the per-request rules
// of the schema and request_id uniqueness across the file. Every reader runs
// its requests through one.
type Checker struct {
	File   string
	Limits Limits
	seen   *idSet // request_id -> row or line where first seen
	n      int64
	// The earliest and latest time of the requests checked (t0_ns, chunk
	// t_ns, end_ns), once any: see Check.
	minNs, maxNs int64
	spanned      bool
}

// NewChecker returns a Checker for the file named file.
func NewChecker(file string, limits Limits) *Checker {
	return &Checker{File: file, Limits: limits, seen: newIDSet()}
}

// Check validates r, found at pos (a row, or a line for JSONL: see Error).
// It returns nil or a *Error.
func (c *Checker) Check(r *Request, pos Error) error {
	fail := func(column, format string, args ...any) *Error {
		e := pos
		e.File = c.File
		if e.RequestID == "" {
			e.RequestID = r.RequestID
		}
		e.Column = column
		e.Msg = fmt.Sprintf(format, args...)
		return &e
	}
	if r.RequestID == "" {
		return fail("request_id", "empty request_id: want a non-empty, unique id")
	}
	if err := CheckIDLength(c.File, c.Limits, r.RequestID, pos); err != nil {
		return err
	}
	// A utf8 column holding other bytes would print as U+FFFD, making two
	// ids look alike (and JSONL cannot hold it at all).
	if !utf8.ValidString(r.RequestID) {
		return fail("request_id", "request_id %s is not valid UTF-8: want utf8 text", QuoteID(r.RequestID))
	}
	if r.Error != nil && !utf8.ValidString(*r.Error) {
		return fail("error", "error %s is not valid UTF-8: want utf8 text", QuoteID(*r.Error))
	}
	key := c.seen.key(r.RequestID)
	if first, dup := c.seen.m[key]; dup {
		return fail("request_id", "duplicate request_id (first seen at %s %d): want unique ids", posUnit(pos), first)
	}
	c.n++
	if c.Limits.MaxRequests > 0 && c.n > c.Limits.MaxRequests {
		e := fail("", "more than %d requests (limit --max-requests)", c.Limits.MaxRequests)
		e.Err = ErrLimit
		return e
	}
	c.seen.m[key] = posValue(pos)
	prev := r.T0Ns
	for i, ch := range r.Chunks {
		if ch.TNs < r.T0Ns {
			return fail("chunks", "chunk %d: t_ns %d is before t0_ns %d: want chunk times at or after t0_ns", i, ch.TNs, r.T0Ns)
		}
		if ch.TNs < prev {
			return fail("chunks", "chunk %d: t_ns %d goes back from %d: want non-decreasing chunk times", i, ch.TNs, prev)
		}
		if c.Limits.MaxChunkBytes > 0 && int64(len(ch.Data)) > c.Limits.MaxChunkBytes {
			e := fail("chunks", "chunk %d holds %d bytes, more than %d (limit --max-chunk-bytes)", i, len(ch.Data), c.Limits.MaxChunkBytes)
			e.Err = ErrLimit
			return e
		}
		prev = ch.TNs
	}
	if r.EndNs != nil && *r.EndNs < prev {
		return fail("end_ns", "end_ns %d is before t0_ns or the last chunk (%d): want end_ns at or after both", *r.EndNs, prev)
	}
	if r.EndNs != nil {
		prev = *r.EndNs
	}
	// Every command subtracts times of a trace from one another: two that
	// lie more than 2^63-1 ns apart would overflow (inspect's time span
	// came out as -0.000 s, the stable window as 18446744073 s).
	lo, hi := r.T0Ns, prev
	if c.spanned {
		lo, hi = min(lo, c.minNs), max(hi, c.maxNs)
	}
	if uint64(hi)-uint64(lo) > math.MaxInt64 {
		return fail("t0_ns", "the times of the trace span from %d to %d ns, more than 2^63-1 ns (292 years): want the times of one trace on one clock", lo, hi)
	}
	c.minNs, c.maxNs, c.spanned = lo, hi, true
	if err := CheckTimePoints(r.TimePointsS); err != nil {
		return fail("time_points_s", "%v", err)
	}
	if r.InputTokens != nil && *r.InputTokens < 0 {
		return fail("input_tokens", "negative count %d", *r.InputTokens)
	}
	if r.OutputTokens != nil && *r.OutputTokens < 0 {
		return fail("output_tokens", "negative count %d", *r.OutputTokens)
	}
	return nil
}

// CheckTimePoints is the rule for a request's time_points_s, the one every
// reader and importer applies: finite numbers of seconds that never go back
// (they are read from a monotonic clock; a point going back would make a
// negative TTFT, E2EL or ITL).
func CheckTimePoints(tp []float64) error {
	// One test a point: t-t is 0 for a finite t (NaN for NaN and the
	// infinities), and every comparison with NaN is false.
	prev := math.Inf(-1)
	for _, t := range tp {
		if !(t-t == 0 && t >= prev) {
			return timePointsError(tp)
		}
		prev = t
	}
	return nil
}

// timePointsError says what is wrong with the first bad point of tp: the
// rule point by point (nil when every point is good).
func timePointsError(tp []float64) error {
	for i, t := range tp {
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return fmt.Errorf("time point %d is %v: want a finite number of seconds", i, t)
		}
		if i > 0 && t < tp[i-1] {
			return fmt.Errorf("time point %d (%v s) goes back from %v s: want non-decreasing time points (a monotonic clock)", i, t, tp[i-1])
		}
	}
	return nil
}

func posUnit(e Error) string {
	if e.Line > 0 {
		return "line"
	}
	return "row"
}

func posValue(e Error) int64 {
	if e.Line > 0 {
		return int64(e.Line)
	}
	return e.Row
}
