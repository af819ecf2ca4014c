package stattest

import "math"

// Binom is scipy.special.binom(n, k) for whole n >= 0 and k whose smaller
// side, min(k, n-k), is under 20: the multiplication formula of scipy's
// orthogonal_eval.pxd, in its order of operations (the only case the exact
// Mann-Whitney distribution needs: a sample of 8 values or fewer). Other
// arguments give NaN.
func Binom(n, k float64) float64 {
	if n < 0 || k < 0 || k != math.Floor(k) || n != math.Floor(n) {
		return math.NaN()
	}
	kx := k
	if kx > n/2 && n > 0 {
		kx = n - kx // symmetry
	}
	if kx < 0 || kx >= 20 {
		return math.NaN()
	}
	num, den := 1.0, 1.0
	for i := 1; i <= int(kx); i++ {
		num *= float64(i) + n - kx
		den *= float64(i)
		if math.Abs(num) > 1e50 {
			num /= den
			den = 1.0
		}
	}
	return num / den
}
