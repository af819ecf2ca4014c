package stattest

import "math"

// maxLog is cephes' MAXLOG, log(2^1024).
const maxLog = 7.09782712893383996843e2

// NormSF is scipy.stats.norm.sf(z): the standard normal's upper tail,
// scipy.special.ndtr(-z) as cephes computes it (erf near 0, erfc beyond).
func NormSF(z float64) float64 { return ndtr(-z) }

// ndtr is cephes' ndtr: the standard normal's lower tail at a.
func ndtr(a float64) float64 {
	if math.IsNaN(a) {
		return math.NaN()
	}
	x := a * math.Sqrt2 / 2
	z := math.Abs(x)
	if z < math.Sqrt2/2 {
		return 0.5 + 0.5*math.Erf(x)
	}
	y := 0.0
	if -z*z >= -maxLog { // cephes' erfc underflows to 0 past exp(-MAXLOG)
		y = 0.5 * math.Erfc(z)
	}
	if x > 0 {
		y = 1.0 - y
	}
	return y
}
