package aisbench

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkLoad reads the failures work_dir (40 requests), or the work_dir
// SSEAUDIT_AISBENCH_LARGE names (make_large.py makes one of any size):
//
//	SSEAUDIT_AISBENCH_LARGE=/tmp/large100k go test -bench Load -benchtime 3x ./trace/importer/aisbench
func BenchmarkLoad(b *testing.B) {
	dir := os.Getenv("SSEAUDIT_AISBENCH_LARGE")
	if dir == "" {
		dir = filepath.Join(workdirs, "failures")
	}
	b.ReportAllocs()
	points := 0
	for b.Loop() {
		run, err := Load(dir, Options{})
		if err != nil {
			b.Fatal(err)
		}
		points = 0
		for _, r := range run.Records {
			points += len(r.TimePoints)
		}
	}
	b.ReportMetric(float64(points), "timepoints")
}
