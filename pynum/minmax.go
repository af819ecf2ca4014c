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
	if m.isNaN {
		return
	}
	for _, x := range xs {
		switch {
		case math.IsNaN(x):
			m.lo, m.hi, m.isNaN = x, x, true
			return
		case !m.seen:
			m.lo, m.hi, m.seen = x, x, true
		case x < m.lo:
			m.lo = x
		case x > m.hi:
			m.hi = x
		}
	}
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
