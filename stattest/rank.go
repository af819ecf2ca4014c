package stattest

import (
	"cmp"
	"slices"
)

// Rankdata is scipy.stats.rankdata(xs) (method "average"): each value's
// rank, 1 for the least, tied values sharing the mean of their ranks. Ties
// are equality (-0 ties +0); xs must hold no NaN.
func Rankdata(xs []float64) []float64 {
	ranks := make([]float64, len(xs))
	for _, g := range tieGroups(xs) {
		// scipy: .5 * (count[dense] + count[dense - 1] + 1)
		r := .5 * float64(g.end+g.start+1)
		for _, i := range g.idx {
			ranks[i] = r
		}
	}
	return ranks
}

// tieGroup is a run of equal values in sorted order: positions [start, end)
// and the indices of the values in xs.
type tieGroup struct {
	start, end int
	idx        []int
}

// tieGroups sorts xs's indices by value and cuts them into runs of equal
// values, least first.
func tieGroups(xs []float64) []tieGroup {
	order := make([]int, len(xs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(xs[a], xs[b]) })
	var groups []tieGroup
	for start := 0; start < len(order); {
		end := start + 1
		for end < len(order) && xs[order[end]] == xs[order[start]] {
			end++
		}
		groups = append(groups, tieGroup{start: start, end: end, idx: order[start:end]})
		start = end
	}
	return groups
}

// tieTerm is sum(t**3 - t) over the sizes t of the groups of tied values:
// scipy's _tie_term for Mann-Whitney, and the repeats' correction of
// Wilcoxon's variance (twice this, as integers).
func tieTerm(xs []float64) int64 {
	var s int64
	for _, g := range tieGroups(xs) {
		t := int64(g.end - g.start)
		s += t*t*t - t
	}
	return s
}

// hasTies says whether two values of xs are equal.
func hasTies(xs []float64) bool {
	s := slices.Clone(xs)
	slices.Sort(s)
	for i := 1; i < len(s); i++ {
		if s[i] == s[i-1] {
			return true
		}
	}
	return false
}
