package samples

import (
	"slices"

	"github.com/sseaudit/sseaudit/pynum"
)

// Packed keeps time points as t0 in nanoseconds and a 4-byte step from each
// point to the next wherever that decodes to the same float64 values bit
// for bit (arrival times in whole nanoseconds, as replay makes them), and
// the others as added. The steps go one request after another into slabs
// of slabEntries (no allocation and no size-class rounding a request); past
// the first mapAfter entries the slabs are mapped outside the Go heap where
// the platform allows: the collector lets its heap grow to twice what is
// live, and the steps, 4 bytes an ITL sample, are most of what a large
// report keeps live, so outside the heap they are resident once instead of
// counted twice. Release unmaps them; nothing else does.
type Packed struct {
	entries  []packedEntry
	slabs    []slab
	used     int // entries handed out in the last slab
	total    int // entries in every slab so far
	mapAfter int // entries in the Go heap before slabs are mapped; < 0: never
	floats   [][]float64
	mapped   int // slabs mapped and not yet unmapped
}

// packedEntry is where one request's time points are: n steps from off in
// slabs[slab] after t0Ns, or floats[off] when slab is -1.
type packedEntry struct {
	t0Ns int64
	slab int32
	off  uint32
	n    uint32
}

// slab is one run of steps: in the Go heap (unmap nil) or mapped.
type slab struct {
	steps []uint32
	unmap func()
}

// slabEntries is the length of a slab: 256 KB.
const slabEntries = 1 << 16

// DefaultMapAfter is how many entries a Packed store keeps in the Go heap
// before it maps slabs (1 MB, a trace of about 250,000 ITL samples): small
// traces, tests and fuzzing never map.
const DefaultMapAfter = 1 << 18

// NewPacked returns an empty Packed store that maps its slabs once it
// holds mapAfter entries (DefaultMapAfter; 0 maps every slab, a negative
// value none).
func NewPacked(mapAfter int) *Packed { return &Packed{mapAfter: mapAfter} }

// Mapped is the number of slabs mapped outside the Go heap and not yet
// unmapped.
func (p *Packed) Mapped() int { return p.mapped }

// Add packs tp when it packs, and keeps it as it is otherwise (an imported
// trace's float seconds): copying them doubled what `audit check` of a
// work_dir touched.
func (p *Packed) Add(tp []float64) Ref {
	ref := Ref(len(p.entries))
	n := max(len(tp)-1, 0)
	free := p.free(n)
	if t0Ns, ok := packTimePoints(tp, free); ok {
		p.entries = append(p.entries, packedEntry{t0Ns: t0Ns, slab: int32(len(p.slabs) - 1), off: uint32(p.used), n: uint32(n)})
		p.used += n
		return ref
	}
	p.entries = append(p.entries, packedEntry{slab: -1, off: uint32(len(p.floats))})
	p.floats = append(p.floats, slices.Clip(tp))
	return ref
}

// free is room for n entries at the end of the last slab, a new slab begun
// when the last one is too short.
func (p *Packed) free(n int) []uint32 {
	if len(p.slabs) == 0 || len(p.slabs[len(p.slabs)-1].steps)-p.used < n {
		size := max(slabEntries, n)
		var s slab
		if p.mapAfter >= 0 && p.total >= p.mapAfter {
			if mem, unmap, ok := mapSteps(size); ok {
				s = slab{steps: mem, unmap: unmap}
				p.mapped++
			}
		}
		if s.steps == nil {
			s.steps = make([]uint32, size)
		}
		p.slabs = append(p.slabs, s)
		p.used = 0
		p.total += size
	}
	last := p.slabs[len(p.slabs)-1].steps
	return last[p.used:]
}

// steps is e's steps (e packed).
func (p *Packed) steps(e packedEntry) []uint32 {
	return p.slabs[e.slab].steps[e.off : e.off+e.n : e.off+e.n]
}

func (p *Packed) Points(ref Ref) int {
	e := p.entries[ref]
	if e.slab < 0 {
		return len(p.floats[e.off])
	}
	return int(e.n) + 1
}

func (p *Packed) TimePoints(ref Ref, buf []float64) []float64 {
	e := p.entries[ref]
	if e.slab < 0 {
		return append(buf[:0], p.floats[e.off]...)
	}
	ns := e.t0Ns
	buf = append(buf[:0], pynum.SecondsFromNanos(ns))
	for _, step := range p.steps(e) {
		ns += int64(step)
		buf = append(buf, pynum.SecondsFromNanos(ns))
	}
	return buf
}

func (p *Packed) Intervals(ref Ref, from, to int, buf []float64) []float64 {
	e := p.entries[ref]
	if from == to {
		return buf[:0]
	}
	if e.slab < 0 {
		return diff(p.floats[e.off][from+1:to+2], buf)
	}
	steps := p.steps(e)
	ns := e.t0Ns
	for _, step := range steps[:from+1] {
		ns += int64(step)
	}
	prev := pynum.SecondsFromNanos(ns)
	steps = steps[from+1 : to+1]
	out := slices.Grow(buf[:0], len(steps))[:len(steps)]
	for i, step := range steps {
		ns += int64(step)
		t := pynum.SecondsFromNanos(ns)
		out[i] = t - prev
		prev = t
	}
	return out
}

// Release unmaps the mapped slabs and drops the rest.
func (p *Packed) Release() {
	for _, s := range p.slabs {
		if s.unmap != nil {
			s.unmap()
			p.mapped--
		}
	}
	*p = Packed{mapAfter: p.mapAfter, mapped: p.mapped}
}
