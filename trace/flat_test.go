package trace

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

type sliceRows struct {
	rows []FlatRow
	i    int
	// view hands out each row's chunk bytes in one buffer, overwritten by
	// the next row's (as FlatPasses' rows may).
	view bool
	buf  []byte
}

func (s *sliceRows) Next(r *FlatRow) bool {
	if s.i >= len(s.rows) {
		return false
	}
	*r = s.rows[s.i]
	if s.view && r.Chunk.Data != nil {
		s.buf = append(s.buf[:0], r.Chunk.Data...)
		r.Chunk.Data = s.buf
	}
	s.i++
	return true
}

func (s *sliceRows) Err() error { return nil }

// slicePasses are the passes of the grouping reader over rows; passes
// counts the passes over every row.
type slicePasses struct {
	rows   []FlatRow
	passes int
	view   bool // see sliceRows
}

func (s *slicePasses) IDs(add func(string) error) error {
	for _, r := range s.rows {
		if err := add(r.Req.RequestID); err != nil {
			return err
		}
	}
	return nil
}

func (s *slicePasses) Rows() (FlatRows, error) {
	s.passes++
	return &sliceRows{rows: s.rows, view: s.view}, nil
}

func chunkRow(id string, t0, t int64, data string) FlatRow {
	return FlatRow{Req: Request{RequestID: id, T0Ns: t0}, Chunk: Chunk{TNs: t, Data: []byte(data)}}
}

// groupRows runs rows through the flat reader the way a format reader does:
// contiguity first, then streaming or grouping.
func groupRows(rows []FlatRow) (Info, []Request, error) {
	return groupRowsWithin(rows, Limits{})
}

func groupRowsWithin(rows []FlatRow, limits Limits) (Info, []Request, error) {
	var c Contiguity
	for i := range rows {
		rows[i].Row = int64(i)
		c.Add(rows[i].Req.RequestID)
	}
	info := Info{Path: "flat.parquet", Format: "parquet"}
	var r Reader
	if c.Contiguous() {
		r = NewFlatReader(&sliceRows{rows: rows}, info, limits, nil)
	} else {
		r = NewGroupingFlatReader(&slicePasses{rows: rows}, info, limits, nil)
	}
	var out []Request
	for r.Scan() {
		out = append(out, *r.Request().Clone())
	}
	return r.Info(), out, r.Err()
}

func TestFlatContiguous(t *testing.T) {
	status := int32(200)
	rows := []FlatRow{
		chunkRow("a", 1, 2, "x"), chunkRow("a", 1, 3, "y"),
		{Req: Request{RequestID: "b", T0Ns: 5, HTTPStatus: &status}, ChunkNull: true},
		chunkRow("c", 7, 8, "z"),
	}
	info, reqs, err := groupRows(rows)
	if err != nil {
		t.Fatal(err)
	}
	if info.Regrouped || info.Layout != Flat {
		t.Errorf("info = %+v", info)
	}
	want := []Request{
		{RequestID: "a", T0Ns: 1, Chunks: []Chunk{{2, []byte("x")}, {3, []byte("y")}}},
		{RequestID: "b", T0Ns: 5, HTTPStatus: &status},
		{RequestID: "c", T0Ns: 7, Chunks: []Chunk{{8, []byte("z")}}},
	}
	if !reflect.DeepEqual(reqs, want) {
		t.Errorf("got %+v\nwant %+v", reqs, want)
	}
}

func TestFlatRegrouped(t *testing.T) {
	rows := []FlatRow{
		chunkRow("a", 1, 2, "x"), chunkRow("b", 1, 3, "p"), chunkRow("a", 1, 4, "y"), chunkRow("b", 1, 5, "q"),
	}
	info, reqs, err := groupRows(rows)
	if err != nil {
		t.Fatal(err)
	}
	if !info.Regrouped || len(info.Notes) == 0 {
		t.Errorf("info = %+v, want Regrouped with a note", info)
	}
	if len(reqs) != 2 || reqs[0].RequestID != "a" || string(reqs[0].Chunks[1].Data) != "y" || string(reqs[1].Chunks[1].Data) != "q" {
		t.Errorf("got %+v", reqs)
	}
}

