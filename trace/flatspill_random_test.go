package trace

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func randReq(rng *rand.Rand, id string) Request {
	i64 := func(v int64) *int64 { return &v }
	q := Request{RequestID: id, T0Ns: rng.Int64N(3) * 0}
	if rng.IntN(2) == 0 {
		q.EndNs = i64(1<<40 - rng.Int64N(3))
	}
	if rng.IntN(2) == 0 {
		s := int32(rng.IntN(3) + 199)
		q.HTTPStatus = &s
	}
	switch rng.IntN(3) {
	case 0:
		e := ""
		q.Error = &e
	case 1:
		e := string([]byte{0, byte(rng.IntN(3))})
		q.Error = &e
	}
	switch rng.IntN(3) {
	case 0:
		q.TimePointsS = []float64{}
	case 1:
		q.TimePointsS = []float64{math.Copysign(0, -1), 0.5, 1e300}
	}
	if rng.IntN(2) == 0 {
		q.InputTokens = i64(rng.Int64N(3))
	}
	q.Extra = []Value{{Null: rng.IntN(2) == 0}, {Str: string([]byte{byte(rng.IntN(3))})}, {}}
	switch rng.IntN(3) {
	case 0:
		q.Extra[2].Bytes = []byte{}
	case 1:
		q.Extra[2].Bytes = []byte{0, 1, byte(rng.IntN(256))}
	}
	q.Extra[2].Float = math.NaN()
	return q
}

// TestSpillRandom: the same requests, or the same error, whatever the
// window.
func TestSpillRandom(t *testing.T) {
	for seed := range uint64(5000) {
		rng := rand.New(rand.NewPCG(seed, 1))
		n := 1 + rng.IntN(12)
		var rows []FlatRow
		for i := range n {
			id := fmt.Sprint("r", i)
			q := randReq(rng, id)
			k := 1 + rng.IntN(4)
			for j := range k {
				row := FlatRow{Req: q, Chunk: Chunk{TNs: int64(j), Data: []byte{byte(j), 0xfe}}}
				if j == 1 && rng.IntN(2) == 0 {
					row.Chunk.Data = []byte{}
				}
				rows = append(rows, row)
			}
		}
		rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		// Chunk order within a request: by TNs as read.
		seen := map[string]int64{}
		for i := range rows {
			id := rows[i].Req.RequestID
			rows[i].Chunk.TNs = seen[id]
			seen[id]++
		}
		if seed%3 == 0 { // one row whose columns differ from its request's
			i := rng.IntN(len(rows))
			other := randReq(rng, rows[i].Req.RequestID)
			rows[i].Req = other
		}
		_, want, wantErr := groupRowsWithin(slices.Clone(rows), Limits{})
		for _, lim := range []int64{4, 5, 8, 13} {
			_, got, err := groupRowsWithin(slices.Clone(rows), Limits{MaxGroupingRows: lim})
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("seed %d limit %d: error %v, want %v", seed, lim, err, wantErr)
			}
			if wantErr != nil {
				continue
			}
			if len(got) != len(want) {
				t.Fatalf("seed %d limit %d: %d requests, want %d", seed, lim, len(got), len(want))
			}
			for i := range want {
				g, w := got[i], want[i]
				g.Extra, w.Extra = nil, nil
				if !sameRequest(&g, &w) || !sameExtraFloats(got[i].Extra, want[i].Extra) {
					t.Fatalf("seed %d limit %d: request %d\n got %+v\nwant %+v", seed, lim, i, got[i], want[i])
				}
			}
		}
	}
}

func sameExtraFloats(a, b []Value) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !eqValue(a[i], b[i]) || (a[i].Bytes == nil) != (b[i].Bytes == nil) {
			return false
		}
	}
	return true
}

