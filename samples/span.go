package samples

import "github.com/sseaudit/sseaudit/pynum"

// A Reader decodes the samples a span of its stands for: key's samples
// from..to (a request's intervals, say), into buf's memory, which is reused.
type Reader interface {
	Samples(key, from, to int, buf []float64) []float64
}

// Span is a run of samples: key's samples from..to as its Reader decodes
// them each time they are read, or values of its own. The intervals are the
// largest thing a report reads, one per ITL sample: decoded from a Store
// when read rather than kept as float64, they cost the statistics no memory
// of their own.
type Span struct {
	r        Reader // nil: own
	key      int
	from, to int
	own      []float64
}

// ReadSpan is key's samples from..to of r.
func ReadSpan(r Reader, key, from, to int) Span { return Span{r: r, key: key, from: from, to: to} }

// Values is a span of values held as they are.
func Values(xs []float64) Span { return Span{own: xs} }

// Len is the number of samples.
func (s Span) Len() int {
	if s.r != nil {
		return s.to - s.from
	}
	return len(s.own)
}

// Sub is s[lo:hi].
func (s Span) Sub(lo, hi int) Span {
	if s.r != nil {
		return Span{r: s.r, key: s.key, from: s.from + lo, to: s.from + hi}
	}
	return Span{own: s.own[lo:hi:hi]}
}

// Own is the values of a span of values, nil for a read one.
func (s Span) Own() []float64 { return s.own }

// Same says whether a and b are the same samples: the same key's of the same
// Reader, or the same slice of the same array; empty spans are all the same.
func (a Span) Same(b Span) bool {
	if a.Len() == 0 || b.Len() == 0 {
		return a.Len() == b.Len()
	}
	if a.r != nil || b.r != nil {
		return a.r == b.r && a.key == b.key && a.from == b.from && a.to == b.to
	}
	return len(a.own) == len(b.own) && &a.own[0] == &b.own[0]
}

// Read is the samples: its own values as they are, read ones decoded into
// *buf's memory (reused). Read only.
func (s Span) Read(buf *[]float64) []float64 {
	if s.r == nil {
		return s.own
	}
	*buf = s.r.Samples(s.key, s.from, s.to, (*buf)[:0])
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
