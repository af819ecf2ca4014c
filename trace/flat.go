package trace

import (
	"bytes"
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

// NewGroupingFlatReader is NewFlatReader for rows known not to be contiguous.
func NewGroupingFlatReader(rows FlatRows, info Info, limits Limits, closer func() error) Reader {
	r := NewFlatReader(rows, info, limits, closer).(*flatReader)
	r.contiguous = false
	r.info.Regrouped = true
	r.info.Notes = append(r.info.Notes, "the rows of some requests were not contiguous: grouped in memory")
	return r
}

type flatReader struct {
	rows       FlatRows
	info       Info
	limits     Limits
	closer     func() error
	check      *Checker
	contiguous bool

	// streaming state
	pendingReq *groupedRequest
	// grouping state
	grouped []*groupedRequest
	next    int
	loaded  bool

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
}

func (fr *flatReader) Info() Info        { return fr.info }
func (fr *flatReader) Request() *Request { return fr.cur }
func (fr *flatReader) Err() error        { return fr.err }
func (fr *flatReader) Close() error {
	if fr.closer != nil {
		return fr.closer()
	}
	return nil
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
	if !fr.loaded {
		fr.loaded = true
		index := map[string]*groupedRequest{}
		var n int64
		row := &fr.row
		for {
			if !fr.rows.Next(row) {
				if err := fr.rows.Err(); err != nil {
					fr.err = err
					return nil
				}
				break
			}
			n++
			if fr.limits.MaxGroupingRows > 0 && n > fr.limits.MaxGroupingRows {
				e := RowError(fr.info.Path, row.RowGroup, row.Row, "",
					"a flat file whose requests are not contiguous is grouped in memory, and it has more than %d rows (limit --max-grouping-rows): sort it by request_id, or raise the limit", fr.limits.MaxGroupingRows)
				e.Err = ErrLimit
				fr.err = e
				return nil
			}
			if g, ok := index[row.Req.RequestID]; ok {
				// The previous row may be another request's first: compare.
				if fr.err = fr.add(g, row, false); fr.err != nil {
					return nil
				}
				continue
			}
			g := &groupedRequest{}
			if fr.err = fr.start(g, row); fr.err != nil {
				return nil
			}
			index[row.Req.RequestID] = g
			fr.grouped = append(fr.grouped, g)
		}
	}
	if fr.next >= len(fr.grouped) {
		fr.grouped = nil
		return nil
	}
	g := fr.grouped[fr.next]
	fr.grouped[fr.next] = nil
	fr.next++
	return g
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
