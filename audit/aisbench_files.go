package audit

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// This file renders AISBench's own result files byte for byte: <ds>.csv from
// BasePerfMetricCalculator._export_to_csv (csv.writer: minimal quoting, CRLF)
// and <ds>.json from dump_results_dict (json.dump, indent=4, no final newline).

// StageError returns the message AISBench's run leaves in <stage>.error, or ""
// when the stage has numbers. WriteAISBenchError writes it with its newline.
func (r *Report) StageError(stage Stage) string {
	st := r.Stage(stage)
	if st == nil {
		return fmt.Sprintf("audit: unknown stage %q", stage)
	}
	if st.Err == nil {
		return ""
	}
	return st.Err.Error()
}

// WriteAISBenchError writes the <stage>.error file: the message and a newline.
func (r *Report) WriteAISBenchError(w io.Writer, stage Stage) error {
	msg := r.StageError(stage)
	if msg == "" {
		return fmt.Errorf("audit: %s stage has no error", stage)
	}
	_, err := io.WriteString(w, msg+"\n")
	return err
}

// stageForFiles returns the stage when AISBench would have written its files.
func (r *Report) stageForFiles(stage Stage) (*StageResult, error) {
	st := r.Stage(stage)
	if st == nil {
		return nil, fmt.Errorf("audit: unknown stage %q", stage)
	}
	if st.Err != nil {
		return nil, fmt.Errorf("audit: %s stage: %w", stage, st.Err)
	}
	return st, nil
}

// WriteAISBenchCSV writes the stage's <ds>.csv exactly as AISBench does.
func (r *Report) WriteAISBenchCSV(w io.Writer, stage Stage) error {
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
			row = append(row, aisbenchStatText(m.Unit, s.Rounded))
		}
		writeCSVRow(bw, append(row, strconv.Itoa(m.N)))
	}
	return bw.Flush()
}

// aisbenchStatText is _add_units_to_metrics: seconds become milliseconds with a
// second round(v*1000, 4), then str(v) plus the unit.
func aisbenchStatText(u Unit, rounded float64) string {
	switch u {
	case UnitSeconds:
		return PyFloatRepr(PyRound(rounded*1000, 4)) + " ms"
	case UnitTokensPerSecond:
		return PyFloatRepr(rounded) + " token/s"
	}
	return PyFloatRepr(rounded)
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

// WriteAISBenchJSON writes the stage's <ds>.json exactly as AISBench does.
func (r *Report) WriteAISBenchJSON(w io.Writer, stage Stage) error {
	st, err := r.stageForFiles(stage)
	if err != nil {
		return err
	}
	if r.MaxConcurrency == 0 {
		return fmt.Errorf("audit: %s stage's AISBench json: %w", stage, ErrUnknownMaxConcurrency)
	}
	c := st.Common
	concurrency := pyJSONFloat(c.Concurrency.Rounded)
	if c.ConcurrencyCapped {
		concurrency = strconv.Itoa(c.MaxConcurrency)
	}
	entries := []struct{ name, value string }{
		{"Benchmark Duration", pyJSONString(PyFloatRepr(c.BenchmarkDurationMs) + " ms")},
		{"Total Requests", strconv.Itoa(c.TotalRequests)},
		{"Failed Requests", strconv.Itoa(c.FailedRequests)},
		{"Success Requests", strconv.Itoa(c.SuccessRequests)},
		{"Concurrency", concurrency},
		{"Max Concurrency", strconv.Itoa(c.MaxConcurrency)},
		{"Request Throughput", pyJSONString(PyFloatRepr(c.RequestThroughput.Rounded) + " req/s")},
		{"Total Input Tokens", strconv.FormatInt(c.TotalInputTokens, 10)},
		{"Total Generated Tokens", strconv.FormatInt(c.TotalGeneratedTokens, 10)},
		{"Input Token Throughput", ""},
		{"Output Token Throughput", ""},
		{"Total Token Throughput", ""},
	}
	if c.HasTokenThroughput {
		entries[9].value = pyJSONString(PyFloatRepr(c.InputTokenThroughput.Rounded) + " token/s")
		entries[10].value = pyJSONString(PyFloatRepr(c.OutputTokenThroughput.Rounded) + " token/s")
		entries[11].value = pyJSONString(PyFloatRepr(c.TotalTokenThroughput.Rounded) + " token/s")
	}
	var b strings.Builder
	b.WriteString("{\n")
	for i, e := range entries {
		b.WriteString("    " + pyJSONString(e.name) + ": ")
		if e.value == "" {
			b.WriteString("{}") // AISBench's setdefault leaves an empty dict
		} else {
			b.WriteString("{\n        " + pyJSONString(string(stage)) + ": " + e.value + "\n    }")
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

// pyJSONFloat is how Python's json writes a float (allow_nan=True).
func pyJSONFloat(x float64) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "Infinity"
	case math.IsInf(x, -1):
		return "-Infinity"
	}
	return PyFloatRepr(x)
}

// pyJSONString is json.dumps(s, ensure_ascii=False).
func pyJSONString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		default:
			if r < 0x20 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}
