package stattest

import (
	"errors"
	"math"
	"math/big"
	"slices"

	"github.com/sseaudit/sseaudit/pynum"
)

// Method says how a p-value was computed.
type Method string

const (
	Exact      Method = "exact"      // the statistic's exact null distribution
	Asymptotic Method = "asymptotic" // the normal approximation
)

// Result is a test's outcome: SciPy's statistic and two-sided p-value.
type Result struct {
	// Statistic is SciPy's: U of the first sample (Mann-Whitney), or
	// min(R+, R-) (Wilcoxon).
	Statistic float64
	PValue    float64
	Method    Method
}

// ErrEmpty is the error of a test given an empty sample (SciPy raises).
var ErrEmpty = errors.New("stattest: a sample is empty")

// ErrNaN is the error of a test given a NaN (SciPy raises).
var ErrNaN = errors.New("stattest: a sample holds NaN")

// MannWhitneyU is scipy.stats.mannwhitneyu(x, y, alternative="two-sided")
// with SciPy 1.10's defaults (use_continuity=True, method="auto"): exact
// when either sample has 8 values or fewer and no two values of x and y
// together are equal, else asymptotic: z = (U - n1*n2/2 - 1/2) / s with s
// corrected for ties, p = 2*sf(z), clipped to 1. U is max(U1, U2); the
// statistic returned is U1, x's.
func MannWhitneyU(x, y []float64) (Result, error) {
	n1, n2 := len(x), len(y)
	if n1 == 0 || n2 == 0 {
		return Result{}, ErrEmpty
	}
	if slices.ContainsFunc(x, math.IsNaN) || slices.ContainsFunc(y, math.IsNaN) {
		return Result{}, ErrNaN
	}
	xy := slices.Concat(x, y)
	method := Asymptotic
	if !(n1 > 8 && n2 > 8) && !hasTies(xy) {
		method = Exact
	}
	ranks := Rankdata(xy)
	r1 := pynum.NumpySum(ranks[:n1])
	u1 := r1 - float64(n1)*float64(n1+1)/2
	u2 := float64(n1)*float64(n2) - u1
	u := max(u1, u2)
	var p float64
	if method == Exact {
		p = mwuSF(int(u), n1, n2)
	} else {
		p = NormSF(mwuZ(u, n1, n2, ranks))
	}
	p *= 2
	p = min(max(p, 0), 1) // np.clip
	return Result{Statistic: u1, PValue: p, Method: method}, nil
}

// mwuZ is scipy's _get_mwu_z with the continuity correction.
func mwuZ(u float64, n1, n2 int, ranks []float64) float64 {
	n1n2 := float64(n1) * float64(n2)
	mu := n1n2 / 2
	n := float64(n1 + n2)
	tie := float64(tieTerm(ranks))
	s := math.Sqrt(n1n2 / 12 * ((n + 1) - tie/(n*(n-1))))
	numerator := u - mu
	numerator -= 0.5
	return numerator / s
}

// mwuSF is scipy's _MWU.sf(u, m, n): P(U >= u) under the null, as the sum
// of the probabilities of k = 0 .. m*n-u (the distribution is symmetric),
// each the number of arrangements with U = k over binom(m+n, m), summed in
// order (np.cumsum).
func mwuSF(u, m, n int) float64 {
	k := m*n - u
	counts := mwuCounts(m, n, k)
	b := Binom(float64(m+n), float64(m))
	var cdf float64
	for _, c := range counts {
		cdf += c / b
	}
	return cdf
}

// mwuCounts are the numbers of arrangements of m x's and n y's with U = 0
// .. k: the coefficients of the Gaussian binomial [m+n, m]_q, the product
// over i = 1..s of (1 - q^(l+i)) / (1 - q^i) with s = min(m, n), l =
// max(m, n), truncated at q^k. They are exact integers (machine words
// while binom(m+n, m) fits in one, else big.Int), rounded once to float64:
// SciPy's recursion adds the same integers in float64, exactly while they
// stay under 2^53.
func mwuCounts(m, n, k int) []float64 {
	s, l := min(m, n), max(m, n)
	out := make([]float64, k+1)
	if Binom(float64(m+n), float64(s)) < 1<<63 {
		c := make([]uint64, k+1) // arithmetic mod 2^64: the final values fit
		c[0] = 1
		for i := 1; i <= s; i++ {
			for j := k; j >= l+i; j-- {
				c[j] -= c[j-(l+i)]
			}
			for j := i; j <= k; j++ {
				c[j] += c[j-i]
			}
		}
		for j, v := range c {
			out[j] = float64(v)
		}
		return out
	}
	c := make([]big.Int, k+1)
	c[0].SetInt64(1)
	for i := 1; i <= s; i++ {
		for j := k; j >= l+i; j-- {
			c[j].Sub(&c[j], &c[j-(l+i)])
		}
		for j := i; j <= k; j++ {
			c[j].Add(&c[j], &c[j-i])
		}
	}
	for j := range c {
		out[j], _ = new(big.Float).SetInt(&c[j]).Float64()
	}
	return out
}
