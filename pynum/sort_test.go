package pynum

import (
	"encoding/binary"
	"math"
	"slices"
	"testing"
)

// The radix sort must give the comparison sort's order, value for value
// (zeros compare equal, so their signs may differ; NaN last).
func checkSortFloats(t *testing.T, xs []float64) {
	t.Helper()
	want := slices.Clone(xs)
	slices.SortFunc(want, CompareNaNLast)
	got := slices.Clone(xs)
	SortFloats(got)
	for i := range want {
		w, g := want[i], got[i]
		if !(w == g || (math.IsNaN(w) && math.IsNaN(g))) {
			t.Fatalf("position %d of %d: %v, want %v", i, len(xs), g, w)
		}
	}
}

func TestSortFloatsLarge(t *testing.T) {
	var xs []float64
	seed := uint64(1)
	next := func() uint64 { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; return seed }
	for i := 0; i < 5000; i++ {
		switch i % 7 {
		case 0:
			xs = append(xs, float64(next()%1000)/1000) // ties
		case 1:
			xs = append(xs, -float64(next()%100))
		case 2:
			xs = append(xs, math.Float64frombits(next()))
		case 3:
			xs = append(xs, 0, math.Copysign(0, -1))
		case 4:
			xs = append(xs, math.Inf(1), math.Inf(-1))
		default:
			xs = append(xs, 1e9+float64(next()%1e6)/1e6)
		}
	}
	checkSortFloats(t, xs)
	// The percentiles over either order agree (bit for bit but for the sign
	// of a zero: which of -0 and +0 lands where is arbitrary in numpy too).
	a, b := slices.Clone(xs), slices.Clone(xs)
	slices.SortFunc(a, CompareNaNLast)
	SortFloats(b)
	for p := 1; p <= 99; p++ {
		x, y := PercentileSorted(a, float64(p)), PercentileSorted(b, float64(p))
		if x != y && !(math.IsNaN(x) && math.IsNaN(y)) {
			t.Errorf("P%d: %v vs %v", p, x, y)
		}
	}
}

// TestSortFloatsAllNaN: a slice long enough for the radix sort, of NaNs
// only, leaves nothing for it to sort (it used to index an empty slice).
func TestSortFloatsAllNaN(t *testing.T) {
	xs := make([]float64, 600)
	for i := range xs {
		xs[i] = math.NaN()
	}
	checkSortFloats(t, xs)
	checkSortFloats(t, append(xs, 1, -1)) // and with two values to sort
}

func FuzzSortFloats(f *testing.F) {
	f.Add(make([]byte, 8*600))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var xs []float64
		for len(raw) >= 8 {
			xs = append(xs, math.Float64frombits(binary.LittleEndian.Uint64(raw)))
			raw = raw[8:]
		}
		// Repeat to cross the radix threshold.
		for len(xs) > 0 && len(xs) < 600 {
			xs = append(xs, xs...)
		}
		checkSortFloats(t, xs)
	})
}

func BenchmarkSortFloats(b *testing.B) {
	xs := make([]float64, 1_000_000)
	for i := range xs {
		xs[i] = float64((i*7919)%100003) / 1000
	}
	buf := make([]float64, len(xs))
	b.Run("radix", func(b *testing.B) {
		for b.Loop() {
			copy(buf, xs)
			SortFloats(buf)
		}
	})
	b.Run("comparison", func(b *testing.B) {
		for b.Loop() {
			copy(buf, xs)
			slices.SortFunc(buf, CompareNaNLast)
		}
	})
}
