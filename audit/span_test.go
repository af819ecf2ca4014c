package audit

import (
	"slices"
	"testing"
)

// A span's values, and a piece's (sub), are the stored record's intervals
// (np.diff(tp[1:])) or output events' token counts, bit for bit, whether the
// time points packed or not and the events are kept as runs or one each.
func TestSpanValues(t *testing.T) {
	recs := packedRecords(40)
	// Not whole nanoseconds: kept as float64.
	for i := range recs[:10] {
		tp := slices.Clone(recs[i].TimePoints)
		for j := range tp {
			tp[j] = float64(i) + 1.0/3 + 0.0137*float64(j-j%5) // some intervals 0
		}
		recs[i].TimePoints = tp
	}
	for i := range recs {
		for j := range recs[i].Events {
			recs[i].Events[j].Tokens = int64((i + j) % 5)
		}
	}
	b := NewBuilder(Config{})
	for _, r := range recs {
		b.Add(r)
	}
	packed := 0
	var buf []float64
	for i, r := range recs {
		rec := &b.requests[i]
		if rec.packed {
			packed++
		}
		var wantIntervals, wantTokens []float64
		if len(r.TimePoints) > 2 {
			wantIntervals = NumpyDiff(r.TimePoints[1:])
		}
		for _, e := range r.Events {
			if outputEvent(storedEventOf(e)) {
				wantTokens = append(wantTokens, float64(e.Tokens))
			}
		}
		for name, c := range map[string]struct {
			s    span
			want []float64
		}{"intervals": {intervalSpan(rec), wantIntervals}, "tokens": {tokenSpan(rec, len(wantTokens)), wantTokens}} {
			if got := c.s.values(&buf); c.s.len() != len(c.want) || !slices.Equal(got, c.want) {
				t.Fatalf("request %d %s: %v (len %d), want %v", i, name, got, c.s.len(), c.want)
			}
			for lo := range len(c.want) {
				hi := min(len(c.want), lo+1+i%7)
				piece := c.s.sub(lo, hi)
				if got := piece.values(&buf); piece.len() != hi-lo || !slices.Equal(got, c.want[lo:hi]) {
					t.Fatalf("request %d %s[%d:%d]: %v, want %v", i, name, lo, hi, got, c.want[lo:hi])
				}
			}
		}
	}
	if packed == 0 || packed == len(recs) {
		t.Fatalf("%d of %d records packed: want both kinds", packed, len(recs))
	}
}
