package trace

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
)

// FlatRow is one row of the flat layout: one chunk of one request, with the
// request-level columns repeated.
type FlatRow struct {
	// Req holds the request-level columns; its Chunks field is ignored.
	Req Request
	// ChunkNull is true for the one row of a request with no chunk
	// (t_ns and data both null).
	ChunkNull bool
	Chunk     Chunk
	RowGroup  int   // 0-based row group or record batch
	Row       int64 // 0-based row in the file
	// SameAsPrevious is set by a reader that knows the row's request_id
	// and request-level columns to be the previous row's (Parquet, by
	// their dictionary indexes): they are not compared again.
	SameAsPrevious bool
	// sameAsFirst: a row read back from the spill whose request-level
	// columns were its request's first row's (they were not written).
	sameAsFirst bool
}

// FlatRows yields the rows of a flat file in file order. Next is handed the
// same FlatRow every time and sets all of it. The grouper keeps the slices
// and pointers of the first row of each request and the chunk of every row:
// Next must not reuse those (it may reuse the others of a row whose
// request_id is the previous row's).
type FlatRows interface {
	Next(*FlatRow) bool
	Err() error
}

// Contiguity finds out, from a file's request_id column alone, whether each
// request's rows are contiguous. Feed it every row's id in file order. It
// keeps the current id and a hash of each id before it (see idSet), not
// the ids.
type Contiguity struct {
	closed *idSet
	cur    string
	any    bool
	broken bool
}

// Add records the next row's request_id. id may be reused by the caller
// after the call.
func (c *Contiguity) Add(id string) {
	if c.broken {
		return
	}
	if c.closed == nil {
		c.closed = newIDSet()
	}
	if c.any && id == c.cur {
		return
	}
	if _, seen := c.closed.m[c.closed.key(id)]; seen {
		c.broken = true
		c.closed = nil
		return
	}
	if c.any {
		c.closed.m[c.closed.key(c.cur)] = 0
	}
	c.cur, c.any = strings.Clone(id), true
}

// Contiguous reports whether every request's rows were contiguous.
func (c *Contiguity) Contiguous() bool { return !c.broken }

// errNotContiguous stops the pass of Contiguous.
var errNotContiguous = errors.New("not contiguous")

// Contiguous reads a flat file's request_id column (p.IDs) and reports
// whether each request's rows are contiguous, stopping at the first row
// that shows they are not.
func Contiguous(p FlatPasses) (bool, error) {
	var c Contiguity
	err := p.IDs(func(id string) error {
		c.Add(id)
		if !c.Contiguous() {
			return errNotContiguous
		}
		return nil
	})
	if err == errNotContiguous {
		return false, nil
	}
	return err == nil, err
}

// NewFlatReader groups flat rows into requests. When contiguous is true it
// streams, holding one request at a time; otherwise it groups every row in
// memory first (bounded by limits.MaxGroupingRows), keeping the order in which
// requests first appear, and marks info.Regrouped.
func NewFlatReader(rows FlatRows, info Info, limits Limits, closer func() error) Reader {
	if limits == (Limits{}) {
		limits = DefaultLimits
	}
	info.Layout = Flat
	fr := &flatReader{rows: rows, info: info, limits: limits, closer: closer,
		check: NewChecker(info.Path, limits), contiguous: true}
	return fr
}

// FlatPasses reads a flat file whose requests' rows are not contiguous, a
// pass at a time: IDs hands add every row's request_id in file order (the
// format reads that column alone; add may keep id only by copying it), and
// Rows starts a pass over every row (the grouper makes one). Unlike
// other FlatRows, those of Rows may hand out a row's chunk bytes
// (Chunk.Data) valid until the next row: the grouper copies those it keeps.
type FlatPasses interface {
	IDs(add func(id string) error) error
	Rows() (FlatRows, error)
}

