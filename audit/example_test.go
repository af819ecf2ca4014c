package audit_test

import (
	"fmt"
	"strings"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/record"
)

// The worked example of the AISBench semantics (five requests, C = 2):
// accumulate, finalize, render AISBench's own files.
func Example() {
	tokens := func(n int64) *int64 { return &n }
	b := audit.NewBuilder(audit.Config{MaxConcurrency: 2})
	for _, se := range [][2]float64{{0, 3}, {1, 5}, {3.1, 7}, {5.1, 9}, {7.1, 12}} {
		start, end := se[0], se[1]
		first := start + 0.5
		tp := []float64{start, first}
		for k := 1; k <= 4; k++ {
			tp = append(tp, first+(end-first)*float64(k)/4)
		}
		b.Add(record.Request{Success: true, TimePoints: tp, InputTokens: tokens(1000), OutputTokens: tokens(100)})
	}
	rep, err := b.Finalize()
	if err != nil {
		fmt.Println(err)
		return
	}
	w := rep.Stable.Window
	fmt.Printf("stable window %v s to %v s: %d of %d requests\n", w.StartSeconds, w.EndSeconds, w.Selected, w.Of)
	var csv strings.Builder
	if err := rep.WriteStageCSV(&csv, aisbench.StageStable); err != nil {
		fmt.Println(err)
	}
	// AISBench's csv.writer ends lines with CRLF; shown here with LF.
	fmt.Print(strings.ReplaceAll(csv.String(), "\r\n", "\n"))
	// Output:
	// stable window 3.1 s to 7.1 s: 3 of 5 requests
	// Performance Parameters,Stage,Average,Min,Max,Median,P75,P90,P99,N
	// E2EL,stable,4233.3 ms,3900.0 ms,4900.0 ms,3900.0 ms,4400.0 ms,4700.0 ms,4880.0 ms,3
	// TTFT,stable,500.0 ms,500.0 ms,500.0 ms,500.0 ms,500.0 ms,500.0 ms,500.0 ms,3
	// TPOT,stable,37.7 ms,34.3 ms,44.4 ms,34.3 ms,39.4 ms,42.4 ms,44.2 ms,3
	// ITL,stable,933.3 ms,850.0 ms,1100.0 ms,850.0 ms,1100.0 ms,1100.0 ms,1100.0 ms,3
	// InputTokens,stable,1000.0,1000.0,1000.0,1000.0,1000.0,1000.0,1000.0,3
	// OutputTokens,stable,100.0,100.0,100.0,100.0,100.0,100.0,100.0,3
	// OutputTokenThroughput,stable,23.8967 token/s,20.4082 token/s,25.641 token/s,25.641 token/s,25.641 token/s,25.641 token/s,25.641 token/s,3
	// PrefillTokenThroughput,stable,2000.0 token/s,2000.0 token/s,2000.0 token/s,2000.0 token/s,2000.0 token/s,2000.0 token/s,2000.0 token/s,3
}
