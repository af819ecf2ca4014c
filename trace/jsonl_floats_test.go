package trace

import (
	"math"
	"strconv"
	"testing"
)

// TestJSONLFloatsExact: time points and float64 extra values read
// from JSONL must be the float64 the text denotes (what Python's json and
// Go's strconv give), bit for bit. fastjson's Float64 divides (and then
// multiplies by a power of ten), rounding twice: "1.7000929701555e+09", the
// very text this package's JSONL writer writes for a time point of
// 1700092970.1555 s, came back one ulp off.
func TestJSONLFloatsExact(t *testing.T) {
	values := []float64{9.52793701891777e-18, 0.1, 123456.78901234567, 1.7000929701555e+09, 1.7000929701555e+09}
	reqs := []Request{{RequestID: "r0", T0Ns: 1, TimePointsS: values,
		Extra: []Value{{Float: values[3]}}}}
	opts := WriteOptions{Extra: []ExtraColumn{{Name: "x", Kind: ExtraFloat64}}}
	data := writeAllBytes(t, "jsonl", opts, reqs)
	_, got, err := readAllBytes(t, "tp.jsonl", "", data)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range values {
		if g := got[0].TimePointsS[i]; math.Float64bits(g) != math.Float64bits(want) {
			t.Errorf("time point %d: wrote %s, read back %s", i, strconv.FormatFloat(want, 'g', -1, 64), strconv.FormatFloat(g, 'g', -1, 64))
		}
	}
	if g := got[0].Extra[0].Float; math.Float64bits(g) != math.Float64bits(values[3]) {
		t.Errorf("extra float64: wrote %v, read back %v", values[3], g)
	}
}
