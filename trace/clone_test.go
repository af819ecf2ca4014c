package trace

import (
	"reflect"
	"testing"
)

func TestCloneOwnsItsBytes(t *testing.T) {
	end, status, msg, in, out := int64(9), int32(200), "e", int64(3), int64(4)
	body := []byte("data: a\n\ndata: b\n\n")
	for _, req := range []Request{
		{RequestID: "full", T0Ns: 1, EndNs: &end, HTTPStatus: &status, Error: &msg, InputTokens: &in, OutputTokens: &out,
			Chunks:      []Chunk{{TNs: 2, Data: body[:9]}, {TNs: 3, Data: body[9:]}, {TNs: 4, Data: body[:0]}},
			TimePointsS: []float64{1, 2}, Extra: []Value{{Str: "s"}, {Bytes: []byte{1, 2}}, {Null: true}}},
		{RequestID: "empty", Chunks: []Chunk{}, TimePointsS: []float64{}, Extra: []Value{{Bytes: []byte{}}}},
		{RequestID: "nil"},
	} {
		want := req
		c := req.Clone()
		if !reflect.DeepEqual(*c, want) {
			t.Fatalf("%s: Clone = %+v, want %+v", req.RequestID, *c, want)
		}
		// What a reader reuses for the next request must not show in the clone.
		for i := range body {
			body[i] = 'x'
		}
		end, status, msg, in, out = 0, 0, "", 0, 0
		if len(req.TimePointsS) > 0 {
			req.TimePointsS[0] = -1
		}
		for _, v := range req.Extra {
			for i := range v.Bytes {
				v.Bytes[i] = 0
			}
		}
		if req.RequestID == "full" {
			if string(c.Chunks[0].Data)+string(c.Chunks[1].Data) != "data: a\n\ndata: b\n\n" || c.Chunks[2].Data == nil ||
				*c.EndNs != 9 || *c.HTTPStatus != 200 || *c.Error != "e" || *c.InputTokens != 3 || *c.OutputTokens != 4 ||
				c.TimePointsS[0] != 1 || c.Extra[1].Bytes[0] != 1 {
				t.Fatalf("full: the clone shares memory with the original: %+v", *c)
			}
		}
	}
}
