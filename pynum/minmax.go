package pynum

import "math"

// MinMax is np.min and np.max of samples added in order, piece by piece:
// the first NaN is both (numpy's NaN wins), and NaN when none was added.
type MinMax struct {
	lo, hi      float64
	seen, isNaN bool
}

// Add takes xs after the samples added so far.
func (m *MinMax) Add(xs []float64) {
	if m.isNaN || len(xs) == 0 {
		return
	}
	if !m.seen {
		m.lo, m.hi, m.seen = xs[0], xs[0], true
	}
	// In locals, not m's fields: the loop then keeps them in registers.
	lo, hi := m.lo, m.hi
	for _, x := range xs {
		switch {
		case x < lo:
			lo = x
		case x > hi:
			hi = x
		case math.IsNaN(x): // which neither comparison takes
			m.lo, m.hi, m.isNaN = x, x, true
			return
		}
	}
	m.lo, m.hi = lo, hi
}

// Result is the minimum and the maximum.
func (m *MinMax) Result() (lo, hi float64) {
	if !m.seen && !m.isNaN {
		return math.NaN(), math.NaN()
	}
	return m.lo, m.hi
}

// NumpyMin and NumpyMax return np.min/np.max: NaN wins, as in numpy.
func NumpyMin(xs []float64) float64 {
	var m MinMax
	m.Add(xs)
	lo, _ := m.Result()
	return lo
}

// NumpyMax is the maximum counterpart of NumpyMin.
func NumpyMax(xs []float64) float64 {
	var m MinMax
	m.Add(xs)
	_, hi := m.Result()
	return hi
}