func TestFlatBadRows(t *testing.T) {
	end := int64(9)
	cases := []struct {
		name string
		rows []FlatRow
		want string
	}{
		{"t0 differs", []FlatRow{chunkRow("a", 1, 2, "x"), chunkRow("a", 2, 3, "y")},
			`flat.parquet: row 1, request "a", column t0_ns: differs from the request's first row (row 0)`},
		{"end differs", []FlatRow{chunkRow("a", 1, 2, "x"), {Req: Request{RequestID: "a", T0Ns: 1, EndNs: &end}, Chunk: Chunk{TNs: 3}}},
			`row 1, request "a", column end_ns: differs`},
		{"null id", []FlatRow{chunkRow("", 1, 2, "x")}, `flat.parquet: row 0, column request_id: null or empty request_id`},
		{"null row beside chunks", []FlatRow{chunkRow("a", 1, 2, "x"), {Req: Request{RequestID: "a", T0Ns: 1}, ChunkNull: true}},
			`row 1, request "a", column t_ns: a row without a chunk (null t_ns and data) must be the request's only row`},
		{"backwards", []FlatRow{chunkRow("a", 1, 5, "x"), chunkRow("a", 1, 3, "y")},
			`flat.parquet: row 0, request "a", column chunks: chunk 1: t_ns 3 goes back from 5`},
		{"regrouped backwards", []FlatRow{chunkRow("a", 1, 5, "x"), chunkRow("b", 1, 5, "x"), chunkRow("a", 1, 3, "y")},
			`request "a", column chunks: chunk 1: t_ns 3 goes back from 5`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := groupRows(c.rows)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v\nwant it to contain %q", err, c.want)
			}
		})
	}
}

// TestFlatGroupingLimit: --max-grouping-rows bounds the rows a window
// holds; a file with more rows is read in more windows (the first held, the
// others set aside and read back), and only a request with more rows than
// the limit is refused.
func TestFlatGroupingLimit(t *testing.T) {
	rows := []FlatRow{chunkRow("a", 1, 2, "x"), chunkRow("b", 1, 3, "p"), chunkRow("a", 1, 4, "y"), chunkRow("c", 1, 5, "q")}
	for i := range rows {
		rows[i].Row = int64(i)
	}
	p := &slicePasses{rows: rows}
	r := NewGroupingFlatReader(p, Info{Path: "f.arrow"}, Limits{MaxGroupingRows: 2}, nil)
	var got []string
	for r.Scan() {
		var data []string
		for _, c := range r.Request().Chunks {
			data = append(data, string(c.Data))
		}
		got = append(got, r.Request().RequestID+":"+strings.Join(data, ""))
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"a:xy", "b:p", "c:q"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	// Windows [a] (2 rows) and [b c]: one pass over the rows, the second
	// window set aside and read back.
	if read := r.(*flatReader).read; p.passes != 1 || read != 1 {
		t.Errorf("%d passes over the rows and %d windows read back, want 1 and 1", p.passes, read)
	}

	r = NewGroupingFlatReader(&slicePasses{rows: rows}, Info{Path: "f.arrow"}, Limits{MaxGroupingRows: 1}, nil)
	for r.Scan() {
	}
	if err := r.Err(); !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "limit --max-grouping-rows") || !strings.Contains(err.Error(), `request "a" has 2 rows`) {
		t.Errorf("err = %v, want the grouping limit named, and the request over it", err)
	}
}

// FuzzFlatGrouping checks the flat reader against a plain reference: group
// rows by id in order of first appearance.
func FuzzFlatGrouping(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 1, 1})
	f.Add([]byte{3, 3, 3})
	f.Add([]byte{0, 1, 2, 0})
	f.Fuzz(func(t *testing.T, spec []byte) {
		if len(spec) > 200 {
			return
		}
		var rows []FlatRow
		for i, b := range spec {
			id := string(rune('a' + b%4))
			rows = append(rows, chunkRow(id, 0, int64(i), string(rune('0'+b%10))))
		}
		// Windows as small as the largest request allows, and larger.
		per := map[string]int64{}
		var most int64
		for _, r := range rows {
			per[r.Req.RequestID]++
			most = max(most, per[r.Req.RequestID])
		}
		var extra int64
		if len(spec) > 0 {
			extra = int64(spec[0] % 3)
		}
		_, got, err := groupRowsWithin(rows, Limits{MaxGroupingRows: max(1, most+extra)})
		if err != nil {
			t.Fatalf("%v", err)
		}
		var order []string
		ref := map[string][]Chunk{}
		for _, r := range rows {
			id := r.Req.RequestID
			if _, ok := ref[id]; !ok {
				order = append(order, id)
			}
			ref[id] = append(ref[id], r.Chunk)
		}
		if len(got) != len(order) {
			t.Fatalf("%d requests, want %d", len(got), len(order))
		}
		for i, id := range order {
			if got[i].RequestID != id || !reflect.DeepEqual(got[i].Chunks, ref[id]) {
				t.Fatalf("request %d = %+v, want %s %+v", i, got[i], id, ref[id])
			}
		}
	})
}

