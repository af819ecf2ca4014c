package stattest

import (
	"errors"
	"math"
	"testing"
)

// TestRefusals: what SciPy raises on is an error here, and Wilcoxon's
// all-zero differences are told apart.
func TestRefusals(t *testing.T) {
	if _, err := MannWhitneyU(nil, []float64{1}); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty x: %v", err)
	}
	if _, err := MannWhitneyU([]float64{1, math.NaN()}, []float64{1}); !errors.Is(err, ErrNaN) {
		t.Errorf("NaN: %v", err)
	}
	if _, err := Wilcoxon([]float64{1, 2}, []float64{1}); !errors.Is(err, ErrLengths) {
		t.Errorf("lengths: %v", err)
	}
	if _, err := Wilcoxon(nil, nil); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty: %v", err)
	}
	if _, err := Wilcoxon([]float64{1, 2, 3}, []float64{1, 2, 3}); !errors.Is(err, ErrAllZero) {
		t.Errorf("all zero: %v", err)
	}
	// One zero difference among others: the normal approximation over the
	// nonzero ones (SciPy warns and goes on).
	res, err := Wilcoxon([]float64{1, 2, 3, 4}, []float64{1, 1, 1, 1})
	if err != nil || res.Method != Asymptotic {
		t.Errorf("a zero difference: %+v, %v", res, err)
	}
}

// TestRankdata is scipy.stats.rankdata's average ranks.
func TestRankdata(t *testing.T) {
	got := Rankdata([]float64{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5})
	want := []float64{4.5, 1.5, 6, 1.5, 8, 11, 3, 10, 8, 4.5, 8}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Rankdata = %v, want %v", got, want)
		}
	}
	if tieTerm([]float64{1, 1, 2, 3, 3, 3}) != (8-2)+(27-3) {
		t.Errorf("tieTerm: %d", tieTerm([]float64{1, 1, 2, 3, 3, 3}))
	}
}