// NewGroupingFlatReader is NewFlatReader for a file whose requests' rows are
// not contiguous. It does not hold the file: a first pass counts each
// request's rows (from request_id alone); then a pass over the rows takes
// in the requests in the order in which they first appear, and hands each
// out as soon as its last row and every request before it are in. A file
// whose rows are in time order (a capture's, many requests in flight at
// once) is read in that one pass, holding about the requests in flight.
// Rows of other orders (shuffled, say) would have the pass hold most of
// the file: it stops taking in requests once those it holds will have
// about groupingWindowBytes of rows (at most limits.MaxGroupingRows), and
// sets the rows of the others aside in a temporary file (flatSpill), in
// windows of the same size, read back one after the other once the pass is
// over. The requests come out in the order in which they first appear, as
// a sorted file's do. It marks info.Regrouped.
func NewGroupingFlatReader(p FlatPasses, info Info, limits Limits, closer func() error) Reader {
	r := NewFlatReader(nil, info, limits, closer).(*flatReader)
	r.contiguous = false
	r.passes = p
	r.info.Regrouped = true
	r.info.Notes = append(r.info.Notes, "the rows of some requests were not contiguous: grouped as they came in (a request is handed out once its last row is read)")
	return r
}

// groupingWindowBytes is about how much the requests a window holds may
// come to (the collector lets the heap grow to about twice that);
// firstWindowRows stands for it until the size of a row is known.
const (
	groupingWindowBytes = 48 << 20
	firstWindowRows     = 256 << 10
	groupedRowOverhead  = 48 // a Chunk and its allocation, beside its bytes
)

type flatReader struct {
	rows       FlatRows
	info       Info
	limits     Limits
	closer     func() error
	check      *Checker
	contiguous bool

	// streaming state
	pendingReq *groupedRequest
	// grouping state (NewGroupingFlatReader)
	passes  FlatPasses
	counted bool
	ids     map[string]int // request index, in order of first appearance
	keys    []string       // ids by index
	counts  []int64        // rows of each request
	// The pass under way (src not nil) holds the requests from base to
	// admitEnd-1 not handed out yet, pending[i] request base+i; emitNext
	// is the next to hand out. held is the rows those will come to.
	src       FlatRows
	passStart int // the first request the pass took in
	base      int
	pending   []*groupedRequest
	emitNext  int
	admitEnd  int
	closed    bool // the pass takes in no more requests
	held      int64
	keptRows  int64 // over all passes, for the size of a row
	keptBytes int64

	// Rows of requests past the first pass's window are set aside in
	// spill, window by window (bucket k: window k+1), and read back a
	// window a pass. spillFrom is the first request set aside, assigned
	// the requests given a window so far, bucketOf their windows (from
	// spillFrom), bucketRows the rows of the last window's; read is how
	// many windows were read back. admitAll: a pass over a window takes
	// in every request it holds.
	spill      *flatSpill
	spillFrom  int
	assigned   int
	bucketOf   []int32
	bucketRows int64
	read       int
	admitAll   bool
	rowsRead   bool // the pass over the rows was started

	// row is filled by rows.Next; what a request keeps of it is copied out.
	row        FlatRow
	lastChunks int // chunks of the request read last
	// spareChunks, when streaming, is the chunk list of the request handed
	// out by the Scan before this one, no longer valid: the next request
	// started reuses it.
	spareChunks []Chunk

	cur *Request
	err error
}

type groupedRequest struct {
	req      Request
	first    FlatRow // the row that set the request-level columns
	nullRows int
	rows     int64  // rows read
	arena    []byte // holds the chunk bytes kept (NewGroupingFlatReader)
}

// keep copies a row's chunk bytes into g's arena, blocks of growing size:
// a request's chunks are a few allocations, not one a row, and hold no
// part of what the reader decoded them from.
func (g *groupedRequest) keep(b []byte) []byte {
	if b == nil {
		return nil
	}
	if len(b) == 0 {
		return []byte{}
	}
	if cap(g.arena)-len(g.arena) < len(b) {
		g.arena = make([]byte, 0, max(len(b), min(2*cap(g.arena), 64<<10), 1<<10))
	}
	start := len(g.arena)
	g.arena = append(g.arena, b...)
	return g.arena[start:len(g.arena):len(g.arena)]
}

