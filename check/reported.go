package check

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Reported is a report as it was handed over: AISBench's <ds>.csv (the
// per-request metrics' statistics) and <ds>.json (the common metrics). Either
// may be absent.
type Reported struct {
	CSVFile, JSONFile string
	CSV               *Table   // nil when there is no CSV
	Common            []Common // the JSON's entries in file order; nil when there is no JSON
	CSVBytes          []byte
	JSONBytes         []byte
}

// Table is a parsed <ds>.csv.
type Table struct {
	Stats []string // the statistic columns between Stage and N
	Rows  []Row
}

// Row is one metric row of the CSV.
type Row struct {
	Line   int // 1-based line in the file
	Metric string
	Stage  string
	Cells  []string // aligned with Table.Stats
	N      string
}

// Common is one entry of <ds>.json: {metric: {stage: value}}.
type Common struct {
	Metric string
	Stage  string // "" for an empty entry ({}), as AISBench writes for undefined throughputs
	Value  string // the value's compact JSON text: "3", "2.5", "\"4000.0 ms\""
}

// ParseError is a reported file that is not AISBench's format.
type ParseError struct {
	File string
	Line int // 0 when not about a line
	Msg  string
	Err  error
}

func (e *ParseError) Error() string {
	s := e.File
	if e.Line > 0 {
		s += fmt.Sprintf(": line %d", e.Line)
	}
	s += ": " + e.Msg
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *ParseError) Unwrap() error { return e.Err }

// ReadReported reads the report files; an empty path is an absent file.
func ReadReported(csvPath, jsonPath string) (*Reported, error) {
	rep := &Reported{CSVFile: csvPath, JSONFile: jsonPath}
	if csvPath != "" {
		b, err := os.ReadFile(csvPath)
		if err != nil {
			return nil, err
		}
		if rep.CSV, err = ParseCSV(csvPath, b); err != nil {
			return nil, err
		}
		rep.CSVBytes = b
	}
	if jsonPath != "" {
		b, err := os.ReadFile(jsonPath)
		if err != nil {
			return nil, err
		}
		if rep.Common, err = ParseJSON(jsonPath, b); err != nil {
			return nil, err
		}
		rep.JSONBytes = b
	}
	return rep, nil
}

// ParseCSV parses AISBench's <ds>.csv: the header
// "Performance Parameters,Stage,<stats...>,N", then one row a metric.
func ParseCSV(name string, data []byte) (*Table, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	r.ReuseRecord = false
	header, err := r.Read()
	if err == io.EOF {
		return nil, &ParseError{File: name, Msg: "empty file: want AISBench's <ds>.csv"}
	}
	if err != nil {
		return nil, csvError(name, err)
	}
	if len(header) < 3 || header[0] != "Performance Parameters" || header[1] != "Stage" || header[len(header)-1] != "N" {
		return nil, &ParseError{File: name, Line: 1, Msg: fmt.Sprintf("header %q: want Performance Parameters,Stage,<statistics>,N", strings.Join(header, ","))}
	}
	t := &Table{Stats: append([]string(nil), header[2:len(header)-1]...)}
	seen := map[[2]string]int{}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(name, err)
		}
		line, _ := r.FieldPos(0)
		if len(rec) != len(header) {
			return nil, &ParseError{File: name, Line: line, Msg: fmt.Sprintf("%d fields: want %d, as the header has", len(rec), len(header))}
		}
		key := [2]string{rec[0], rec[1]}
		if prev, dup := seen[key]; dup {
			return nil, &ParseError{File: name, Line: line, Msg: fmt.Sprintf("metric %s stage %s again (first on line %d)", rec[0], rec[1], prev)}
		}
		seen[key] = line
		t.Rows = append(t.Rows, Row{Line: line, Metric: rec[0], Stage: rec[1], Cells: rec[2 : len(rec)-1], N: rec[len(rec)-1]})
	}
	return t, nil
}

func csvError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &ParseError{File: name, Line: pe.Line, Msg: "not CSV", Err: pe.Err}
	}
	return &ParseError{File: name, Msg: "not CSV", Err: err}
}

// ParseJSON parses AISBench's <ds>.json, keeping the entries' order.
func ParseJSON(name string, data []byte) ([]Common, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	bad := func(format string, args ...any) error {
		return &ParseError{File: name, Msg: fmt.Sprintf(format, args...)}
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, bad("want a JSON object {metric: {stage: value}}")
	}
	out := []Common{}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, &ParseError{File: name, Msg: "not JSON", Err: err}
		}
		metric, _ := t.(string)
		if seen[metric] {
			return nil, bad("metric %q twice", metric)
		}
		seen[metric] = true
		if t, err := dec.Token(); err != nil || t != json.Delim('{') {
			return nil, bad("metric %q: want an object {stage: value}", metric)
		}
		n := 0
		for dec.More() {
			t, err := dec.Token()
			if err != nil {
				return nil, &ParseError{File: name, Msg: "not JSON", Err: err}
			}
			stage, _ := t.(string)
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, &ParseError{File: name, Msg: fmt.Sprintf("metric %q stage %q", metric, stage), Err: err}
			}
			var buf bytes.Buffer
			if err := json.Compact(&buf, raw); err != nil {
				return nil, &ParseError{File: name, Msg: fmt.Sprintf("metric %q stage %q", metric, stage), Err: err}
			}
			if v := buf.String(); v != "" && (v[0] == '{' || v[0] == '[') {
				return nil, bad("metric %q stage %q: value %s: want a number or a string", metric, stage, v)
			}
			out = append(out, Common{Metric: metric, Stage: stage, Value: buf.String()})
			n++
		}
		if _, err := dec.Token(); err != nil {
			return nil, &ParseError{File: name, Msg: "not JSON", Err: err}
		}
		if n == 0 {
			out = append(out, Common{Metric: metric})
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, &ParseError{File: name, Msg: "not JSON", Err: err}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, bad("data after the JSON object")
	}
	return out, nil
}

// Stages lists the stages the report speaks of, in order of appearance.
func (r *Reported) Stages() []string {
	var out []string
	add := func(s string) {
		if s == "" {
			return
		}
		for _, x := range out {
			if x == s {
				return
			}
		}
		out = append(out, s)
	}
	if r.CSV != nil {
		for _, row := range r.CSV.Rows {
			add(row.Stage)
		}
	}
	for _, c := range r.Common {
		add(c.Stage)
	}
	return out
}

// MaxConcurrency is the report's "Max Concurrency" (0 when absent or not a
// positive integer).
func (r *Reported) MaxConcurrency() int {
	for _, c := range r.Common {
		if c.Metric == "Max Concurrency" {
			var v int
			if _, err := fmt.Sscanf(c.Value, "%d", &v); err == nil && v > 0 && fmt.Sprint(v) == c.Value {
				return v
			}
		}
	}
	return 0
}
