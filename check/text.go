package check

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/sseaudit/sseaudit/pynum"
)

// maxListed bounds the trace/details mismatches listed in the text.
const maxListed = 20

// WriteText renders the check for a reader: what was compared, every cell
// that differs with its likely cause, the claims, the findings, the notes,
// and a last line with the verdict.
func (r *Result) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	rp := r.Input.Reported
	var files []string
	for _, f := range []string{rp.CSVFile, rp.JSONFile} {
		if f != "" {
			files = append(files, f)
		}
	}
	fmt.Fprintf(bw, "check: %s (stage %s)\n", strings.Join(files, " and "), strings.Join(r.Stages, ", "))
	fmt.Fprintf(bw, "against: %d requests from %s, max concurrency %d\n", len(r.Input.Records), r.Input.Source, r.Input.MaxConcurrency)
	fmt.Fprintf(bw, "compared %d cells: %d differ\n", r.Compared, len(r.Diffs))
	if len(r.Diffs) > 0 {
		fmt.Fprintf(bw, "\nCells that do not follow from the data:\n")
		prev := ""
		for _, d := range r.Diffs {
			where := filepath.Base(d.File)
			if d.Line > 0 {
				where += fmt.Sprintf(":%d", d.Line)
			}
			what := d.Metric
			if d.Stage != "" {
				what += " " + d.Stage
			}
			if d.Statistic != "" {
				what += " " + d.Statistic
			}
			fmt.Fprintf(bw, "  %s  %s: reported %s, recomputed %s\n", where, what, orNone(d.Reported), orNone(d.Recomputed))
			if why := string(d.Cause) + ": " + d.Detail; why != prev {
				fmt.Fprintf(bw, "      %s\n", why)
				prev = why
			} else {
				fmt.Fprintf(bw, "      %s (as above)\n", d.Cause)
			}
		}
	}
	if r.Input.Details != nil {
		fmt.Fprintf(bw, "\nTrace against details: %d requests, %d disagreements", len(r.Input.Records), len(r.Mismatches))
		if r.ClockOffset != 0 {
			fmt.Fprintf(bw, " (clock offset %s s, trace minus details)", fmtNum(pynum.PyRound(r.ClockOffset, 6)))
		}
		fmt.Fprintln(bw)
		for i, m := range r.Mismatches {
			if i == maxListed {
				fmt.Fprintf(bw, "  ... and %d more (--format json lists them all)\n", len(r.Mismatches)-maxListed)
				break
			}
			fmt.Fprintf(bw, "  %s\n", m)
		}
	}
	if len(r.Claims) > 0 {
		fmt.Fprintf(bw, "\nClaims:\n")
		for _, c := range r.Claims {
			verdict := "holds"
			switch {
			case !c.Tested:
				verdict = "untested"
			case !c.Holds:
				verdict = "DOES NOT HOLD"
			}
			fmt.Fprintf(bw, "  %s  %s\n      %s\n", verdict, c.Claim.Text, c.Detail)
		}
	}
	if len(r.Findings) > 0 {
		fmt.Fprintf(bw, "\nFindings (%d):\n", len(r.Findings))
		for _, f := range r.Findings {
			stage := ""
			if f.Stage != "" {
				stage = " " + string(f.Stage)
			}
			fmt.Fprintf(bw, "  %s [%s]%s %s: %s\n", f.Severity, f.Code, stage, f.Figure, f.Message)
		}
	}
	if l := r.Input.Lag; l != nil {
		fmt.Fprintf(bw, "\nThe client's lag against the wire (the trace is audit tap's; audit lag gives the same):\n")
		if err := l.WriteTables(bw, r.Input.LagSources); err != nil {
			return err
		}
	}
	if len(r.Notes) > 0 {
		fmt.Fprintf(bw, "\nNotes:\n")
		for _, n := range r.Notes {
			fmt.Fprintf(bw, "  %s\n", n)
		}
	}
	fmt.Fprintln(bw)
	switch {
	case r.Discrepant():
		var parts []string
		if n := len(r.Diffs); n > 0 {
			parts = append(parts, plural(n, "cell differs", "cells differ"))
		}
		if n := len(r.Mismatches); n > 0 {
			parts = append(parts, plural(n, "trace/details disagreement", "trace/details disagreements"))
		}
		if n := failedClaims(r.Claims); n > 0 {
			parts = append(parts, plural(n, "claim does not hold", "claims do not hold"))
		}
		fmt.Fprintf(bw, "result: DISCREPANT: %s\n", strings.Join(parts, ", "))
	default:
		fmt.Fprintf(bw, "result: every reported cell follows from the data\n")
	}
	return bw.Flush()
}