func (fr *flatReader) Info() Info        { return fr.info }
func (fr *flatReader) Request() *Request { return fr.cur }
func (fr *flatReader) Err() error        { return fr.err }
func (fr *flatReader) Close() error {
	err := fr.spill.close()
	if fr.closer != nil {
		if cerr := fr.closer(); cerr != nil {
			return cerr
		}
	}
	return err
}

func (fr *flatReader) Scan() bool {
	if fr.err != nil {
		return false
	}
	var g *groupedRequest
	if fr.contiguous {
		g = fr.scanContiguous()
	} else {
		g = fr.scanGrouped()
	}
	if g == nil {
		return false
	}
	if err := fr.finish(g); err != nil {
		fr.err = err
		return false
	}
	fr.cur = &g.req
	return true
}

func (fr *flatReader) scanContiguous() *groupedRequest {
	if fr.cur != nil && fr.cur.Chunks != nil {
		fr.spareChunks, fr.cur = fr.cur.Chunks[:0], nil
	}
	var g *groupedRequest
	if fr.pendingReq != nil {
		g, fr.pendingReq = fr.pendingReq, nil
	}
	row := &fr.row
	for {
		if !fr.rows.Next(row) {
			if err := fr.rows.Err(); err != nil {
				fr.err = err
				return nil
			}
			return g
		}
		if g == nil {
			g = &groupedRequest{}
			if fr.err = fr.start(g, row); fr.err != nil {
				return nil
			}
			continue
		}
		if !row.SameAsPrevious && row.Req.RequestID != g.req.RequestID {
			fr.pendingReq = &groupedRequest{}
			if fr.err = fr.start(fr.pendingReq, row); fr.err != nil {
				return nil
			}
			return g
		}
		if fr.err = fr.add(g, row, row.SameAsPrevious); fr.err != nil {
			return nil
		}
	}
}

func (fr *flatReader) scanGrouped() *groupedRequest {
	if !fr.counted {
		fr.counted = true
		if fr.err = fr.countRows(); fr.err != nil {
			return nil
		}
	}
	row := &fr.row
	for {
		if fr.emitNext < fr.admitEnd {
			if g := fr.pending[fr.emitNext-fr.base]; g.rows == fr.counts[fr.emitNext] {
				fr.pending[fr.emitNext-fr.base] = nil
				fr.held -= g.rows
				fr.emitNext++
				if done := fr.emitNext - fr.base; done >= 1024 && 2*done >= len(fr.pending) {
					fr.pending = append(fr.pending[:0], fr.pending[done:]...)
					fr.base = fr.emitNext
				}
				return g
			}
		}
		if fr.src == nil {
			if fr.admitEnd >= len(fr.counts) {
				fr.pending = nil
				if fr.err = fr.spill.close(); fr.err != nil {
					fr.err = spillError(fr.info.Path, fr.err)
				}
				return nil
			}
			if fr.spill != nil {
				if fr.err = fr.nextWindow(); fr.err != nil {
					return nil
				}
			} else if fr.rowsRead {
				fr.err = fr.missingRequest()
				return nil
			} else if fr.src, fr.err = fr.passes.Rows(); fr.err != nil {
				return nil
			}
			fr.rowsRead = true
			fr.passStart, fr.base, fr.closed, fr.pending = fr.admitEnd, fr.admitEnd, false, fr.pending[:0]
		}
		if !fr.src.Next(row) {
			if fr.err = fr.src.Err(); fr.err != nil {
				if _, fromSpill := fr.src.(*spillRows); fromSpill {
					fr.err = spillError(fr.info.Path, fr.err)
				}
				return nil
			}
			if fr.emitNext < fr.admitEnd { // all are in: the file changed?
				idx := fr.emitNext
				g := fr.pending[idx-fr.base]
				fr.err = FileError(fr.info.Path, nil, "request %s: a pass over the rows found %d of the %d rows the pass over request_id counted: the file changed while it was read?", QuoteID(g.req.RequestID), g.rows, fr.counts[idx])
				return nil
			}
			fr.src = nil
			continue
		}
		if fr.err = fr.take(row); fr.err != nil {
			return nil
		}
	}
}

