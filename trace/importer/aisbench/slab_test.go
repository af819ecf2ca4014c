package aisbench

import (
	"math"
	"slices"
	"sync"
	"testing"
)

// TestSlab: every copy holds tp's bits in memory of its own (appending to
// one never writes into the next), whatever the database's size; arrays
// larger than an eighth of the slab's are copied apart.
func TestSlab(t *testing.T) {
	for _, dbBytes := range []int64{0, 1000, 8 * minSlabFloats * 3, 8 * maxSlabFloats * 20} {
		s := newSlab(dbBytes)
		if s.size < minSlabFloats || s.size > maxSlabFloats {
			t.Fatalf("db %d: arrays of %d floats", dbBytes, s.size)
		}
		var outs, wants [][]float64
		for i, total := 0, int64(0); total < min(max(dbBytes, 1<<20), 64<<20); i++ {
			n := 1 + (i*7919)%(s.size/8)
			tp := make([]float64, n)
			for j := range tp {
				tp[j] = math.Float64frombits(uint64(i)<<32 | uint64(j))
			}
			out := s.copyOf(tp)
			if &out[0] == &tp[0] {
				t.Fatalf("db %d: a copy of %d floats is tp itself", dbBytes, n)
			}
			if len(out) != n || cap(out) != n {
				t.Fatalf("db %d: a copy of %d floats has length %d, capacity %d", dbBytes, n, len(out), cap(out))
			}
			outs, wants = append(outs, out), append(wants, slices.Clone(tp))
			total += int64(8 * n)
		}
		for i := range outs {
			_ = append(outs[i], -1) // must not write into the clone after it
		}
		for i := range outs {
			if !slices.Equal(outs[i], wants[i]) {
				t.Fatalf("db %d: copy %d of %d changed", dbBytes, i, len(outs))
			}
		}
		big := make([]float64, s.size/8+1)
		big[0] = 1
		if out := s.copyOf(big); &out[0] == &big[0] || cap(out) != len(big) || out[0] != 1 {
			t.Errorf("db %d: an array of %d floats (arrays of %d) was not copied apart", dbBytes, len(big), s.size)
		}
		if out := s.copyOf(nil); out != nil {
			t.Errorf("db %d: a copy of nil is %v", dbBytes, out)
		}
		if out := s.copyOf([]float64{}); out == nil || len(out) != 0 {
			t.Errorf("db %d: a copy of an empty array is %#v, want one, empty", dbBytes, out)
		}
	}
}

// TestSlabTouchesAhead: the arrays after the first reach the prefetcher
// touched, and no more arrays are made than the database's bytes allow,
// plus one.
func TestSlabTouchesAhead(t *testing.T) {
	const dbBytes = minSlabDB
	s := newSlab(dbBytes)
	if s.size != minSlabFloats {
		t.Fatalf("arrays of %d floats for %d bytes, want %d", s.size, dbBytes, minSlabFloats)
	}
	var mu sync.Mutex
	var touched []*float64
	s.touch = func(c []float64) {
		touchPages(c)
		mu.Lock()
		touched = append(touched, &c[0])
		mu.Unlock()
	}
	var arrays []*float64
	for range 40 { // 40 arrays' worth: more than the database holds (16)
		if len(s.cur) == 0 {
			s.cur = s.take()
			arrays = append(arrays, &s.cur[0])
		}
		s.cur = s.cur[:0]
	}
	mu.Lock()
	defer mu.Unlock()
	for i, a := range arrays[1:min(len(arrays), 4)] {
		if !slices.Contains(touched, a) {
			t.Errorf("array %d came untouched", i+1)
		}
	}
	if made := len(arrays); made < 40 {
		t.Fatalf("%d arrays for 40 takes", made)
	}
	// Past the database's bytes, take makes arrays one at a time, with
	// none touched ahead.
	if n := len(touched); n > dbBytes/(8*minSlabFloats) {
		t.Errorf("%d arrays touched ahead for a database of %d arrays' bytes", n, dbBytes/(8*minSlabFloats))
	}
}

// TestSlabSmallDatabase: a database below minSlabDB (or a sparse one) gets
// no arrays: each copy is of its own.
func TestSlabSmallDatabase(t *testing.T) {
	s := newSlab(minSlabDB - 1)
	tp := []float64{1, 2, 3}
	a, b := s.copyOf(tp), s.copyOf(tp)
	if &a[0] == &tp[0] || &a[0] == &b[0] || cap(a) != 3 || !slices.Equal(a, tp) {
		t.Errorf("copies %v %v of %v share memory or differ", a, b, tp)
	}
	if s.cur != nil || s.next != nil {
		t.Errorf("a slab of a small database made arrays")
	}
}
