package audit

import (
	"fmt"
	"strings"
	"unicode"
)

// DefaultStats is AISBench's DEFAULT_STATS: the columns of <ds>.csv.
var DefaultStats = []string{"Average", "Min", "Max", "Median", "P75", "P90", "P99"}

// maxStats is AISBench's MAX_STATS_LEN.
const maxStats = 8

// ValidateStats applies AISBench's _validate_stats_list: keep the first 8, drop
// unknown names (Average, Min, Max, Median and P1..P99 are known, leading zeros
// allowed: "P05"), fall back to Average when nothing is left; duplicates
// collapse, because AISBench keys a dict by them. Warnings repeat AISBench's.
func ValidateStats(stats []string) (valid []string, warnings []string) {
	if len(stats) == 0 {
		stats = DefaultStats
	}
	if len(stats) > maxStats {
		warnings = append(warnings, fmt.Sprintf("Statistics list length exceeds %d! Only keeping the first %d statistic!", maxStats, maxStats))
		stats = stats[:maxStats]
	}
	seen := map[string]bool{}
	for _, s := range stats {
		if _, ok := statPercent(s); !ok {
			warnings = append(warnings, fmt.Sprintf("Unknown statistic: %s, will be ignored! Legal statistics examples: %s", s, pyListRepr(DefaultStats)))
			continue
		}
		if !seen[s] {
			seen[s] = true
			valid = append(valid, s)
		}
	}
	if len(valid) == 0 {
		warnings = append(warnings, "No valid statistics found, using 'Average' as default.")
		valid = []string{"Average"}
	}
	return valid, warnings
}

// statPercent says whether a statistic name is legal and, for Median and Pnn,
// which percentile it is (-1 for Average, Min and Max).
func statPercent(stat string) (percent int, ok bool) {
	switch stat {
	case "Average", "Min", "Max":
		return -1, true
	case "Median":
		return 50, true
	}
	// AISBench's pattern ^P(0*[1-9]\d{0,1})$ with Python's re: \d is any
	// Unicode decimal digit and $ also matches before one final newline.
	rest, found := strings.CutPrefix(stat, "P")
	if !found {
		return 0, false
	}
	rest = strings.TrimSuffix(rest, "\n")
	rest = strings.TrimLeft(rest, "0")
	runes := []rune(rest)
	if len(runes) == 0 || len(runes) > 2 || runes[0] < '1' || runes[0] > '9' {
		return 0, false
	}
	percent = int(runes[0] - '0')
	if len(runes) == 2 {
		d, ok := decimalDigit(runes[1])
		if !ok {
			return 0, false
		}
		percent = percent*10 + d
	}
	return percent, true
}

// decimalDigit is the value of a Unicode decimal digit (Python's \d and int()).
func decimalDigit(r rune) (int, bool) {
	if !unicode.Is(unicode.Nd, r) {
		return 0, false
	}
	// Unicode lays decimal digits out in contiguous runs of whole decades, each
	// starting at its zero, so the offset from the run's start, mod 10, is the value.
	start := r
	for unicode.Is(unicode.Nd, start-1) {
		start--
	}
	return int((r - start) % 10), true
}

// pyListRepr renders a list of strings as Python's repr does: ['a', 'b'].
func pyListRepr(items []string) string {
	quoted := make([]string, len(items))
	for i, s := range items {
		quoted[i] = "'" + s + "'"
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}