// take keeps row if its request is held, or takes its request in.
func (fr *flatReader) take(row *FlatRow) error {
	idx, ok := fr.ids[row.Req.RequestID]
	switch {
	case !ok:
		return fr.rowErr(row, "request_id", "not in the pass that counted the rows: the file changed while it was read?")
	case idx < fr.passStart: // handed out by a pass before
		return nil
	case idx < fr.admitEnd:
		var g *groupedRequest
		if idx >= fr.base {
			g = fr.pending[idx-fr.base]
		}
		if g == nil || g.rows >= fr.counts[idx] {
			return fr.rowErr(row, "request_id", "more rows than the pass over request_id counted (%d): the file changed while it was read?", fr.counts[idx])
		}
		row.Chunk.Data = g.keep(row.Chunk.Data)
		fr.kept(g, row)
		// The previous row may be another request's first: compare, unless
		// the spill found the columns its request's first row's.
		return fr.add(g, row, row.sameAsFirst)
	case fr.closed:
		return fr.setAside(idx, row)
	case idx > fr.admitEnd:
		return fr.rowErr(row, "request_id", "first seen after request %d, not before as the pass over request_id found: the file changed while it was read?", idx)
	}
	// The first row of the next request: take it in while what is held
	// stays within the window (and always into an empty one).
	n := fr.counts[idx]
	if err := fr.withinLimit(idx, row); err != nil {
		return err
	}
	if !fr.admitAll && fr.held > 0 && fr.held+n > fr.windowRows() {
		fr.closed = true
		return fr.setAside(idx, row)
	}
	g := &groupedRequest{}
	row.Chunk.Data = g.keep(row.Chunk.Data)
	if err := fr.start(g, row); err != nil {
		return err
	}
	fr.kept(g, row)
	// The request keeps its first row's request-level columns: a part of
	// what the window holds, spread over the rows kept.
	fr.keptBytes += requestColumnBytes(&row.Req)
	fr.pending = append(fr.pending, g)
	fr.admitEnd++
	fr.held += n
	return nil
}

// withinLimit refuses request idx, whose first row is row, when it has
// more rows than --max-grouping-rows: it is held whole at least once.
func (fr *flatReader) withinLimit(idx int, row *FlatRow) error {
	n := fr.counts[idx]
	if lim := fr.limits.MaxGroupingRows; lim > 0 && n > lim {
		e := FileError(fr.info.Path, nil,
			"request %s has %d rows, and a flat file whose requests are not contiguous is grouped a request at least at a time: more than %d rows (limit --max-grouping-rows) in memory; sort the file by request_id, or raise the limit", QuoteID(row.Req.RequestID), n, lim)
		e.RequestID, e.Err = row.Req.RequestID, ErrLimit
		return e
	}
	return nil
}

// setAside spills a row of request idx, past the first pass's window, into
// its request's window; the request's first row gives it one (the window
// after the last one given, when that one is full).
func (fr *flatReader) setAside(idx int, row *FlatRow) error {
	if fr.spill == nil {
		sp, err := newFlatSpill(idx)
		if err != nil {
			return spillError(fr.info.Path, err)
		}
		fr.spill, fr.spillFrom, fr.assigned = sp, idx, idx
	}
	if idx >= fr.assigned {
		if idx > fr.assigned {
			return fr.rowErr(row, "request_id", "first seen after request %d, not before as the pass over request_id found: the file changed while it was read?", idx)
		}
		if err := fr.withinLimit(idx, row); err != nil {
			return err
		}
		bucket := int32(0)
		if k := len(fr.bucketOf); k > 0 {
			bucket = fr.bucketOf[k-1]
			if n := fr.counts[idx]; fr.bucketRows > 0 && fr.bucketRows+n > fr.windowRows() {
				bucket++
				fr.bucketRows = 0
			}
		}
		fr.bucketRows += fr.counts[idx]
		fr.bucketOf = append(fr.bucketOf, bucket)
		fr.assigned++
	}
	if err := fr.spill.add(int(fr.bucketOf[idx-fr.spillFrom]), idx, row); err != nil {
		return spillError(fr.info.Path, err)
	}
	return nil
}

