// Package stattest holds the tests and intervals audit diff decides with,
// each one SciPy 1.10's to the letter, so that a p-value sseaudit prints is
// the one a reader gets from scipy.stats on the same numbers:
//
//   - MannWhitneyU is scipy.stats.mannwhitneyu(x, y, alternative="two-sided")
//     with its default method: the exact distribution of U when a sample has
//     8 values or fewer and no value is tied, else the normal approximation
//     with the tie correction and the continuity correction;
//   - Wilcoxon is scipy.stats.wilcoxon(x, y) with its defaults: the exact
//     distribution of the signed-rank sum for 50 differences or fewer and no
//     zero difference, else the normal approximation without zero
//     differences ("wilcox") and with the tie correction;
//   - NormSF is scipy.stats.norm.sf (cephes' ndtr), Binom is
//     scipy.special.binom on whole numbers, Rankdata is
//     scipy.stats.rankdata(method="average");
//   - MedianDeltaCI is a seeded percentile bootstrap of the relative change
//     of the median, over requests or over pairs of requests: the same input
//     gives the same interval, whatever the machine.
//
// The goldens in ../testdata/diff/scipy.json come from SciPy itself
// (scipy_goldens.py there); scipy_test.go compares every case.
package stattest