// TestFlatGroupingOrders: 3,000 requests of 3 rows, their rows in time
// order with 8 requests in flight (a capture's order) and shuffled, read
// as a reference grouping reads them; the rows in time order in one pass,
// the shuffled ones in as many as --max-grouping-rows makes needed. The
// rows' chunk bytes are handed out in a buffer the next row overwrites.
func TestFlatGroupingOrders(t *testing.T) {
	const n, per = 3000, 3
	var inFlight []FlatRow
	for i := range n {
		for k := range per {
			inFlight = append(inFlight, chunkRow(fmt.Sprintf("r%05d", i), int64(i), int64(i+k*8), fmt.Sprintf("%d.%d", i, k)))
		}
	}
	slices.SortStableFunc(inFlight, func(a, b FlatRow) int { return cmp.Compare(a.Chunk.TNs, b.Chunk.TNs) })
	shuffled := slices.Clone(inFlight)
	rng := rand.New(rand.NewPCG(7, 8))
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	// A request's chunks stay in time order: the k-th row of a request
	// read gets its k-th chunk.
	seen := map[string]int{}
	for i := range shuffled {
		id := shuffled[i].Req.RequestID
		var req int
		fmt.Sscanf(id, "r%d", &req)
		k := seen[id]
		seen[id]++
		shuffled[i].Chunk = Chunk{TNs: int64(req + k*8), Data: []byte(fmt.Sprintf("%d.%d", req, k))}
	}
	for _, c := range []struct {
		name       string
		rows       []FlatRow
		limit      int64
		passes     int
		morePasses bool
	}{
		{"in flight", inFlight, 0, 1, false},
		{"in flight, a small window", inFlight, 60, 1, false},
		{"shuffled", shuffled, 0, 1, false},
		{"shuffled, a small window", shuffled, 300, 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			for i := range c.rows {
				c.rows[i].Row = int64(i)
			}
			var order []string
			want := map[string][]string{}
			for _, r := range c.rows {
				id := r.Req.RequestID
				if _, ok := want[id]; !ok {
					order = append(order, id)
				}
				want[id] = append(want[id], string(r.Chunk.Data))
			}
			p := &slicePasses{rows: c.rows, view: true}
			r := NewGroupingFlatReader(p, Info{Path: "f"}, Limits{MaxGroupingRows: c.limit}, nil)
			i := 0
			for ; r.Scan(); i++ {
				req := r.Request()
				var got []string
				for _, ch := range req.Chunks {
					got = append(got, string(ch.Data))
				}
				if i >= len(order) || req.RequestID != order[i] || !slices.Equal(got, want[req.RequestID]) {
					t.Fatalf("request %d: %s %q, want %s %q", i, req.RequestID, got, order[min(i, len(order)-1)], want[order[min(i, len(order)-1)]])
				}
			}
			if err := r.Err(); err != nil {
				t.Fatal(err)
			}
			if i != n {
				t.Fatalf("%d requests, want %d", i, n)
			}
			read := r.(*flatReader).read
			if p.passes != 1 || c.morePasses && read < n*per/int(c.limit)-1 || !c.morePasses && read != 0 {
				t.Errorf("%d passes over the rows, %d windows read back", p.passes, read)
			}
			t.Logf("%d passes, %d windows read back", p.passes, read)
		})
	}
}

