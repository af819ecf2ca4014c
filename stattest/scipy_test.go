package stattest

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// scipyGoldens is ../testdata/diff/scipy.json, written by scipy_goldens.py
// there with SciPy 1.10 (Debian's python3-scipy).
type scipyGoldens struct {
	SciPy        string `json:"scipy"`
	MannWhitneyU []struct {
		X, Y      []float64
		Statistic float64 `json:"statistic"`
		PValue    float64 `json:"pvalue"`
	} `json:"mannwhitneyu"`
	Wilcoxon []struct {
		X, Y      []float64
		Statistic float64 `json:"statistic"`
		PValue    float64 `json:"pvalue"`
	} `json:"wilcoxon"`
	Ndtr []struct {
		X    float64 `json:"x"`
		Ndtr float64 `json:"ndtr"`
		SF   float64 `json:"sf"`
	} `json:"ndtr"`
	Binom []struct {
		N, K  float64
		Binom float64 `json:"binom"`
	} `json:"binom"`
}

func loadGoldens(t *testing.T) *scipyGoldens {
	t.Helper()
	raw, err := os.ReadFile("../testdata/diff/scipy.json")
	if err != nil {
		t.Fatal(err)
	}
	var g scipyGoldens
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	return &g
}

// pTolerance is the largest relative difference from SciPy's p-values
// accepted: a last-bit difference of erfc (Go's against cephes'), or of
// the exact distribution's counts past 2^53 (exact integers here, SciPy's
// float sums there).
const pTolerance = 1e-13

// relErr is |got - want| / |want| (0 when equal, NaN on both sides too).
func relErr(got, want float64) float64 {
	if got == want || (math.IsNaN(got) && math.IsNaN(want)) {
		return 0
	}
	return math.Abs(got-want) / math.Abs(want)
}

// TestSciPyMannWhitneyU compares every golden case's statistic (exactly)
// and p-value (to pTolerance) with scipy.stats.mannwhitneyu's.
func TestSciPyMannWhitneyU(t *testing.T) {
	g := loadGoldens(t)
	worst, exact := 0.0, 0
	for i, c := range g.MannWhitneyU {
		res, err := MannWhitneyU(c.X, c.Y)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if res.Statistic != c.Statistic {
			t.Errorf("case %d (n=%d,%d): U1 %v, scipy %v", i, len(c.X), len(c.Y), res.Statistic, c.Statistic)
		}
		e := relErr(res.PValue, c.PValue)
		if e > pTolerance {
			t.Errorf("case %d (n=%d,%d, %s): p %v, scipy %v (relative error %.3g)", i, len(c.X), len(c.Y), res.Method, res.PValue, c.PValue, e)
		}
		if e == 0 {
			exact++
		}
		worst = max(worst, e)
	}
	t.Logf("mannwhitneyu: %d cases against SciPy %s, %d bit for bit, max relative error of p %.3g", len(g.MannWhitneyU), g.SciPy, exact, worst)
}

// TestSciPyWilcoxon compares every golden case with scipy.stats.wilcoxon's.
func TestSciPyWilcoxon(t *testing.T) {
	g := loadGoldens(t)
	worst, exact := 0.0, 0
	for i, c := range g.Wilcoxon {
		res, err := Wilcoxon(c.X, c.Y)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if res.Statistic != c.Statistic {
			t.Errorf("case %d (n=%d): T %v, scipy %v", i, len(c.X), res.Statistic, c.Statistic)
		}
		e := relErr(res.PValue, c.PValue)
		if e > pTolerance {
			t.Errorf("case %d (n=%d, %s): p %v, scipy %v (relative error %.3g)", i, len(c.X), res.Method, res.PValue, c.PValue, e)
		}
		if e == 0 {
			exact++
		}
		worst = max(worst, e)
	}
	t.Logf("wilcoxon: %d cases against SciPy %s, %d bit for bit, max relative error of p %.3g", len(g.Wilcoxon), g.SciPy, exact, worst)
}

func TestSciPyNormalAndBinom(t *testing.T) {
	g := loadGoldens(t)
	for _, c := range g.Ndtr {
		if e := relErr(ndtr(c.X), c.Ndtr); e > pTolerance {
			t.Errorf("ndtr(%v) = %v, scipy %v", c.X, ndtr(c.X), c.Ndtr)
		}
		if e := relErr(NormSF(c.X), c.SF); e > pTolerance {
			t.Errorf("NormSF(%v) = %v, scipy %v", c.X, NormSF(c.X), c.SF)
		}
	}
	for _, c := range g.Binom {
		if got := Binom(c.N, c.K); got != c.Binom {
			t.Errorf("Binom(%v, %v) = %v, scipy %v", c.N, c.K, got, c.Binom)
		}
	}
}
