package samples

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sseaudit/sseaudit/pynum"
)

// stores are every Store, each made fresh: the reference (Heap) and the
// packed store in the heap, mapping from its first slab, and mapping after
// a few slabs.
var stores = []struct {
	name string
	make func() Store
}{
	{"heap", func() Store { return NewHeap() }},
	{"packed", func() Store { return NewPacked(-1) }},
	{"packed-mapped", func() Store { return NewPacked(0) }},
	{"packed-mapped-later", func() Store { return NewPacked(3 * slabEntries) }},
}

// storeCases are time-point lists of every kind a store meets: whole
// nanoseconds that pack (zero steps, steps up to 2^32-1 ns), and lists that
// do not: not whole nanoseconds, a step too long, going backwards, NaN, -0,
// infinities, beyond int64 nanoseconds, one point, none; long ones that
// cross slabs (more steps than a slab holds, too).
func storeCases() [][]float64 {
	rng := rand.New(rand.NewPCG(5, 6))
	whole := func(n int, t0 int64, step func() int64) []float64 {
		ns := t0
		tp := []float64{pynum.SecondsFromNanos(ns)}
		for range n - 1 {
			ns += step()
			tp = append(tp, pynum.SecondsFromNanos(ns))
		}
		return tp
	}
	var cases [][]float64
	for i := range 300 {
		n := 2 + rng.IntN(400)
		if i%50 == 7 {
			n = slabEntries + 10 // more than a slab
		}
		cases = append(cases, whole(n, 1_700_000_000_000_000_000+int64(i)*1e9, func() int64 {
			if rng.IntN(9) == 0 {
				return 0
			}
			return rng.Int64N(40_000_000)
		}))
	}
	cases = append(cases,
		whole(3, 0, func() int64 { return math.MaxUint32 }),     // the longest step
		whole(3, 0, func() int64 { return math.MaxUint32 + 1 }), // one too long
		whole(5, -3_000_000_000, func() int64 { return 1_000_000_000 }),
		[]float64{1.0 / 3, 2.0 / 3, 1, 1, 4.0 / 3}, // not whole nanoseconds
		[]float64{5, 4, 6},                    // backwards
		[]float64{1, math.NaN(), 2},           // NaN
		[]float64{math.Copysign(0, -1), 1, 2}, // -0
		[]float64{1, math.Inf(1)},             // infinity
		[]float64{1e10, 1e10 + 1},             // beyond int64 nanoseconds
		[]float64{42},                         // one point
		[]float64{},                           // none
		whole(2, 1_000_000_000, func() int64 { return 1 }),
	)
	return cases
}

// Every store hands back the time points and intervals added, bit for bit
// (NaN for NaN), whole and in every piece: what the reference Heap holds.
func TestStores(t *testing.T) {
	cases := storeCases()
	for _, s := range stores {
		t.Run(s.name, func(t *testing.T) {
			st := s.make()
			refs := make([]Ref, len(cases))
			for i, tp := range cases {
				refs[i] = st.Add(tp)
			}
			var buf []float64
			for i, tp := range cases {
				if got := st.Points(refs[i]); got != len(tp) {
					t.Fatalf("case %d: %d points, want %d", i, got, len(tp))
				}
				if got := st.TimePoints(refs[i], buf); !slices.EqualFunc(got, tp, sameBits) {
					t.Fatalf("case %d: time points %v, want %v", i, head(got), head(tp))
				}
				var want []float64
				if len(tp) > 2 {
					want = pynum.NumpyDiff(tp[1:])
				}
				for _, piece := range [][2]int{{0, len(want)}, {0, 0}, {len(want), len(want)}, {len(want) / 3, len(want) / 2}, {1, len(want)}} {
					lo, hi := piece[0], piece[1]
					if lo > hi {
						continue
					}
					buf = st.Intervals(refs[i], lo, hi, buf)
					if !slices.EqualFunc(buf, want[lo:hi], sameBits) {
						t.Fatalf("case %d: intervals [%d:%d] %v, want %v", i, lo, hi, head(buf), head(want[lo:hi]))
					}
				}
			}
			if p, ok := st.(*Packed); ok {
				if s.name != "packed" && mapSupported() && p.Mapped() == 0 {
					t.Errorf("no slab mapped")
				}
				if s.name == "packed" && p.Mapped() != 0 {
					t.Errorf("%d slabs mapped by a store that never maps", p.Mapped())
				}
				packed := 0
				for _, e := range p.entries {
					if e.slab >= 0 {
						packed++
					}
				}
				if packed == 0 || packed == len(cases) {
					t.Errorf("%d of %d cases packed: want both kinds", packed, len(cases))
				}
			}
			st.Release()
			if p, ok := st.(*Packed); ok && p.Mapped() != 0 {
				t.Errorf("%d slabs still mapped after Release", p.Mapped())
			}
		})
	}
}

func sameBits(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Float64bits(a) == math.Float64bits(b)
}

func head(xs []float64) string {
	if len(xs) > 6 {
		return fmt.Sprint(xs[:6], "...")
	}
	return fmt.Sprint(xs)
}

// mapSupported says whether this platform maps slabs outside the heap.
func mapSupported() bool {
	_, unmap, ok := mapSteps(1)
	if ok {
		unmap()
	}
	return ok
}

// A span reads its Reader's samples, whole and in every piece (Sub), and
// spans are the same exactly when they read the same samples.
func TestSpans(t *testing.T) {
	st := NewPacked(-1)
	cases := storeCases()[:40]
	r := storeReader{st}
	for i, tp := range cases {
		ref := st.Add(tp)
		want := []float64{}
		if len(tp) > 2 {
			want = pynum.NumpyDiff(tp[1:])
		}
		s := ReadSpan(r, int(ref), 0, len(want))
		var buf []float64
		if got := s.Read(&buf); s.Len() != len(want) || !slices.Equal(got, want) {
			t.Fatalf("case %d: %v (len %d), want %v", i, head(got), s.Len(), head(want))
		}
		for lo := range len(want) {
			hi := min(len(want), lo+1+i%7)
			piece := s.Sub(lo, hi)
			if got := piece.Read(&buf); piece.Len() != hi-lo || !slices.Equal(got, want[lo:hi]) {
				t.Fatalf("case %d [%d:%d]: %v, want %v", i, lo, hi, got, want[lo:hi])
			}
			if !piece.Same(s.Sub(lo, hi)) || (hi-lo < len(want) && piece.Same(s)) {
				t.Fatalf("case %d [%d:%d]: Same is wrong", i, lo, hi)
			}
		}
		own := Values(want)
		if len(want) > 0 && (own.Same(s) || !own.Same(Values(want)) || own.Same(Values(slices.Clone(want)))) {
			t.Fatalf("case %d: Same of own values is wrong", i)
		}
	}
}

type storeReader struct{ s Store }

func (r storeReader) Samples(key, from, to int, buf []float64) []float64 {
	return r.s.Intervals(Ref(key), from, to, buf)
}