// TestFlatSpillKeepsEverything: rows set aside and read back keep every
// request-level column (pointers, time points, extra values of each kind,
// null and empty bytes) and chunk (a null row, empty data): the requests
// are those of a window that holds the whole file.
func TestFlatSpillKeepsEverything(t *testing.T) {
	i64 := func(v int64) *int64 { return &v }
	i32 := func(v int32) *int32 { return &v }
	str := func(v string) *string { return &v }
	var rows []FlatRow
	for i := range 40 {
		id := fmt.Sprintf("q%02d", i)
		req := Request{RequestID: id, T0Ns: int64(i) * 10, EndNs: i64(int64(i)*10 + 9), HTTPStatus: i32(200),
			InputTokens: i64(int64(i)), Extra: []Value{{Str: strings.Repeat("prompt ", i)}, {Bytes: []byte{}}, {Null: true}, {Int: -int64(i), Float: math.Pi, Bool: true}}}
		switch i % 4 {
		case 1:
			req.HTTPStatus, req.Error, req.EndNs = nil, str("connection reset"), nil
		case 2:
			req.TimePointsS, req.OutputTokens = []float64{math.Copysign(0, -1), 1.5, 1.5}, i64(0)
		case 3:
			req.Extra[1].Bytes = []byte{0, 1, 2}
		}
		if i%7 == 6 {
			rows = append(rows, FlatRow{Req: req, ChunkNull: true})
			continue
		}
		for k := range 3 {
			data := []byte(fmt.Sprintf("data: %d.%d\n\n", i, k))
			if k == 1 && i%5 == 0 {
				data = []byte{}
			}
			rows = append(rows, FlatRow{Req: req, Chunk: Chunk{TNs: int64(i)*10 + int64(k), Data: data}})
		}
	}
	// Every request in flight at once: the k-th row of each, then the next.
	slices.SortStableFunc(rows, func(a, b FlatRow) int { return cmp.Compare(a.Chunk.TNs%10, b.Chunk.TNs%10) })
	_, want, err := groupRowsWithin(slices.Clone(rows), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int64{3, 7, 50} {
		_, got, err := groupRowsWithin(slices.Clone(rows), Limits{MaxGroupingRows: limit})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("limit %d: %d requests, want %d", limit, len(got), len(want))
		}
		for i := range want {
			if !sameRequest(&got[i], &want[i]) {
				t.Errorf("limit %d: request %d\n got %+v\nwant %+v", limit, i, got[i], want[i])
			}
		}
	}
}

// sameRequest is DeepEqual with NaN equal to itself and -0 told from 0.
func sameRequest(a, b *Request) bool {
	ta, tb := a.TimePointsS, b.TimePointsS
	if !SameFloatBits(ta, tb) {
		return false
	}
	x, y := *a, *b
	x.TimePointsS, y.TimePointsS = nil, nil
	return reflect.DeepEqual(x, y)
}

// TestFlatSpillColumnsDiffer: a request set aside whose later row's
// request-level columns differ from its first row's is refused as it is
// when the window holds it, naming the row and the column.
func TestFlatSpillColumnsDiffer(t *testing.T) {
	rows := []FlatRow{chunkRow("a", 1, 2, "x"), chunkRow("b", 5, 2, "p"), chunkRow("a", 1, 3, "y"), chunkRow("c", 6, 4, "q"), chunkRow("b", 5, 5, "r"), chunkRow("b", 7, 6, "s")}
	for _, limit := range []int64{0, 3} {
		_, _, err := groupRowsWithin(slices.Clone(rows), Limits{MaxGroupingRows: limit})
		want := `flat.parquet: row 5, request "b", column t0_ns: differs from the request's first row (row 1)`
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("limit %d: error %v\nwant it to contain %q", limit, err, want)
		}
	}
}

// TestFlatSpillWritesColumnsOnce: a request's columns, repeated on each of
// its rows, are set aside once, with its first row, not once a row.
func TestFlatSpillWritesColumnsOnce(t *testing.T) {
	prompt := strings.Repeat("a long prompt ", 100)
	var rows []FlatRow
	for k := range 10 {
		for i := range 20 {
			rows = append(rows, FlatRow{Req: Request{RequestID: fmt.Sprint("r", i), T0Ns: 1, Extra: []Value{{Str: prompt}}},
				Chunk: Chunk{TNs: int64(k) + 1, Data: []byte("x")}, Row: int64(len(rows))})
		}
	}
	r := NewGroupingFlatReader(&slicePasses{rows: rows}, Info{Path: "f"}, Limits{MaxGroupingRows: 20}, nil)
	n := 0
	for r.Scan() {
		n++
	}
	if err := r.Err(); err != nil || n != 20 {
		t.Fatalf("%d requests, %v", n, err)
	}
	sp := r.(*flatReader).spill
	if sp == nil {
		t.Fatal("nothing set aside")
	}
	// 18 requests set aside: their prompts once each, and a few bytes a row.
	if limit := int64(18*len(prompt) + 200*32); sp.size > limit {
		t.Errorf("%d bytes set aside, want at most %d (the prompt once a request)", sp.size, limit)
	}
	t.Logf("%d bytes set aside for %d requests of %d rows", sp.size, 18, 10)
}
