package pynum

import (
	"compress/gzip"
	"encoding/json"
	"math"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
)

// numericsGolden is testdata/numerics/numerics.json.gz, written by gen.py with
// numpy 1.24 and CPython 3.11; floats are Python reprs.
type numericsGolden struct {
	Numpy  string `json:"numpy"`
	Arrays []struct {
		Values      []string `json:"values"`
		Mean        string   `json:"mean"`
		Sum         string   `json:"sum"`
		PySum       string   `json:"pysum"`
		Min         string   `json:"min"`
		Max         string   `json:"max"`
		Percentiles []string `json:"percentiles"`
		Diff        []string `json:"diff"`
	} `json:"arrays"`
	Big []struct {
		N    int    `json:"n"`
		Mean string `json:"mean"`
		Sum  string `json:"sum"`
		P50  string `json:"p50"`
		P99  string `json:"p99"`
	} `json:"big"`
	Rounds []struct {
		X   string `json:"x"`
		Py4 string `json:"py4"`
		Np4 string `json:"np4"`
	} `json:"rounds"`
	NsSeconds []struct {
		Ns int64  `json:"ns"`
		S  string `json:"s"`
	} `json:"ns_seconds"`
	Reprs []struct {
		X    string `json:"x"`
		Repr string `json:"repr"`
	} `json:"reprs"`
}

var numericsOnce = sync.OnceValues(func() (*numericsGolden, error) {
	f, err := os.Open("testdata/numerics/numerics.json.gz")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	var g numericsGolden
	if err := json.NewDecoder(zr).Decode(&g); err != nil {
		return nil, err
	}
	return &g, nil
})

func loadNumericsGolden(t *testing.T) *numericsGolden {
	t.Helper()
	g, err := numericsOnce()
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Arrays) < 200 || len(g.Rounds) < 1000 || len(g.Reprs) < 1000 {
		t.Fatalf("golden numerics too small: %d arrays, %d rounds, %d reprs", len(g.Arrays), len(g.Rounds), len(g.Reprs))
	}
	return g
}

// pyFloat parses a Python float repr ("inf", "nan" included).
func pyFloat(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	return v
}

func pyFloats(t *testing.T, ss []string) []float64 {
	out := make([]float64, len(ss))
	for i, s := range ss {
		out[i] = pyFloat(t, s)
	}
	return out
}

// sameFloat is bit equality, except that any NaN equals any NaN.
func sameFloat(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Float64bits(a) == math.Float64bits(b)
}

func TestNumpyArraysAgainstNumpy(t *testing.T) {
	g := loadNumericsGolden(t)
	for i, c := range g.Arrays {
		xs := pyFloats(t, c.Values)
		check := func(what string, got float64, want string) {
			t.Helper()
			if w := pyFloat(t, want); !sameFloat(got, w) {
				t.Errorf("array %d (n=%d) %s = %s, numpy %s", i, len(xs), what, PyFloatRepr(got), want)
			}
		}
		check("mean", NumpyMean(xs), c.Mean)
		check("sum", NumpySum(xs), c.Sum)
		check("python sum", PySum(xs), c.PySum)
		check("min", NumpyMin(xs), c.Min)
		check("max", NumpyMax(xs), c.Max)
		for p := 1; p <= 99; p++ {
			check("P"+strconv.Itoa(p), NumpyPercentile(xs, float64(p)), c.Percentiles[p-1])
		}
		diff := NumpyDiff(xs)
		if len(diff) != len(c.Diff) {
			t.Fatalf("array %d: diff has %d values, numpy %d", i, len(diff), len(c.Diff))
		}
		for j := range diff {
			check("diff["+strconv.Itoa(j)+"]", diff[j], c.Diff[j])
		}
	}
}

// formulaArray matches gen.py's formula_array: big arrays without storing them.
func formulaArray(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		pow10 := int64(1)
		for range i % 13 {
			pow10 *= 10
		}
		out[i] = float64((int64(i)*2654435761)%1000003) / 7.0 / float64(pow10)
	}
	return out
}

