package aisbench

import "slices"

// A slab holds the prefetched databases' time points: copies of the
// decoded arrays, one after another, in arrays of minSlabFloats or more,
// each touched page by page by a goroutine of its own before the
// prefetcher writes into it.
//
// On this project's machines (virtual machines) the first touch of a page
// of fresh memory costs 4 to 25 µs: the time points of a 100,000-request
// run, 185 MB, took the prefetcher, the slower of the two readers of
// `audit check`, longer to fault in than to read. The slab's arrays are
// faulted in on the other core, which waits for the prefetcher once the
// details are read. The copies take a few milliseconds.
//
// A slab of the arrays' own memory lives as long as one of the time points
// carved from it does (an audit keeps them all).
type slab struct {
	cur   []float64         // what is left of the array in use
	next  chan []float64    // the next array, touched, when one is on its way
	left  int64             // the bytes the slab may still make arrays of
	size  int               // the length of the arrays it makes
	touch func(c []float64) // touches c; the test counts the touches
}

const (
	// minSlabFloats and maxSlabFloats bound a slab's arrays: 256 KB and
	// 16 MB. Between the two, an array is a sixteenth of the database.
	minSlabFloats = 32 << 10
	maxSlabFloats = 2 << 20
)

// newSlab returns a slab for a database of dbBytes bytes: its arrays come
// to at most that (time points are never more than the blobs holding
// them) and a last array, so that a small database never costs a large
// array.
func newSlab(dbBytes int64) *slab {
	size := int(min(max(dbBytes/8/16, minSlabFloats), maxSlabFloats))
	s := &slab{left: dbBytes, size: size, touch: touchPages}
	if dbBytes < minSlabDB {
		s.left = -1 // copies of their own (see copyOf)
	} else {
		s.ahead() // the first array is touched while the database opens
	}
	return s
}

// minSlabDB is the smallest database (bytes stored) whose time points go
// into a slab: its arrays, two at least (one touched ahead), are then at
// most an eighth of the database; a smaller one, or a sparse one, is not
// worth them (a run may name many).
const minSlabDB = 16 * 8 * minSlabFloats

// copyOf is a copy of tp, its capacity its length: carved from the slab,
// or of its own when tp is more than an eighth of an array (it would waste
// the rest of one) or the database is too small for a slab. An empty tp is
// itself: nil or not, as it was.
func (s *slab) copyOf(tp []float64) []float64 {
	if len(tp) == 0 {
		return tp
	}
	if len(tp) > s.size/8 || s.left < 0 {
		return slices.Clip(slices.Clone(tp))
	}
	if len(s.cur) < len(tp) {
		s.cur = s.take()
	}
	out := s.cur[:len(tp):len(tp)]
	s.cur = s.cur[len(tp):]
	copy(out, tp)
	return out
}

// take is the next array, and the one after it set on its way (while the
// slab may make one).
func (s *slab) take() []float64 {
	var c []float64
	if s.next != nil {
		c = <-s.next
		s.next = nil
	} else {
		c = make([]float64, s.size)
		s.left -= int64(8 * s.size)
	}
	if s.left > 0 {
		s.ahead()
	}
	return c
}

// ahead sets the next array on its way.
func (s *slab) ahead() {
	s.left -= int64(8 * s.size)
	next, size, touch := make(chan []float64, 1), s.size, s.touch
	go func() {
		a := make([]float64, size)
		touch(a)
		next <- a
	}()
	s.next = next
}

// touchPages writes every page of c (zero, as it holds), so that the
// kernel backs it.
func touchPages(c []float64) {
	const perPage = 4096 / 8
	for i := 0; i < len(c); i += perPage {
		c[i] = 0
	}
}
