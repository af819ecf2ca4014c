package tracetest_test

import (
	"testing"

	"github.com/sseaudit/sseaudit/trace"
	_ "github.com/sseaudit/sseaudit/trace/arrowfile"
	_ "github.com/sseaudit/sseaudit/trace/parquetfile"
	"github.com/sseaudit/sseaudit/trace/tracetest"
)

// Every registered format passes the conformance suite.
func TestEveryFormat(t *testing.T) {
	formats := trace.Formats()
	if len(formats) < 4 {
		t.Fatalf("formats %v: want jsonl, parquet, arrow and arrows at least", formats)
	}
	for _, f := range formats {
		t.Run(f, func(t *testing.T) { tracetest.Run(t, f) })
	}
}
