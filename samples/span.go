package samples

import (
	"fmt"
	"math"

	"github.com/sseaudit/sseaudit/pynum"
)

// A Reader decodes the samples a span of its stands for: key's samples
// from..to (a request's intervals, say), into buf's memory, which is reused.
type Reader interface {
	Samples(key, from, to int, buf []float64) []float64
}

// Span is a run of samples: key's samples from..to as its Reader decodes
// them each time they are read, or values of its own. The intervals are the
// largest thing a report reads, one per ITL sample: decoded from a Store
// when read rather than kept as float64, they cost the statistics no memory
// of their own. A span is 32 bytes (a pool holds one a request, a request's
// facts four): values of its own are a Reader too, and key, from and to fit
// 32 bits (a request's index, a request's samples).
type Span struct {
	r        Reader // nil: empty; *ownValues: values of its own
	key      uint32
	from, to uint32
}

// ownValues are the values of spans made by Values, read in place.
type ownValues struct{ xs []float64 }

func (o *ownValues) Samples(_, from, to int, buf []float64) []float64 {
	return append(buf, o.xs[from:to]...)
}

// ReadSpan is key's samples from..to of r; key, from and to are at most
// math.MaxUint32.
func ReadSpan(r Reader, key, from, to int) Span {
	return Span{r: r, key: index32(key), from: index32(from), to: index32(to)}
}

// Values is a span of values held as they are.
func Values(xs []float64) Span {
	if len(xs) == 0 {
		return Span{}
	}
	return Span{r: &ownValues{xs: xs}, to: index32(len(xs))}
}

// index32 is i as a span's uint32, which every index of a request's samples,
// and every request's index, fits (a span of 2^32 values is 32 GiB).
func index32(i int) uint32 {
	if i < 0 || uint64(i) > math.MaxUint32 {
		panic(fmt.Sprintf("samples: span index %d out of range", i))
	}
	return uint32(i)
}

// Len is the number of samples.
func (s Span) Len() int { return int(s.to - s.from) }

// Sub is s[lo:hi].
func (s Span) Sub(lo, hi int) Span {
	if lo < 0 || lo > hi || hi > s.Len() {
		panic(fmt.Sprintf("samples: Sub(%d, %d) of a span of %d", lo, hi, s.Len()))
	}
	if lo == hi {
		return Span{}
	}
	return Span{r: s.r, key: s.key, from: s.from + uint32(lo), to: s.from + uint32(hi)}
}

// Own is the values of a span of values, nil for a read one.
func (s Span) Own() []float64 {
	if o, ok := s.r.(*ownValues); ok {
		return o.xs[s.from:s.to:s.to]
	}
	return nil
}

// Same says whether a and b are the same samples: the same key's of the same
// Reader, or the same piece of the same values; empty spans are all the same.
func (a Span) Same(b Span) bool {
	if a.Len() == 0 || b.Len() == 0 {
		return a.Len() == b.Len()
	}
	if ao, bo := a.Own(), b.Own(); ao != nil || bo != nil {
		return len(ao) == len(bo) && ao != nil && bo != nil && &ao[0] == &bo[0]
	}
	return a.r == b.r && a.key == b.key && a.from == b.from && a.to == b.to
}

// Read is the samples: its own values as they are, read ones decoded into
// *buf's memory (reused). Read only.
func (s Span) Read(buf *[]float64) []float64 {
	if s.Len() == 0 {
		return nil
	}
	if own := s.Own(); own != nil {
		return own
	}
	*buf = s.r.Samples(int(s.key), int(s.from), int(s.to), (*buf)[:0])
	return *buf
}

// Pool is a metric's samples in order: the concatenation of its spans (each
// request's intervals, say). Statistics read the samples span by span, so
// that a pool as long as ITL's is never gathered into one array, nor copied
// to be sorted.
type Pool []Span

// PoolOf is a pool of values held as they are.
func PoolOf(values []float64) Pool { return Pool{Values(values)} }

// Len is the number of samples.
func (p Pool) Len() int {
	n := 0
	for _, s := range p {
		n += s.Len()
	}
	return n
}

// Each calls fn with the samples of each non-empty span in order; fn must
// not keep them (a decoding buffer is reused).
func (p Pool) Each(fn func(xs []float64)) {
	var buf []float64
	for _, s := range p {
		if xs := s.Read(&buf); len(xs) > 0 {
			fn(xs)
		}
	}
}

// Mean is pynum.NumpyMean of the concatenation.
func (p Pool) Mean() float64 {
	var s pynum.Sum
	p.Each(s.Add)
	return s.Mean()
}

// MinMax is pynum.NumpyMin and NumpyMax of the concatenation: the first
// NaN, if any, is both; NaN for an empty pool.
func (p Pool) MinMax() (lo, hi float64) {
	var m pynum.MinMax
	p.Each(m.Add)
	return m.Result()
}

// Gather is the samples in one new array.
func (p Pool) Gather() []float64 {
	out := make([]float64, 0, p.Len())
	p.Each(func(xs []float64) { out = append(out, xs...) })
	return out
}