func TestNumpyMeanChunksAtBufferSize(t *testing.T) {
	g := loadNumericsGolden(t)
	for _, c := range g.Big {
		xs := formulaArray(c.N)
		for _, tc := range []struct {
			what string
			got  float64
			want string
		}{
			{"mean", NumpyMean(xs), c.Mean},
			{"sum", NumpySum(xs), c.Sum},
			{"P50", NumpyPercentile(xs, 50), c.P50},
			{"P99", NumpyPercentile(xs, 99), c.P99},
		} {
			if w := pyFloat(t, tc.want); !sameFloat(tc.got, w) {
				t.Errorf("n=%d %s = %v, numpy %v", c.N, tc.what, tc.got, w)
			}
		}
	}
	// Guard that the data can tell numpy's chunked order from a single
	// pairwise pass and from a plain loop.
	xs := formulaArray(30001)
	if NumpySum(xs) == pairwiseSum(xs) || NumpySum(xs) == PySum(xs) {
		t.Error("the 30001-value array no longer separates the summation orders")
	}
}

func TestRoundsAgainstPythonAndNumpy(t *testing.T) {
	g := loadNumericsGolden(t)
	differ := 0
	for _, c := range g.Rounds {
		x := pyFloat(t, c.X)
		if got, want := PyRound(x, 4), pyFloat(t, c.Py4); !sameFloat(got, want) {
			t.Errorf("PyRound(%s, 4) = %s, Python %s", c.X, PyFloatRepr(got), c.Py4)
		}
		if got, want := NumpyRound(x, 4), pyFloat(t, c.Np4); !sameFloat(got, want) {
			t.Errorf("NumpyRound(%s, 4) = %s, numpy %s", c.X, PyFloatRepr(got), c.Np4)
		}
		if c.Py4 != c.Np4 {
			differ++
		}
	}
	if differ == 0 {
		t.Error("golden rounds never separate Python's round from numpy's: ties are missing")
	}
}

func TestPyFloatReprAgainstPython(t *testing.T) {
	g := loadNumericsGolden(t)
	for _, c := range g.Reprs {
		if got := PyFloatRepr(pyFloat(t, c.X)); got != c.Repr {
			t.Errorf("PyFloatRepr(%s) = %q, Python %q", c.X, got, c.Repr)
		}
	}
	for x, want := range map[float64]string{
		math.Inf(1): "inf", math.Inf(-1): "-inf", 1e-5: "1e-05", 1e16: "1e+16", 100: "100.0", 0.0001: "0.0001",
	} {
		if got := PyFloatRepr(x); got != want {
			t.Errorf("PyFloatRepr(%v) = %q, want %q", x, got, want)
		}
	}
	if got := PyFloatRepr(math.NaN()); got != "nan" {
		t.Errorf("PyFloatRepr(NaN) = %q", got)
	}
}

func TestSecondsFromNanosAgainstPython(t *testing.T) {
	g := loadNumericsGolden(t)
	if len(g.NsSeconds) < 100 {
		t.Fatalf("only %d ns cases", len(g.NsSeconds))
	}
	for _, c := range g.NsSeconds {
		if got, want := SecondsFromNanos(c.Ns), pyFloat(t, c.S); !sameFloat(got, want) {
			t.Errorf("SecondsFromNanos(%d) = %s, Python %s", c.Ns, PyFloatRepr(got), c.S)
		}
	}
}

func TestPercentileEdges(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		xs   []float64
		p    float64
		want float64
	}{
		{[]float64{7}, 99, 7},
		{[]float64{1, 2}, 50, 1.5},
		{[]float64{3, 1, 2}, 100, 3},
		{[]float64{3, 1, 2}, 0, 1},
		{[]float64{1, nan, 2}, 50, nan},
		{[]float64{math.Inf(1)}, 50, nan}, // numpy: inf - inf in _lerp
		{nil, 50, nan},
	} {
		if got := NumpyPercentile(tc.xs, tc.p); !sameFloat(got, tc.want) {
			t.Errorf("NumpyPercentile(%v, %v) = %v, want %v", tc.xs, tc.p, got, tc.want)
		}
	}
}

