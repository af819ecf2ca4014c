package figures

import (
	"math"
	"testing"
)

// edgeIndex's table finds the edge a binary search finds, edges themselves
// and values beside them included.
func TestEdgeIndex(t *testing.T) {
	var edges []float64
	for k := -60; k <= 10; k++ {
		edges = append(edges, math.Pow(10, float64(k)/10))
	}
	lo, hi := 1.3e-6, 9.7
	e := newEdgeIndex(edges, lo, hi)
	xs := []float64{lo, hi, math.NaN(), 0.5e-6, 20}
	for _, x := range edges {
		xs = append(xs, x, math.Nextafter(x, 0), math.Nextafter(x, 100))
	}
	for i := range 100000 {
		xs = append(xs, lo*math.Pow(hi/lo, float64(i)/100000))
	}
	for _, x := range xs {
		if got, want := e.lastAtOrBelow(x), e.search(x); got != want {
			t.Errorf("%v: edge %d, binary search %d", x, got, want)
		}
	}
}
