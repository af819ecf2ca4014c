package samples

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sseaudit/sseaudit/pynum"
)

// A Pool's percentiles select the same values a sort puts at the positions
// they read, on every kind of input: duplicates, zeros of both signs, NaN,
// sorted and reversed runs, lengths on both sides of pynum.RadixMinLen and
// selectMinLen and wideTopLen; gathered after one count or narrowed by a
// second; in one piece or in many. Its mean, minimum and maximum are
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
		for _, n := range []int{0, 1, 2, 7, 511, 512, 513, 4099, selectMinLen - 1, selectMinLen, 100000, wideTopLen + 1} {
			if n > wideTopLen && testing.Short() {
				continue
			}
			values := make([]float64, n)
			for i := range values {
				values[i] = gen(i, n)
			}
			if name == "nan" && n > 0 {
				values[rng.IntN(n)] = math.NaN()
			}
			sorted := slices.Clone(values)
			pynum.SortFloats(sorted)
			var pieces Pool
			for rest := values; len(rest) > 0; {
				k := min(len(rest), rng.IntN(300))
				pieces, rest = append(pieces, Values(rest[:k])), rest[k:]
			}
			for _, ps := range [][]float64{ps, many} {
				whole, split := PoolOf(values).Percentiles(ps), pieces.Percentiles(ps)
				narrowed := pieces.percentiles(ps, 0) // a second count always
				for i, p := range ps {
					want := pynum.PercentileSorted(sorted, p)
					if math.Float64bits(whole[i]) != math.Float64bits(want) || math.Float64bits(split[i]) != math.Float64bits(want) ||
						math.Float64bits(narrowed[i]) != math.Float64bits(want) {
						t.Errorf("%s n=%d P%v: %v (in pieces %v, narrowed %v), sorted %v", name, n, p, whole[i], split[i], narrowed[i], want)
					}
				}
			}
			lo, hi := pieces.MinMax()
			for _, c := range [][2]float64{{pieces.Mean(), pynum.NumpyMean(values)}, {PoolOf(values).Mean(), pynum.NumpyMean(values)},
				{lo, pynum.NumpyMin(values)}, {hi, pynum.NumpyMax(values)}} {
				if math.Float64bits(c[0]) != math.Float64bits(c[1]) && !(math.IsNaN(c[0]) && math.IsNaN(c[1])) {
					t.Errorf("%s n=%d: mean, min or max %v, numpy %v", name, n, c[0], c[1])
				}
			}
		}
	}
}
