package audit

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The radix sort must give the comparison sort's order, value for value
// (zeros compare equal, so their signs may differ; NaN last).
func checkSortFloats(t *testing.T, xs []float64) {
	t.Helper()
	want := slices.Clone(xs)
	slices.SortFunc(want, compareNaNLast)
	got := slices.Clone(xs)
	sortFloats(got)
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
	slices.SortFunc(a, compareNaNLast)
	sortFloats(b)
	for p := 1; p <= 99; p++ {
		x, y := numpyPercentileSorted(a, float64(p)), numpyPercentileSorted(b, float64(p))
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
			sortFloats(buf)
		}
	})
	b.Run("comparison", func(b *testing.B) {
		for b.Loop() {
			copy(buf, xs)
			slices.SortFunc(buf, compareNaNLast)
		}
	})
}

// A pool's percentiles select the same values a sort puts at the positions
// they read, on every kind of input: duplicates, zeros of both signs, NaN,
// sorted and reversed runs, lengths on both sides of radixMinLen and
// selectMinLen; in one piece or in many. Its mean, minimum and maximum are
// numpy's of the whole, in pieces or not.
func TestPoolStatisticsAsWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ps := []float64{0, 1, 25, 33.3, 50, 75, 90, 99, 99.9, 100}
	many := make([]float64, 101) // more top digits than maxSelectDigits
	for i := range many {
		many[i] = float64(i)
	}
	kinds := map[string]func(i, n int) float64{
		"uniform":    func(int, int) float64 { return rng.Float64() },
		"duplicates": func(int, int) float64 { return float64(rng.IntN(7)) * 0.01 },
		"constant":   func(int, int) float64 { return 1 },
		// One 32-bit bucket: a run of one value, then two values mixed.
		"one bucket": func(i, n int) float64 {
			if i < n/3 || rng.IntN(2) == 0 {
				return 1
			}
			return math.Nextafter(1, 2)
		},
		"zeros":      func(int, int) float64 { return []float64{0, math.Copysign(0, -1), 1, -1}[rng.IntN(4)] },
		"sorted":     func(i, _ int) float64 { return float64(i) },
		"reversed":   func(i, n int) float64 { return float64(n - i) },
		"organ pipe": func(i, n int) float64 { return float64(min(i, n-i)) },
		"nan": func(int, int) float64 {
			if rng.IntN(1000) == 0 {
				return math.NaN()
			}
			return rng.Float64()
		},
	}
	for name, gen := range kinds {
		for _, n := range []int{0, 1, 2, 7, 511, 512, 513, 4099, selectMinLen - 1, selectMinLen, 100000} {
			values := make([]float64, n)
			for i := range values {
				values[i] = gen(i, n)
			}
			if name == "nan" && n > 0 {
				values[rng.IntN(n)] = math.NaN()
			}
			sorted := slices.Clone(values)
			sortFloats(sorted)
			var pieces pool
			for rest := values; len(rest) > 0; {
				k := min(len(rest), rng.IntN(300))
				pieces, rest = append(pieces, ownSpan(rest[:k])), rest[k:]
			}
			for _, ps := range [][]float64{ps, many} {
				whole, split := poolOf(values).percentiles(ps), pieces.percentiles(ps)
				for i, p := range ps {
					want := numpyPercentileSorted(sorted, p)
					if math.Float64bits(whole[i]) != math.Float64bits(want) || math.Float64bits(split[i]) != math.Float64bits(want) {
						t.Errorf("%s n=%d P%v: %v (in pieces %v), sorted %v", name, n, p, whole[i], split[i], want)
					}
				}
			}
			lo, hi := pieces.minMax()
			for _, c := range [][2]float64{{pieces.mean(), NumpyMean(values)}, {poolOf(values).mean(), NumpyMean(values)},
				{lo, NumpyMin(values)}, {hi, NumpyMax(values)}} {
				if math.Float64bits(c[0]) != math.Float64bits(c[1]) && !(math.IsNaN(c[0]) && math.IsNaN(c[1])) {
					t.Errorf("%s n=%d: mean, min or max %v, numpy %v", name, n, c[0], c[1])
				}
			}
		}
	}
}
