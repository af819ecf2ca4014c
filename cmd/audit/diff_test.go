package main

import (
	"runtime"
	"testing"
)

// TestDiffDeterministic: audit diff gives the same bytes whatever
// GOMAXPROCS (the runs are derived in parallel; the bootstrap is seeded).
func TestDiffDeterministic(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	args := [][]string{
		{"diff", "--format", "json", "testdata/diff/itl20.parquet", "testdata/diff/itl23.parquet"},
		{"diff", "--format", "json", "testdata/diff/itl20.parquet", "testdata/diff/itl20-seed2.parquet"},
		{"diff", "--format", "json", "testdata/diff/itl20.parquet", "testdata/diff/itl20-no-usage-tail.parquet"},
	}
	for _, a := range args {
		var first string
		for _, procs := range []int{1, 2, 4} {
			runtime.GOMAXPROCS(procs)
			out, stderr, code := runCLI(t, "", a...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", a, code, stderr)
			}
			if procs == 1 {
				first = out
			} else if out != first {
				t.Errorf("%v: GOMAXPROCS %d gives other bytes than GOMAXPROCS 1", a, procs)
			}
		}
	}
}