// missingRequest is the error of a request the pass over request_id counted
// and no row read brought in.
func (fr *flatReader) missingRequest() error {
	return FileError(fr.info.Path, nil, "request %s: not in the rows read, though the pass over request_id counted %d: the file changed while it was read?", QuoteID(fr.keys[fr.admitEnd]), fr.counts[fr.admitEnd])
}

// nextWindow starts the pass over the next window set aside.
func (fr *flatReader) nextWindow() error {
	if fr.read == 0 {
		if err := fr.spill.finish(); err != nil {
			return spillError(fr.info.Path, err)
		}
	}
	if fr.read >= len(fr.spill.buckets) {
		return fr.missingRequest()
	}
	fr.src = fr.spill.rows(fr.read, fr.keys)
	fr.read++
	fr.admitAll = true
	return nil
}

func (fr *flatReader) kept(g *groupedRequest, row *FlatRow) {
	g.rows++
	fr.keptRows++
	fr.keptBytes += int64(groupedRowOverhead + len(row.Chunk.Data))
}

// requestColumnBytes is about what a request's request-level columns
// hold beside the Request itself.
func requestColumnBytes(q *Request) int64 {
	n := int64(8 * len(q.TimePointsS))
	if q.Error != nil {
		n += int64(len(*q.Error))
	}
	for _, v := range q.Extra {
		n += int64(len(v.Str) + len(v.Bytes))
	}
	return n
}

// countRows is the first pass: each request's index, in order of first
// appearance, and its rows.
func (fr *flatReader) countRows() error {
	fr.ids = map[string]int{}
	last, lastIdx := "", -1
	row := int64(-1)
	return fr.passes.IDs(func(id string) error {
		row++
		if lastIdx >= 0 && id == last {
			fr.counts[lastIdx]++
			return nil
		}
		idx, ok := fr.ids[id]
		if !ok {
			if err := CheckIDLength(fr.info.Path, fr.limits, id, Error{RowGroup: -1, Row: row}); err != nil {
				return err
			}
			if fr.limits.MaxRequests > 0 && int64(len(fr.counts)) >= fr.limits.MaxRequests {
				e := FileError(fr.info.Path, nil, "more than %d requests (limit --max-requests)", fr.limits.MaxRequests)
				e.Err = ErrLimit
				return e
			}
			idx = len(fr.counts)
			id = strings.Clone(id)
			fr.ids[id] = idx
			fr.keys = append(fr.keys, id)
			fr.counts = append(fr.counts, 0)
		}
		fr.counts[idx]++
		last, lastIdx = fr.keys[idx], idx // id is the reader's until the next row
		return nil
	})
}

// windowRows is how many rows the next window may hold: about
// groupingWindowBytes at the size of the rows kept so far.
func (fr *flatReader) windowRows() int64 {
	n := int64(firstWindowRows)
	if fr.keptRows > 0 && fr.keptBytes > 0 {
		n = max(1, int64(groupingWindowBytes)*fr.keptRows/fr.keptBytes)
	}
	if fr.limits.MaxGroupingRows > 0 {
		n = min(n, fr.limits.MaxGroupingRows)
	}
	return n
}

func (fr *flatReader) rowErr(row *FlatRow, column, format string, args ...any) error {
	e := RowError(fr.info.Path, row.RowGroup, row.Row, column, format, args...)
	e.RequestID = row.Req.RequestID
	return e
}

func (fr *flatReader) start(g *groupedRequest, row *FlatRow) error {
	if row.Req.RequestID == "" {
		return fr.rowErr(row, "request_id", "null or empty request_id: want a non-empty id on every row")
	}
	if err := CheckIDLength(fr.info.Path, fr.limits, row.Req.RequestID, Error{RowGroup: row.RowGroup, Row: row.Row}); err != nil {
		return err
	}
	g.first = *row
	g.req = row.Req
	g.req.Chunks = nil
	return fr.add(g, row, true)
}