// FuzzPercentile checks NumpyPercentile against the textbook definition on a
// sorted copy: the interpolated value between the floor and ceiling neighbours,
// which numpy's two-sided lerp may differ from only in the last bits.
func FuzzPercentile(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5}, uint8(50))
	f.Add([]byte{9, 9, 9}, uint8(99))
	f.Add([]byte{0}, uint8(1))
	f.Fuzz(func(t *testing.T, raw []byte, pByte uint8) {
		if len(raw) == 0 {
			return
		}
		xs := make([]float64, len(raw))
		for i, b := range raw {
			xs[i] = float64(b) * 0.37
		}
		p := float64(pByte%100 + 1)
		got := NumpyPercentile(xs, p)
		sorted := slices.Clone(xs)
		slices.Sort(sorted)
		// numpy defines the rank as (n-1)*(p/100), and p/100 is inexact: 25*0.56 is
		// 14.000000000000002, so P56 of 26 values interpolates past index 14.
		rank := float64(len(sorted)-1) * (p / 100)
		lo, hi := int(math.Floor(rank)), int(math.Ceil(rank))
		hi = min(hi, len(sorted)-1)
		lo = min(lo, len(sorted)-1)
		if got < sorted[lo] || got > sorted[hi] {
			t.Fatalf("P%v of %v = %v, outside [%v, %v]", p, sorted, got, sorted[lo], sorted[hi])
		}
		frac := rank - math.Floor(rank)
		want := sorted[lo] + (sorted[hi]-sorted[lo])*frac
		if math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Fatalf("P%v of %v = %v, reference %v", p, sorted, got, want)
		}
		if got != NumpyPercentile(sorted, p) {
			t.Fatalf("percentile depends on input order")
		}
	})
}

func FuzzPyFloatRepr(f *testing.F) {
	for _, x := range []float64{0, 1, 1e-5, 1e16, 123.456, -2.5e-7} {
		f.Add(x)
	}
	f.Fuzz(func(t *testing.T, x float64) {
		s := PyFloatRepr(x)
		if math.IsNaN(x) {
			return
		}
		back, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("PyFloatRepr(%v) = %q does not parse: %v", x, s, err)
		}
		if !sameFloat(back, x) {
			t.Fatalf("PyFloatRepr(%v) = %q round-trips to %v", x, s, back)
		}
	})
}

// Sum and MinMax, given an array in pieces of any lengths, give what
// NumpyMean, NumpyMin and NumpyMax give for the whole: the pieces cross
// numpy's chunks of numpyBufferSize values anywhere.
func TestSumAndMinMaxInPieces(t *testing.T) {
	for _, n := range []int{0, 1, 7, 8, 129, numpyBufferSize - 1, numpyBufferSize, numpyBufferSize + 1, 3*numpyBufferSize + 17} {
		xs := formulaArray(n)
		if n > 5 {
			xs[n/2] = math.Copysign(0, -1)
		}
		for _, piece := range []int{1, 3, 100, numpyBufferSize - 5, numpyBufferSize, 2*numpyBufferSize + 1} {
			var s Sum
			var m MinMax
			for rest := xs; len(rest) > 0; {
				k := min(piece, len(rest))
				s.Add(rest[:k])
				m.Add(rest[:k])
				rest = rest[k:]
			}
			lo, hi := m.Result()
			if s.Len() != n || !sameFloat(s.Mean(), NumpyMean(xs)) || !sameFloat(lo, NumpyMin(xs)) || !sameFloat(hi, NumpyMax(xs)) {
				t.Errorf("n=%d in pieces of %d: mean %v min %v max %v (%d values), numpy %v %v %v", n, piece, s.Mean(), lo, hi, s.Len(),
					NumpyMean(xs), NumpyMin(xs), NumpyMax(xs))
			}
		}
	}
	var m MinMax
	m.Add([]float64{1, math.NaN(), -5})
	if lo, hi := m.Result(); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("a NaN among the values: min %v max %v, want NaN (numpy's)", lo, hi)
	}
}