// TestFlatSpillWrittenBlocksLetGo: a bucket whose rows were written keeps
// no buffer of their size: with rows of 100 KB (each written as it comes)
// and a window of one request, every bucket held on to a 100 KB+ buffer
// after writing it, so that the memory kept grew with the file (20 MB of
// empty buffers for 40 MB of rows here), never reaching the 8 MB of
// pending rows that would let them go.
func TestFlatSpillWrittenBlocksLetGo(t *testing.T) {
	const n = 200
	data := make([]byte, 100<<10)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	var rows []FlatRow
	for k := range 2 { // row k of every request, then row k+1
		for i := range n {
			rows = append(rows, FlatRow{Req: Request{RequestID: fmt.Sprint("r", i), T0Ns: 1},
				Chunk: Chunk{TNs: int64(k) + 1, Data: data}, Row: int64(len(rows))})
		}
	}
	var fr *flatReader
	var capacity int
	var size int64
	p := &endPasses{slicePasses: slicePasses{rows: rows}}
	p.atEnd = func() {
		if fr.spill == nil || capacity > 0 {
			return
		}
		for _, b := range fr.spill.buckets {
			capacity += cap(b.pending)
		}
		size = fr.spill.size
	}
	r := NewGroupingFlatReader(p, Info{Path: "f"}, Limits{MaxGroupingRows: 2}, nil)
	defer r.Close()
	fr = r.(*flatReader)
	scanCount(t, r, n)
	t.Logf("end of the pass: %d buckets, %d bytes of buffers held, %d bytes in the file", len(fr.spill.buckets), capacity, size)
	if capacity > spillPendingBytes {
		t.Errorf("%d bytes of buffers held by %d buckets after their rows were written (%d bytes in the file)", capacity, len(fr.spill.buckets), size)
	}
}

// peakRows tracks, after each row, what the requests the reader holds
// come to in request-level column bytes (their prompts).
type peakRows struct {
	sliceRows
	fr   **flatReader
	peak int
}

func (p *peakRows) Next(r *FlatRow) bool {
	if fr := *p.fr; fr != nil {
		n := 0
		for _, g := range fr.pending {
			if g != nil && len(g.req.Extra) > 0 {
				n += len(g.req.Extra[0].Str)
			}
		}
		p.peak = max(p.peak, n)
	}
	return p.sliceRows.Next(r)
}

type peakPasses struct {
	slicePasses
	rows *peakRows
}

func (p *peakPasses) Rows() (FlatRows, error) { return p.rows, nil }

// TestFlatWindowCountsRequestColumns: a window holds about
// groupingWindowBytes of requests; the request-level columns a held request
// keeps (a prompt, in the flat layout repeated on every row) are part of
// what it comes to. Requests of 2 rows with a 1 MB prompt and tiny chunks,
// every request in flight: the window counted the chunks alone, took in
// all 200 requests and held 200 MB of prompts at once (a real reader holds
// one copy a request).
func TestFlatWindowCountsRequestColumns(t *testing.T) {
	const n = 200
	prompt := strings.Repeat("p", 1<<20)
	var rows []FlatRow
	for k := range 2 {
		for i := range n {
			rows = append(rows, FlatRow{Req: Request{RequestID: fmt.Sprint("r", i), T0Ns: 1, Extra: []Value{{Str: prompt}}},
				Chunk: Chunk{TNs: int64(k) + 1, Data: []byte("x")}, Row: int64(len(rows))})
		}
	}
	var fr *flatReader
	pr := &peakRows{sliceRows: sliceRows{rows: rows}, fr: &fr}
	r := NewGroupingFlatReader(&peakPasses{slicePasses{rows: rows}, pr}, Info{Path: "f"}, Limits{}, nil)
	defer r.Close()
	fr = r.(*flatReader)
	scanCount(t, r, n)
	if pr.peak > 2*groupingWindowBytes {
		t.Errorf("the requests held came to %d MB of request-level columns at once (window: about %d MB)", pr.peak>>20, groupingWindowBytes>>20)
	}
}
