// Package samples keeps the samples a report is computed from and computes
// statistics over them: each request's time points in a Store, the runs of
// samples a metric pools (a request's intervals, say) as Spans read from
// where they lie, and named statistics over a Pool of spans with numpy's
// numerics (package pynum), taken in one or a few passes without gathering
// the pool into one array.
//
// Time points are most of what a large run keeps: a Store holds them and
// hands them back bit for bit. Heap is the plain reference; Packed keeps
// each request as t0 and 4-byte steps where that is exact, in slabs that
// can be mapped outside the Go heap, and is tested against Heap
// (TestStores). Spans and pools read through the small Reader interface, so
// that a metric never knows how its samples are stored.
package samples

import (
	"math"
	"slices"

	"github.com/sseaudit/sseaudit/pynum"
)

// A Store keeps each request's time points (seconds, t0 first, as AISBench's
// client records them) and hands them back exactly as added. It owns its
// memory until Release: nothing read from it may be kept past that.
type Store interface {
	// Add keeps a request's time points and returns where they are. The
	// caller gives them up (a record's never change once made): the store
	// may keep them as they are instead of a copy.
	Add(timePoints []float64) Ref
	// Points is the number of time points of ref.
	Points(ref Ref) int
	// TimePoints decodes ref's time points into buf's memory (reused).
	TimePoints(ref Ref, buf []float64) []float64
	// Intervals decodes ref's intervals from..to, np.diff(tp[1:])[from:to],
	// into buf's memory (reused), with the subtractions np.diff does on the
	// time points: bit for bit what an array of them would hold.
	Intervals(ref Ref, from, to int, buf []float64) []float64
	// Release frees the store's memory; the store is not used after it.
	Release()
}

// Ref is where a Store keeps one request's time points.
type Ref uint32

// Heap keeps every request's time points as the float64 values added: the
// reference the other stores are tested against.
type Heap struct {
	points [][]float64
}

// NewHeap returns an empty Heap store.
func NewHeap() *Heap { return &Heap{} }

func (h *Heap) Add(tp []float64) Ref {
	h.points = append(h.points, slices.Clip(tp))
	return Ref(len(h.points) - 1)
}

func (h *Heap) Points(ref Ref) int { return len(h.points[ref]) }

func (h *Heap) TimePoints(ref Ref, buf []float64) []float64 {
	return append(buf[:0], h.points[ref]...)
}

func (h *Heap) Intervals(ref Ref, from, to int, buf []float64) []float64 {
	if from == to {
		return buf[:0]
	}
	return diff(h.points[ref][from+1:to+2], buf)
}

// diff is np.diff(tp) in buf's memory: interval j of a request is
// tp[j+2] - tp[j+1], so its intervals from..to are diff(tp[from+1:to+2]).
func diff(tp []float64, buf []float64) []float64 {
	out := slices.Grow(buf[:0], len(tp)-1)[:len(tp)-1]
	for i := range out {
		out[i] = tp[i+1] - tp[i]
	}
	return out
}

func (h *Heap) Release() { h.points = nil }

// packTimePoints packs time points that are pynum.SecondsFromNanos of whole
// nanoseconds (as replay makes them from arrival times), never decreasing,
// no step longer than 2^32-1 ns (4.3 s): t0 in nanoseconds and 4 bytes a
// step, which decode to the same float64 values bit for bit (each point is
// checked), into dst's memory (its length at least len(tp)-1). ok is false
// for any other list, NaN, -0 or an empty one.
func packTimePoints(tp []float64, dst []uint32) (t0Ns int64, ok bool) {
	var prev int64
	for i, t := range tp {
		if !(math.Abs(t) < 9e9) { // t*1e9 within int64
			return 0, false
		}
		ns := int64(math.Round(t * 1e9))
		if math.Float64bits(pynum.SecondsFromNanos(ns)) != math.Float64bits(t) {
			return 0, false
		}
		if i == 0 {
			t0Ns = ns
		} else {
			step := ns - prev
			if step < 0 || step > math.MaxUint32 {
				return 0, false
			}
			dst[i-1] = uint32(step)
		}
		prev = ns
	}
	return t0Ns, len(tp) > 0
}
