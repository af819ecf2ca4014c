package trace

import (
	"reflect"
	"strings"
	"testing"
)

type sliceRows struct {
	rows []FlatRow
	i    int
}

func (s *sliceRows) Next(r *FlatRow) bool {
	if s.i >= len(s.rows) {
		return false
	}
	*r = s.rows[s.i]
	s.i++
	return true
}

func (s *sliceRows) Err() error { return nil }

func chunkRow(id string, t0, t int64, data string) FlatRow {
	return FlatRow{Req: Request{RequestID: id, T0Ns: t0}, Chunk: Chunk{TNs: t, Data: []byte(data)}}
}

// groupRows runs rows through the flat reader the way a format reader does:
// contiguity first, then streaming or grouping.
func groupRows(rows []FlatRow) (Info, []Request, error) {
	var c Contiguity
	for i := range rows {
		rows[i].Row = int64(i)
		c.Add(rows[i].Req.RequestID)
	}
	info := Info{Path: "flat.parquet", Format: "parquet"}
	var r Reader
	if c.Contiguous() {
		r = NewFlatReader(&sliceRows{rows: rows}, info, Limits{}, nil)
	} else {
		r = NewGroupingFlatReader(&sliceRows{rows: rows}, info, Limits{}, nil)
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

func TestFlatGroupingLimit(t *testing.T) {
	rows := []FlatRow{chunkRow("a", 1, 2, "x"), chunkRow("b", 1, 3, "p"), chunkRow("a", 1, 4, "y")}
	var c Contiguity
	for i := range rows {
		rows[i].Row = int64(i)
		c.Add(rows[i].Req.RequestID)
	}
	r := NewGroupingFlatReader(&sliceRows{rows: rows}, Info{Path: "f.arrow"}, Limits{MaxGroupingRows: 2}, nil)
	for r.Scan() {
	}
	if err := r.Err(); err == nil || !strings.Contains(err.Error(), "limit --max-grouping-rows") {
		t.Errorf("err = %v, want the grouping limit named", err)
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
		_, got, err := groupRows(rows)
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