func failedClaims(cs []ClaimResult) int {
	n := 0
	for _, c := range cs {
		if c.Tested && !c.Holds {
			n++
		}
	}
	return n
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// SchemaVersion is the "schema_version" of WriteJSON's output.
const SchemaVersion = "1"

type jsonEvidence struct {
	Name  string `json:"name"`
	Value any    `json:"value"`
	Unit  string `json:"unit"`
}

type jsonFinding struct {
	Code     string         `json:"code"`
	Severity string         `json:"severity"`
	Stage    string         `json:"stage"`
	Figure   string         `json:"figure"`
	Message  string         `json:"message"`
	Evidence []jsonEvidence `json:"evidence"`
}

type jsonDiff struct {
	File       string `json:"file"`
	Line       int    `json:"line"`
	Metric     string `json:"metric"`
	Stage      string `json:"stage"`
	Statistic  string `json:"statistic"`
	Reported   string `json:"reported"`
	Recomputed string `json:"recomputed"`
	Cause      string `json:"cause"`
	Detail     string `json:"detail"`
}

type jsonClaim struct {
	Claim   string `json:"claim"`
	Stage   string `json:"stage"`
	Tested  bool   `json:"tested"`
	Holds   bool   `json:"holds"`
	Actual  any    `json:"recomputed"`
	InTable bool   `json:"in_table"`
	Detail  string `json:"detail"`
}

type jsonMismatch struct {
	Index     int    `json:"index"`
	TraceID   string `json:"trace_request_id"`
	DetailsID string `json:"details_id"`
	Field     string `json:"field"`
	Trace     string `json:"trace"`
	Details   string `json:"details"`
}

type jsonResult struct {
	SchemaVersion  string         `json:"schema_version"`
	Discrepant     bool           `json:"discrepant"`
	CSV            string         `json:"csv"`
	JSON           string         `json:"json"`
	Stages         []string       `json:"stages"`
	Requests       int            `json:"requests"`
	Source         string         `json:"source"`
	MaxConcurrency int            `json:"max_concurrency"`
	Compared       int            `json:"cells_compared"`
	Diffs          []jsonDiff     `json:"diffs"`
	Mismatches     []jsonMismatch `json:"trace_details_mismatches"`
	Claims         []jsonClaim    `json:"claims"`
	Findings       []jsonFinding  `json:"findings"`
	Notes          []string       `json:"notes"`
	// ClientLag is audit lag's JSON, when the trace is audit tap's.
	ClientLag json.RawMessage `json:"client_lag,omitempty"`
}

// finite keeps non-finite numbers out of JSON, as Python spells them.
func finite(x float64) any {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return pynum.PyJSONFloat(x)
	}
	return x
}

// WriteJSON writes the check as one JSON document (schema_version "1").
func (r *Result) WriteJSON(w io.Writer) error {
	out := jsonResult{SchemaVersion: SchemaVersion, Discrepant: r.Discrepant(), CSV: r.Input.Reported.CSVFile, JSON: r.Input.Reported.JSONFile,
		Stages: r.Stages, Requests: len(r.Input.Records), Source: r.Input.Source, MaxConcurrency: r.Input.MaxConcurrency, Compared: r.Compared,
		Diffs: []jsonDiff{}, Mismatches: []jsonMismatch{}, Claims: []jsonClaim{}, Findings: []jsonFinding{}, Notes: r.Notes}
	if out.Notes == nil {
		out.Notes = []string{}
	}
	for _, d := range r.Diffs {
		out.Diffs = append(out.Diffs, jsonDiff{d.File, d.Line, d.Metric, d.Stage, d.Statistic, d.Reported, d.Recomputed, string(d.Cause), d.Detail})
	}
	for _, m := range r.Mismatches {
		out.Mismatches = append(out.Mismatches, jsonMismatch(m))
	}
	for _, c := range r.Claims {
		out.Claims = append(out.Claims, jsonClaim{c.Claim.Text, c.Stage, c.Tested, c.Holds, finite(c.Actual), c.InTable, c.Detail})
	}
	for _, f := range r.Findings {
		jf := jsonFinding{Code: f.Code, Severity: string(f.Severity), Stage: string(f.Stage), Figure: f.Figure, Message: f.Message, Evidence: []jsonEvidence{}}
		for _, e := range f.Evidence {
			jf.Evidence = append(jf.Evidence, jsonEvidence{Name: e.Name, Value: finite(e.Value), Unit: string(e.Unit)})
		}
		out.Findings = append(out.Findings, jf)
	}
	if l := r.Input.Lag; l != nil {
		var b bytes.Buffer
		if err := l.WriteJSON(&b, r.Input.LagSources); err != nil {
			return err
		}
		out.ClientLag = b.Bytes()
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