// add adds a row to its request, checking its request-level columns
// against the request's first row unless known equal.
func (fr *flatReader) add(g *groupedRequest, row *FlatRow, knownEqual bool) error {
	if !knownEqual {
		if col, ok := sameRequestColumns(&g.first.Req, &row.Req); !ok {
			if i, isExtra := extraIndex(col); isExtra && i < len(fr.info.Extra) {
				col = fr.info.Extra[i].Name
			}
			return fr.rowErr(row, col, "differs from the request's first row (row %d): want request-level columns constant within a request", g.first.Row)
		}
	}
	if row.ChunkNull {
		g.nullRows++
	} else {
		switch {
		case g.req.Chunks != nil:
		case fr.spareChunks != nil:
			g.req.Chunks, fr.spareChunks = fr.spareChunks, nil
		default:
			// Requests of a trace tend to be alike: sizing for the last
			// one saves most of the copies of growing from a few.
			g.req.Chunks = make([]Chunk, 0, max(8, fr.lastChunks))
		}
		g.req.Chunks = append(g.req.Chunks, row.Chunk)
	}
	if g.nullRows > 0 && (g.nullRows > 1 || len(g.req.Chunks) > 0) {
		return fr.rowErr(row, "t_ns", "a row without a chunk (null t_ns and data) must be the request's only row")
	}
	return nil
}

func (fr *flatReader) finish(g *groupedRequest) error {
	fr.lastChunks = len(g.req.Chunks)
	pos := Error{RowGroup: g.first.RowGroup, Row: g.first.Row}
	return fr.check.Check(&g.req, pos)
}

// sameRequestColumns compares the request-level columns of two rows of one
// request and names the first that differs.
func sameRequestColumns(a, b *Request) (string, bool) {
	switch {
	case a.T0Ns != b.T0Ns:
		return "t0_ns", false
	case !eqPtr(a.EndNs, b.EndNs):
		return "end_ns", false
	case !eqPtr(a.HTTPStatus, b.HTTPStatus):
		return "http_status", false
	case !eqPtr(a.Error, b.Error):
		return "error", false
	case !eqPtr(a.InputTokens, b.InputTokens):
		return "input_tokens", false
	case !eqPtr(a.OutputTokens, b.OutputTokens):
		return "output_tokens", false
	case !SameFloatBits(a.TimePointsS, b.TimePointsS):
		return "time_points_s", false
	}
	for i := range a.Extra {
		if i >= len(b.Extra) || !eqValue(a.Extra[i], b.Extra[i]) {
			return fmt.Sprintf("extra#%d", i), false
		}
	}
	return "", true
}

func eqPtr[T comparable](a, b *T) bool {
	if a == b { // the reader shares the first row's values
		return true
	}
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// SameFloatBits reports whether two lists are both nil or hold the same
// float64 bits (so NaN equals itself and -0 differs from 0).
func SameFloatBits(a, b []float64) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

func eqValue(a, b Value) bool {
	return a.Null == b.Null && a.Str == b.Str && bytes.Equal(a.Bytes, b.Bytes) &&
		a.Int == b.Int && math.Float64bits(a.Float) == math.Float64bits(b.Float) && a.Bool == b.Bool
}

// FlattenRequest turns one request into its flat rows (one a chunk, or one
// row with ChunkNull for a request without chunks). Writers of the flat layout
// use it so that both formats flatten alike.
func FlattenRequest(r *Request, emit func(row *FlatRow) error) error {
	row := FlatRow{Req: *r}
	row.Req.Chunks = nil
	if len(r.Chunks) == 0 {
		row.ChunkNull = true
		return emit(&row)
	}
	for _, c := range r.Chunks {
		row.ChunkNull = false
		row.Chunk = c
		if err := emit(&row); err != nil {
			return err
		}
	}
	return nil
}

func extraIndex(col string) (int, bool) {
	var i int
	if _, err := fmt.Sscanf(col, "extra#%d", &i); err != nil {
		return 0, false
	}
	return i, true
}
