package aisbench

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sseaudit/sseaudit/pynum"
	"github.com/sseaudit/sseaudit/unit"
)

// This file renders AISBench's own result files byte for byte: <ds>.csv from
// BasePerfMetricCalculator._export_to_csv (csv.writer: minimal quoting, CRLF)
// and <ds>.json from dump_results_dict (json.dump, indent=4, no final newline).

// StageError returns the message AISBench's run leaves in <stage>.error, or ""
// when the stage has numbers. WriteStageError writes it with its newline.
func (r *Result) StageError(stage Stage) string {
	st := r.Stage(stage)
	if st == nil {
		return fmt.Sprintf("aisbench: unknown stage %q", stage)
	}
	if st.Err == nil {
		return ""
	}
	return st.Err.Error()
}

// WriteStageError writes the <stage>.error file: the message and a newline.
func (r *Result) WriteStageError(w io.Writer, stage Stage) error {
	msg := r.StageError(stage)
	if msg == "" {
		return fmt.Errorf("aisbench: %s stage has no error", stage)
	}
	_, err := io.WriteString(w, msg+"\n")
	return err
}

// stageForFiles returns the stage when AISBench would have written its files.
func (r *Result) stageForFiles(stage Stage) (*StageResult, error) {
	st := r.Stage(stage)
	if st == nil {
		return nil, fmt.Errorf("aisbench: unknown stage %q", stage)
	}
	if st.Err != nil {
		return nil, fmt.Errorf("aisbench: %s stage: %w", stage, st.Err)
	}
	return st, nil
}

// WriteStageCSV writes the stage's <ds>.csv exactly as AISBench does.
func (r *Result) WriteStageCSV(w io.Writer, stage Stage) error {
	st, err := r.stageForFiles(stage)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	header := append([]string{"Performance Parameters", "Stage"}, r.Stats...)
	writeCSVRow(bw, append(header, "N"))
	for _, m := range st.Metrics {
		row := []string{string(m.Name), string(stage)}
		for _, s := range m.Stats {
			row = append(row, unit.AISBenchText(m.Unit, s.Rounded))
		}
		writeCSVRow(bw, append(row, strconv.Itoa(m.N)))
	}
	return bw.Flush()
}

// writeCSVRow is Python's csv.writer with QUOTE_MINIMAL and "\r\n".
func writeCSVRow(w *bufio.Writer, fields []string) {
	for i, f := range fields {
		if i > 0 {
			w.WriteByte(',')
		}
		if strings.ContainsAny(f, ",\"\r\n") || (len(fields) == 1 && f == "") {
			w.WriteByte('"')
			w.WriteString(strings.ReplaceAll(f, `"`, `""`))
			w.WriteByte('"')
			continue
		}
		w.WriteString(f)
	}
	w.WriteString("\r\n")
}

// WriteStageJSON writes the stage's <ds>.json exactly as AISBench does.
func (r *Result) WriteStageJSON(w io.Writer, stage Stage) error {
	st, err := r.stageForFiles(stage)
	if err != nil {
		return err
	}
	if r.MaxConcurrency == 0 {
		return fmt.Errorf("aisbench: %s stage's AISBench json: %w", stage, ErrUnknownMaxConcurrency)
	}
	if r.NoTimeline != "" {
		return fmt.Errorf("aisbench: %s stage's AISBench json: %w", stage, &NoTimelineError{Reason: r.NoTimeline})
	}
	c := st.Common
	concurrency := pynum.PyJSONFloat(c.Concurrency.Rounded)
	if c.ConcurrencyCapped {
		concurrency = strconv.Itoa(c.MaxConcurrency)
	}
	entries := []struct{ name, value string }{
		{"Benchmark Duration", pynum.PyJSONString(pynum.PyFloatRepr(c.BenchmarkDurationMs) + " ms")},
		{"Total Requests", strconv.Itoa(c.TotalRequests)},
		{"Failed Requests", strconv.Itoa(c.FailedRequests)},
		{"Success Requests", strconv.Itoa(c.SuccessRequests)},
		{"Concurrency", concurrency},
		{"Max Concurrency", strconv.Itoa(c.MaxConcurrency)},
		{"Request Throughput", pynum.PyJSONString(pynum.PyFloatRepr(c.RequestThroughput.Rounded) + " req/s")},
		{"Total Input Tokens", strconv.FormatInt(c.TotalInputTokens, 10)},
		{"Total Generated Tokens", strconv.FormatInt(c.TotalGeneratedTokens, 10)},
		{"Input Token Throughput", ""},
		{"Output Token Throughput", ""},
		{"Total Token Throughput", ""},
	}
	if c.HasTokenThroughput {
		entries[9].value = pynum.PyJSONString(pynum.PyFloatRepr(c.InputTokenThroughput.Rounded) + " token/s")
		entries[10].value = pynum.PyJSONString(pynum.PyFloatRepr(c.OutputTokenThroughput.Rounded) + " token/s")
		entries[11].value = pynum.PyJSONString(pynum.PyFloatRepr(c.TotalTokenThroughput.Rounded) + " token/s")
	}
	var b strings.Builder
	b.WriteString("{\n")
	for i, e := range entries {
		b.WriteString("    " + pynum.PyJSONString(e.name) + ": ")
		if e.value == "" {
			b.WriteString("{}") // AISBench's setdefault leaves an empty dict
		} else {
			b.WriteString("{\n        " + pynum.PyJSONString(string(stage)) + ": " + e.value + "\n    }")
		}
		if i < len(entries)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("}")
	_, err = io.WriteString(w, b.String())
	return err
}
