package stattest

import (
	"errors"
	"math"
	"slices"

	"github.com/sseaudit/sseaudit/pynum"
)

// ErrAllZero is Wilcoxon's error when every difference is 0: SciPy raises
// ("zero_method 'wilcox' and 'pratt' do not work if x - y is zero for all
// elements"); nothing changed, and there is nothing to test.
var ErrAllZero = errors.New("stattest: every paired difference is 0")

// ErrLengths is Wilcoxon's error for samples of different lengths.
var ErrLengths = errors.New("stattest: the paired samples differ in length")

// Wilcoxon is scipy.stats.wilcoxon(x, y) with SciPy 1.10's defaults
// (zero_method="wilcox", correction=False, alternative="two-sided",
// method="auto") on the differences d = x - y: exact for 50 differences or
// fewer when none is 0 (R+ truncated to an integer, as SciPy does when
// |d| has ties), else the normal approximation over the nonzero
// differences, its variance corrected for tied ranks. The statistic is
// min(R+, R-).
func Wilcoxon(x, y []float64) (Result, error) {
	if len(x) != len(y) {
		return Result{}, ErrLengths
	}
	if len(x) == 0 {
		return Result{}, ErrEmpty
	}
	d := make([]float64, len(x))
	for i := range x {
		d[i] = x[i] - y[i]
	}
	if slices.ContainsFunc(d, math.IsNaN) {
		return Result{}, ErrNaN
	}
	method := Asymptotic
	if len(d) <= 50 {
		method = Exact
	}
	zeros := 0
	for _, v := range d {
		if v == 0 {
			zeros++
		}
	}
	if zeros > 0 && method == Exact {
		method = Asymptotic
	}
	if method == Asymptotic {
		if zeros == len(d) {
			return Result{}, ErrAllZero
		}
		d = slices.DeleteFunc(d, func(v float64) bool { return v == 0 })
	}
	count := len(d)
	abs := make([]float64, count)
	for i, v := range d {
		abs[i] = math.Abs(v)
	}
	r := Rankdata(abs)
	plus, minus := make([]float64, count), make([]float64, count)
	for i, v := range d {
		if v > 0 {
			plus[i] = r[i]
		}
		if v < 0 {
			minus[i] = r[i]
		}
	}
	rPlus, rMinus := pynum.NumpySum(plus), pynum.NumpySum(minus)
	t := min(rPlus, rMinus)
	if method == Asymptotic {
		c := float64(count)
		mn := c * (c + 1.) * 0.25
		se := c * (c + 1.) * (2.*c + 1.)
		if rep := tieTerm(r); rep != 0 { // find_repeats: sum(t*(t*t-1))
			se -= 0.5 * float64(rep)
		}
		se = math.Sqrt(se / 24)
		z := (t - mn - 0) / se
		p := 2. * NormSF(math.Abs(z))
		return Result{Statistic: t, PValue: p, Method: Asymptotic}, nil
	}
	pmf := wilcoxonPMF(count)
	k := int(rPlus) // SciPy's int(r_plus)
	p := 1.0
	if k != (len(pmf)-1)/2 {
		less := pynum.NumpySum(pmf[:k+1])
		greater := pynum.NumpySum(pmf[k:])
		p = 2 * min(greater, less)
	}
	p = min(max(p, 0), 1)
	return Result{Statistic: t, PValue: p, Method: Exact}, nil
}

// wilcoxonPMF is scipy's _get_wilcoxon_distr(n): the probabilities of R+
// = 0 .. n(n+1)/2, built by halves as SciPy builds them.
func wilcoxonPMF(n int) []float64 {
	c := []float64{1}
	for k := 1; k <= n; k++ {
		prev := c
		c = make([]float64, k*(k+1)/2+1)
		m := len(prev)
		for i, v := range prev {
			c[i] = v * 0.5
		}
		off := len(c) - m
		for i, v := range prev {
			c[off+i] += v * 0.5
		}
	}
	return c
}
