package audit

import (
	"runtime"
	"sync/atomic"
)

// stepSlabs hands out the memory of the Builder's packed time points: slabs
// of stepsSlab entries, taken one record after another (no allocation and
// no size-class rounding a request). The first heapSteps entries are in the
// Go heap; past them the slabs are mapped outside it where the platform
// allows (mapSteps): the collector lets its heap grow to twice what is live
// (GOGC 100), and the packed time points, 4 bytes an ITL sample, are most
// of what a large report keeps live, so outside the heap they are resident
// once instead of counted twice. A mapped slab is unmapped by a cleanup
// once nothing refers to its slabOwner: every record holding steps in it
// does, and reads them only through its methods, which keep it alive.
type stepSlabs struct {
	cur   []uint32   // the current slab: len is what is handed out
	owner *slabOwner // of cur when mapped, else nil
	total int        // entries in slabs so far
}

// slabOwner stands for one mapped slab: its cleanup unmaps it. 16 bytes,
// so that the allocator never puts it in a block shared with other small
// objects (runtime.AddCleanup could run late then).
type slabOwner struct {
	entries, bytes int
}

// stepsSlab is the length of a slab: 256 KB.
const stepsSlab = 1 << 16

// heapSteps is how many entries go in the Go heap before slabs are mapped
// (1 MB, a trace of about 250,000 ITL samples): small traces, tests and
// fuzzing, never map, so that their many short-lived Builders do not hold
// mapped memory until a collection runs their cleanups.
var heapSteps = 1 << 18

// mappedSlabs counts the slabs mapped and not yet unmapped (the tests see
// that they are unmapped).
var mappedSlabs atomic.Int64

// free is room for n entries at the end of the current slab, a new slab
// begun when the current one is too short, and the owner of its memory.
// commit(n) then hands the first n out.
func (s *stepSlabs) free(n int) ([]uint32, *slabOwner) {
	if cap(s.cur)-len(s.cur) < n {
		size := max(stepsSlab, n)
		s.cur, s.owner = nil, nil
		if s.total >= heapSteps {
			if mem, unmap, ok := mapSteps(size); ok {
				mappedSlabs.Add(1)
				s.cur, s.owner = mem[:0], &slabOwner{entries: size, bytes: 4 * size}
				runtime.AddCleanup(s.owner, func(unmap func()) {
					unmap()
					mappedSlabs.Add(-1)
				}, unmap)
			}
		}
		if s.cur == nil {
			s.cur = make([]uint32, 0, size)
		}
		s.total += size
	}
	return s.cur[len(s.cur):cap(s.cur)], s.owner
}

func (s *stepSlabs) commit(n int) { s.cur = s.cur[:len(s.cur)+n] }
