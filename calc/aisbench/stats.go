package aisbench

import (
	"fmt"

	"github.com/sseaudit/sseaudit/pynum"
	"github.com/sseaudit/sseaudit/samples"
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
		if _, ok := samples.AISBenchPercent(s); !ok {
			warnings = append(warnings, fmt.Sprintf("Unknown statistic: %s, will be ignored! Legal statistics examples: %s", s, pynum.PyListRepr(DefaultStats)))
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
