package check

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/findings"
	"github.com/sseaudit/sseaudit/lag"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/samples"
	"github.com/sseaudit/sseaudit/unit"
)

// Input is what Run checks: the report as handed over and the requests it
// claims to describe.
type Input struct {
	Reported *Reported
	// Records are the run's requests in AISBench's order.
	Records []record.Request
	// MaxConcurrency is the configured C the recomputation uses.
	MaxConcurrency int
	// CachedTokens, aligned with Records, are prompt_tokens_details.cached_tokens
	// of each request's last usage; nil (or a nil entry) when unknown.
	CachedTokens []*int64
	// Source names where the records came from, for the text.
	Source string
	// Details, when Records come from a raw trace, are the same run's
	// AISBench details: every request on which they disagree is reported.
	Details []record.Request
	// DetailsPairs, when not nil, gives the request of Records each of
	// Details is compared with (-1: none); nil compares them by position.
	DetailsPairs []int
	// Tolerance is CompareSources' tolerance in seconds; 0 means DefaultTolerance.
	Tolerance float64
	// Notes about how the records were read (a run cut short, dangling
	// arrays), passed on to the result.
	Notes []string
	// Lag, when the trace is audit tap's (the wire, between the client
	// and the server), is the client's lag against it (package lag): its
	// findings join the check's, and it is a section of the output.
	Lag        *lag.Report
	LagSources lag.Sources
}

// Options are the lints' settings.
type Options struct {
	// Rate is the configured request rate (req/s); 0 when none.
	Rate float64
	// Cards is the card count per-card figures are divided by; nil when not given.
	Cards *Cards
	// Claims are figures quoted from the report's prose, to test.
	Claims []Claim
}

// Cause is why a reported cell differs from the recomputed one, when a rule
// explains it.
type Cause string

const (
	CauseFormat   Cause = "format"        // the same number, written differently
	CauseRounding Cause = "rounding"      // the raw value rounded another way
	CauseSubset   Cause = "subset"        // computed on fewer requests
	CauseMore     Cause = "more-requests" // computed on more requests than the data hold
	CauseStage    Cause = "stage"         // the other stage's value
	CauseMissing  Cause = "missing"       // AISBench writes the cell; the report lacks it
	CauseExtra    Cause = "extra"         // the report holds a cell AISBench would not write
	CauseNoStage  Cause = "not-computable"
	CauseSources  Cause = "trace-vs-details" // the details give the reported value, the trace another
	CauseHandEdit Cause = "hand-edit"        // no rule explains it
)

// Diff is one reported cell that does not follow from the data.
type Diff struct {
	File   string
	Line   int // the CSV line; 0 for the JSON
	Metric string
	Stage  string
	// Statistic is the CSV column ("P90", "N"), "" for a JSON entry, or
	// "(row)"/"(column)" when a whole row or column is extra or missing.
	Statistic  string
	Reported   string // as written; "" when absent
	Recomputed string // as AISBench would write it; "" when it would not
	Cause      Cause
	Detail     string
}

// Result is the outcome of a check.
type Result struct {
	Input    Input
	Stages   []string // the stages the report speaks of
	Report   *audit.Report
	Compared int // cells compared
	Diffs    []Diff
	Claims   []ClaimResult
	Findings []findings.Finding
	// Mismatches are the requests on which the trace and the details disagree.
	Mismatches []Mismatch
	// ClockOffset is the median t0 difference, trace minus details (seconds).
	ClockOffset float64
	Notes       []string
}

// Discrepant reports whether anything reported does not follow from the
// data: a differing cell or a claim that does not hold.
func (r *Result) Discrepant() bool {
	if len(r.Diffs) > 0 || len(r.Mismatches) > 0 {
		return true
	}
	for _, c := range r.Claims {
		if !c.Holds {
			return true
		}
	}
	return false
}

// recompute builds the report the way AISBench would have, with the given
// statistics columns.
func recompute(records []record.Request, c int, stats []string) (*audit.Report, error) {
	// The records, their time points with them, are kept for the whole
	// check: a store that packs them would only copy them again.
	b := audit.NewBuilder(audit.Config{MaxConcurrency: c, Stats: stats, Lean: true, NewStore: newHeapStore})
	for _, r := range records {
		b.Add(r)
	}
	return b.Finalize()
}

func newHeapStore() samples.Store { return samples.NewHeap() }

// rendered is one stage as AISBench would have written it, parsed back.
type rendered struct {
	err    string
	table  *Table
	common []Common
}

func render(rep *audit.Report, stage aisbench.Stage) rendered {
	if msg := rep.StageError(stage); msg != "" {
		return rendered{err: msg}
	}
	var c, j bytes.Buffer
	if err := rep.WriteStageCSV(&c, stage); err != nil {
		return rendered{err: err.Error()}
	}
	if err := rep.WriteStageJSON(&j, stage); err != nil {
		return rendered{err: err.Error()}
	}
	t, err := ParseCSV("recomputed", c.Bytes())
	if err != nil {
		return rendered{err: err.Error()}
	}
	cm, err := ParseJSON("recomputed", j.Bytes())
	if err != nil {
		return rendered{err: err.Error()}
	}
	return rendered{table: t, common: cm}
}

// Run recomputes the report from the records and compares it cell by cell,
// then runs the lints.
func Run(in Input, opts Options) (*Result, error) {
	if in.Reported == nil || (in.Reported.CSV == nil && in.Reported.Common == nil) {
		return nil, fmt.Errorf("check: no report to check (want <ds>.csv, <ds>.json or both)")
	}
	var stats []string
	if in.Reported.CSV != nil {
		stats = in.Reported.CSV.Stats
	}
	rep, err := recompute(in.Records, in.MaxConcurrency, stats)
	if err != nil {
		return nil, err
	}
	res := &Result{Input: in, Report: rep, Stages: in.Reported.Stages(), Notes: append([]string(nil), in.Notes...)}
	if len(res.Stages) == 0 {
		return nil, fmt.Errorf("check: the report names no stage (no CSV row, no JSON entry with a stage)")
	}
	if _, warn := aisbench.ValidateStats(stats); len(warn) > 0 {
		res.Notes = append(res.Notes, "AISBench would warn about the table's statistics: "+strings.Join(warn, "; "))
	}
	r := renderAll(rep)
	cx := &cellContext{in: in, rep: rep, rendered: r, stats: stats}
	if in.Details != nil {
		repD, err := recompute(in.Details, in.MaxConcurrency, stats)
		if err != nil {
			return nil, err
		}
		cx.details = renderAll(repD)
	}
	for _, s := range res.Stages {
		cx.compareStage(res, s)
	}
	if in.Reported.CSV != nil && len(res.Stages) > 1 {
		res.Notes = append(res.Notes, fmt.Sprintf("the report mixes stages %s: AISBench writes one calculator's stage into <ds>.csv and <ds>.json", strings.Join(res.Stages, " and ")))
	}
	res.Diffs = append(res.Diffs, cx.diffs...)
	res.Compared = cx.compared
	if len(res.Diffs) == 0 {
		res.Notes = append(res.Notes, reformatted(in.Reported, rep, res.Stages)...)
	}
	res.Claims, res.Findings = lint(in, rep, opts, res.Stages)
	if in.Lag != nil {
		res.Findings = append(res.Findings, in.Lag.Findings...)
	}
	if in.Details != nil {
		tol := in.Tolerance
		if tol <= 0 {
			tol = DefaultTolerance
		}
		res.Mismatches, res.ClockOffset = ComparePaired(in.Records, in.Details, in.DetailsPairs, tol)
	}
	return res, nil
}

func renderAll(rep *audit.Report) map[aisbench.Stage]rendered {
	out := map[aisbench.Stage]rendered{}
	for _, s := range aisbench.Stages {
		out[s] = render(rep, s)
	}
	return out
}

// reformatted notes report files whose every cell agrees but whose bytes do not.
func reformatted(rp *Reported, rep *audit.Report, stages []string) []string {
	if len(stages) != 1 {
		return nil
	}
	st, err := aisbench.ParseStage(stages[0])
	if err != nil || rep.StageError(st) != "" {
		return nil
	}
	var notes []string
	var c, j bytes.Buffer
	if rp.CSV != nil && rep.WriteStageCSV(&c, st) == nil && !bytes.Equal(c.Bytes(), rp.CSVBytes) && rp.CSVBytes != nil {
		notes = append(notes, rp.CSVFile+": every cell agrees but the bytes differ from what AISBench writes (re-saved or edited by another tool)")
	}
	if rp.Common != nil && rep.WriteStageJSON(&j, st) == nil && !bytes.Equal(j.Bytes(), rp.JSONBytes) && rp.JSONBytes != nil {
		notes = append(notes, rp.JSONFile+": every entry agrees but the bytes differ from what AISBench writes (re-saved or edited by another tool)")
	}
	return notes
}

type cellContext struct {
	in       Input
	rep      *audit.Report
	rendered map[aisbench.Stage]rendered
	stats    []string
	diffs    []Diff
	compared int
	subsets  map[aisbench.Stage]*subsetHint
	like     map[aisbench.Stage]bool
	// details is the recomputation from the details when the records came
	// from a trace; nil otherwise.
	details map[aisbench.Stage]rendered
}

// fromDetails sets the cause when the details give the reported value: the
// report follows from AISBench's records, and the trace disagrees with them.
func (cx *cellContext) fromDetails(d *Diff, st aisbench.Stage, metric, stat string) bool {
	if cx.details == nil {
		return false
	}
	r := cx.details[st]
	if r.err != "" {
		return false
	}
	v := commonOf(r.common, metric)
	if stat != "" {
		v = cellOf(r.table, metric, string(st), stat)
	}
	if v != d.Reported {
		return false
	}
	d.Cause, d.Detail = CauseSources, "AISBench's value from its details; the trace's bytes give the recomputed one (the trace and the details disagree, see below)"
	return true
}

// stageLike reports whether most of the report's differing statistic cells
// for stage st are the other stage's values: the report is that stage's.
func (cx *cellContext) stageLike(st aisbench.Stage) bool {
	if v, ok := cx.like[st]; ok {
		return v
	}
	if cx.like == nil {
		cx.like = map[aisbench.Stage]bool{}
	}
	want, other := cx.rendered[st], cx.rendered[otherStage(st)]
	differ, same := 0, 0
	if t := cx.in.Reported.CSV; t != nil && want.err == "" && other.err == "" {
		for _, row := range rowsOf(t, string(st)) {
			for i, s := range t.Stats {
				if row.Cells[i] == cellOf(want.table, row.Metric, string(st), s) {
					continue
				}
				differ++
				if row.Cells[i] == cellOf(other.table, row.Metric, string(otherStage(st)), s) {
					same++
				}
			}
		}
	}
	cx.like[st] = differ > 0 && 2*same > differ
	return cx.like[st]
}

func (cx *cellContext) add(d Diff) { cx.diffs = append(cx.diffs, d) }

func (cx *cellContext) compareStage(res *Result, stageName string) {
	rp := cx.in.Reported
	st, err := aisbench.ParseStage(stageName)
	if err != nil || stageName != string(st) {
		// Not a stage AISBench writes: every cell of it is extra.
		for _, row := range rowsOf(rp.CSV, stageName) {
			cx.add(Diff{File: rp.CSVFile, Line: row.Line, Metric: row.Metric, Stage: stageName, Statistic: "(row)", Reported: rowText(row), Cause: CauseExtra, Detail: fmt.Sprintf("stage %q: AISBench's stages are total and stable", stageName)})
		}
		for _, c := range rp.Common {
			if c.Stage == stageName {
				cx.add(Diff{File: rp.JSONFile, Metric: c.Metric, Stage: stageName, Reported: c.Value, Cause: CauseExtra, Detail: fmt.Sprintf("stage %q: AISBench's stages are total and stable", stageName)})
			}
		}
		return
	}
	want := cx.rendered[st]
	if want.err != "" {
		for _, row := range rowsOf(rp.CSV, stageName) {
			cx.add(Diff{File: rp.CSVFile, Line: row.Line, Metric: row.Metric, Stage: stageName, Statistic: "(row)", Reported: rowText(row), Cause: CauseNoStage, Detail: "AISBench could not have computed this stage from the data: " + want.err})
		}
		for _, c := range rp.Common {
			if c.Stage == stageName {
				cx.add(Diff{File: rp.JSONFile, Metric: c.Metric, Stage: stageName, Reported: c.Value, Cause: CauseNoStage, Detail: "AISBench could not have computed this stage from the data: " + want.err})
			}
		}
		return
	}
	if rp.CSV != nil {
		cx.compareTable(st, rp.CSV, want.table)
	}
	if rp.Common != nil {
		cx.compareCommon(st, rp.Common, want.common)
	}
}

func rowsOf(t *Table, stage string) []Row {
	if t == nil {
		return nil
	}
	var out []Row
	for _, r := range t.Rows {
		if r.Stage == stage {
			out = append(out, r)
		}
	}
	return out
}

func rowText(r Row) string {
	return strings.Join(append(append([]string{r.Metric, r.Stage}, r.Cells...), r.N), ",")
}

func (cx *cellContext) compareTable(st aisbench.Stage, got, want *Table) {
	file := cx.in.Reported.CSVFile
	wantCol := map[string]int{}
	for i, s := range want.Stats {
		wantCol[s] = i
	}
	gotCol := map[string]bool{}
	for _, s := range got.Stats {
		gotCol[s] = true
		if _, ok := wantCol[s]; !ok {
			cx.add(Diff{File: file, Line: 1, Metric: "(header)", Stage: string(st), Statistic: s, Reported: s, Cause: CauseExtra, Detail: "not a statistic AISBench accepts: it would have dropped the column"})
		}
	}
	wantRows := map[string]Row{}
	for _, r := range want.Rows {
		wantRows[r.Metric] = r
	}
	stageRes := cx.rep.Stage(st)
	seen := map[string]bool{}
	for _, row := range rowsOf(got, string(st)) {
		seen[row.Metric] = true
		w, ok := wantRows[row.Metric]
		if !ok {
			detail := "not a metric AISBench writes"
			for _, rm := range stageRes.Removed {
				if string(rm.Name) == row.Metric {
					detail = "AISBench removes this row here: " + rm.Reason
				}
			}
			cx.add(Diff{File: file, Line: row.Line, Metric: row.Metric, Stage: string(st), Statistic: "(row)", Reported: rowText(row), Cause: CauseExtra, Detail: detail})
			continue
		}
		for i, s := range got.Stats {
			j, ok := wantCol[s]
			if !ok {
				continue
			}
			cx.compared++
			if row.Cells[i] == w.Cells[j] {
				continue
			}
			d := Diff{File: file, Line: row.Line, Metric: row.Metric, Stage: string(st), Statistic: s, Reported: row.Cells[i], Recomputed: w.Cells[j]}
			cx.explainStat(&d, st, metric.Metric(row.Metric), s)
			cx.add(d)
		}
		cx.compared++
		if row.N != w.N {
			d := Diff{File: file, Line: row.Line, Metric: row.Metric, Stage: string(st), Statistic: "N", Reported: row.N, Recomputed: w.N}
			cx.explainCount(&d, st)
			cx.add(d)
		}
	}
	for _, s := range want.Stats {
		if !gotCol[s] {
			cx.add(Diff{File: file, Line: 1, Metric: "(header)", Stage: string(st), Statistic: s, Recomputed: s, Cause: CauseMissing, Detail: "a statistic column of the table is missing"})
		}
	}
	for _, w := range want.Rows {
		if !seen[w.Metric] {
			cx.add(Diff{File: file, Metric: w.Metric, Stage: string(st), Statistic: "(row)", Recomputed: rowText(w), Cause: CauseMissing, Detail: "AISBench writes this row for the data"})
		}
	}
}

func (cx *cellContext) compareCommon(st aisbench.Stage, got, want []Common) {
	file := cx.in.Reported.JSONFile
	wantBy := map[string]Common{}
	for _, c := range want {
		wantBy[c.Metric] = c
	}
	seen := map[string]bool{}
	for _, c := range got {
		if c.Stage != string(st) && c.Stage != "" {
			continue
		}
		w, ok := wantBy[c.Metric]
		if c.Stage == "" {
			// {} entries carry no stage: compare them once, with the first stage.
			if seen[c.Metric] {
				continue
			}
		}
		seen[c.Metric] = true
		if !ok {
			cx.add(Diff{File: file, Metric: c.Metric, Stage: c.Stage, Reported: c.Value, Cause: CauseExtra, Detail: "not a common metric AISBench writes"})
			continue
		}
		cx.compared++
		if c.Value == w.Value && c.Stage == w.Stage {
			continue
		}
		d := Diff{File: file, Metric: c.Metric, Stage: string(st), Reported: showCommon(c), Recomputed: showCommon(w)}
		cx.explainCommon(&d, st, c, w)
		cx.add(d)
	}
	for _, w := range want {
		if !seen[w.Metric] {
			cx.add(Diff{File: file, Metric: w.Metric, Stage: string(st), Recomputed: showCommon(w), Cause: CauseMissing, Detail: "AISBench writes this entry"})
		}
	}
}

// showCommon is a JSON entry's value as text: a string unquoted, {} when empty.
func showCommon(c Common) string {
	if c.Stage == "" && c.Value == "" {
		return "{}"
	}
	if s, err := strconv.Unquote(c.Value); err == nil && strings.HasPrefix(c.Value, `"`) {
		return s
	}
	return c.Value
}

// number parses a cell: a number with an optional unit.
func number(s string) (v float64, unit string, ok bool) {
	s = strings.TrimSpace(s)
	num, unit, _ := strings.Cut(s, " ")
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, "", false
	}
	return v, unit, true
}

// explainStat finds the cause of a differing statistic cell.
func (cx *cellContext) explainStat(d *Diff, st aisbench.Stage, m metric.Metric, stat string) {
	rv, ru, rok := number(d.Reported)
	cv, cu, cok := number(d.Recomputed)
	if rok && cok && ru == cu && rv == cv {
		d.Cause, d.Detail = CauseFormat, fmt.Sprintf("the same number; AISBench writes %q", d.Recomputed)
		return
	}
	if rok && cok && ru != cu {
		if (ru == "s" && cu == "ms" && rv*1000 == cv) || (ru == "ms" && cu == "s" && rv == cv*1000) {
			d.Cause, d.Detail = CauseFormat, fmt.Sprintf("the same value in %s; AISBench writes %q", ru, d.Recomputed)
			return
		}
	}
	if cx.fromDetails(d, st, string(m), stat) {
		return
	}
	if cx.subsetExplains(d, st, func(t *Table, _ []Common) string { return cellOf(t, string(m), string(st), stat) }) {
		return
	}
	if other := cx.otherStageCell(st, string(m), stat); other != "" && other == d.Reported && cx.stageLike(st) {
		d.Cause, d.Detail = CauseStage, fmt.Sprintf("the %s stage's value", otherStage(st))
		return
	}
	if h := cx.subset(st); h != nil {
		d.Cause, d.Detail = h.cause, h.detail
		return
	}
	mr := cx.rep.Stage(st).Metric(m)
	if rok && mr != nil {
		for _, s := range mr.Stats {
			if s.Name != stat {
				continue
			}
			raw := s.Raw
			if mr.Unit == unit.Seconds {
				raw *= 1000
			}
			if how, ok := roundingOf(rv, raw, cv, 0.0001*unit.Scale(mr.Unit)); ok {
				d.Cause, d.Detail = CauseRounding, fmt.Sprintf("the raw value %s %s; AISBench rounds to 4 decimals%s", strconv.FormatFloat(raw, 'g', -1, 64), how, inMs(mr.Unit))
				return
			}
		}
	}
	d.Cause, d.Detail = CauseHandEdit, "no rule explains it (not the same number, a rounding, a subset or the other stage): edited by hand or computed from other data"
}

func inMs(u unit.Unit) string {
	if u == unit.Seconds {
		return " in seconds, then writes ms"
	}
	return ""
}

// roundingOf says how rv is raw rounded another way, if it is: to k
// decimals (half-even, half-up or truncated), to p >= 2 significant digits, or one
// unit off in AISBench's last place (lastPlace).
func roundingOf(rv, raw, cv, lastPlace float64) (string, bool) {
	if math.IsNaN(raw) || math.IsInf(raw, 0) {
		return "", false
	}
	near := func(a, b float64) bool { return a == b || math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }
	for k := 0; k <= 10; k++ {
		p := math.Pow(10, float64(k))
		if v, err := strconv.ParseFloat(strconv.FormatFloat(raw, 'f', k, 64), 64); err == nil && near(rv, v) {
			return fmt.Sprintf("rounded to %d decimals", k), true
		}
		if near(rv, math.Round(raw*p)/p) {
			return fmt.Sprintf("rounded half up to %d decimals", k), true
		}
		if near(rv, math.Trunc(raw*p)/p) {
			return fmt.Sprintf("truncated to %d decimals", k), true
		}
	}
	for p := 2; p <= 8; p++ {
		if v, err := strconv.ParseFloat(strconv.FormatFloat(raw, 'g', p, 64), 64); err == nil && near(rv, v) {
			return fmt.Sprintf("rounded to %d significant digits", p), true
		}
	}
	if math.Abs(rv-cv) <= lastPlace*1.000001 {
		return "off by one unit in the last place", true
	}
	return "", false
}

func otherStage(st aisbench.Stage) aisbench.Stage {
	if st == aisbench.StageTotal {
		return aisbench.StageStable
	}
	return aisbench.StageTotal
}

// otherStageCell is the other stage's recomputed cell, "" when none.
func (cx *cellContext) otherStageCell(st aisbench.Stage, metric, stat string) string {
	o := otherStage(st)
	r := cx.rendered[o]
	if r.err != "" {
		return ""
	}
	if stat == "" {
		for _, c := range r.common {
			if c.Metric == metric {
				return showCommon(c)
			}
		}
		return ""
	}
	return cellOf(r.table, metric, string(o), stat)
}

func cellOf(t *Table, metric, stage, stat string) string {
	if t == nil {
		return ""
	}
	col := -1
	for i, s := range t.Stats {
		if s == stat {
			col = i
		}
	}
	for _, r := range t.Rows {
		if r.Metric != metric || r.Stage != stage {
			continue
		}
		if stat == "N" {
			return r.N
		}
		if col >= 0 {
			return r.Cells[col]
		}
	}
	return ""
}

func commonOf(cs []Common, metric string) string {
	for _, c := range cs {
		if c.Metric == metric {
			return showCommon(c)
		}
	}
	return ""
}

// explainCount finds the cause of a differing N.
func (cx *cellContext) explainCount(d *Diff, st aisbench.Stage) {
	if cx.fromDetails(d, st, d.Metric, "N") {
		return
	}
	if cx.subsetExplains(d, st, func(t *Table, _ []Common) string { return cellOf(t, d.Metric, string(st), "N") }) {
		return
	}
	// A count equal to the other stage's is a coincidence unless the
	// report's statistics are that stage's too.
	if other := cx.otherStageCell(st, d.Metric, "N"); other != "" && other == d.Reported && cx.stageLike(st) {
		d.Cause, d.Detail = CauseStage, fmt.Sprintf("the %s stage's N", otherStage(st))
		return
	}
	if h := cx.subset(st); h != nil {
		d.Cause, d.Detail = h.cause, h.detail
		return
	}
	rv, err1 := strconv.Atoi(d.Reported)
	cv, err2 := strconv.Atoi(d.Recomputed)
	if err1 == nil && err2 == nil && rv >= 0 && rv < cv {
		d.Cause, d.Detail = CauseSubset, fmt.Sprintf("%d of the %d requests AISBench counts: computed on a subset", rv, cv)
		return
	}
	d.Cause, d.Detail = CauseHandEdit, "no rule explains it: edited by hand or computed from other data"
}

// commonRaw is a common metric's unrounded value, in its written unit.
func commonRaw(st *aisbench.StageResult, metric string) (float64, bool) {
	c := st.Common
	switch metric {
	case "Benchmark Duration":
		return st.DurationSeconds * 1000, true
	case "Concurrency":
		return c.Concurrency.Raw, true
	case "Request Throughput":
		return c.RequestThroughput.Raw, true
	case "Input Token Throughput":
		return c.InputTokenThroughput.Raw, c.HasTokenThroughput
	case "Output Token Throughput":
		return c.OutputTokenThroughput.Raw, c.HasTokenThroughput
	case "Total Token Throughput":
		return c.TotalTokenThroughput.Raw, c.HasTokenThroughput
	}
	return 0, false
}

var countMetrics = map[string]bool{"Total Requests": true, "Failed Requests": true, "Success Requests": true, "Total Input Tokens": true, "Total Generated Tokens": true}

func (cx *cellContext) explainCommon(d *Diff, st aisbench.Stage, got, want Common) {
	if got.Stage != want.Stage {
		d.Cause, d.Detail = CauseFormat, fmt.Sprintf("AISBench writes %s here", map[bool]string{true: "{} (no duration)", false: "a value for stage " + want.Stage}[want.Stage == ""])
		if got.Stage == "" {
			d.Cause, d.Detail = CauseMissing, "the report leaves it empty ({}); AISBench writes a value"
		}
		return
	}
	rv, ru, rok := number(d.Reported)
	cv, cu, cok := number(d.Recomputed)
	if rok && cok && ru == cu && rv == cv {
		d.Cause, d.Detail = CauseFormat, fmt.Sprintf("the same number; AISBench writes %s", want.Value)
		return
	}
	if cx.fromDetails(d, st, d.Metric, "") {
		return
	}
	if d.Metric == "Max Concurrency" {
		d.Cause, d.Detail = CauseHandEdit, fmt.Sprintf("the recomputation used C = %d: the report's Max Concurrency was not the configured one, or --max-concurrency differs", cx.in.MaxConcurrency)
		return
	}
	if cx.subsetExplains(d, st, func(_ *Table, cs []Common) string { return commonOf(cs, d.Metric) }) {
		return
	}
	if other := cx.otherStageCell(st, d.Metric, ""); other != "" && other == d.Reported && cx.stageLike(st) {
		d.Cause, d.Detail = CauseStage, fmt.Sprintf("the %s stage's value", otherStage(st))
		return
	}
	if h := cx.subset(st); h != nil {
		d.Cause, d.Detail = h.cause, h.detail
		return
	}
	if countMetrics[d.Metric] {
		if rok && cok && rv < cv {
			d.Cause, d.Detail = CauseSubset, fmt.Sprintf("%s of %s: computed on a subset", d.Reported, d.Recomputed)
			return
		}
	} else if raw, ok := commonRaw(cx.rep.Stage(st), d.Metric); ok && rok {
		if d.Metric == "Concurrency" && cx.rep.Stage(st).Common.ConcurrencyCapped {
			d.Cause, d.Detail = CauseFormat, fmt.Sprintf("the stable stage caps Concurrency at C = %d (raw %s)", cx.in.MaxConcurrency, strconv.FormatFloat(raw, 'g', -1, 64))
			if rv != raw && math.Abs(rv-raw) > 0.0001 {
				d.Cause = CauseHandEdit
			}
			return
		}
		if how, ok := roundingOf(rv, raw, cv, 0.0001); ok {
			d.Cause, d.Detail = CauseRounding, fmt.Sprintf("the raw value %s %s; AISBench rounds to 4 decimals", strconv.FormatFloat(raw, 'g', -1, 64), how)
			return
		}
	}
	d.Cause, d.Detail = CauseHandEdit, "no rule explains it: edited by hand or computed from other data"
}

// subsetHint is what the stage's counts say about a subset.
type subsetHint struct {
	cause  Cause
	detail string
	// candidates are reports recomputed on prefixes and suffixes of the run
	// with the reported number of successful requests, with their names.
	candidates []subsetCandidate
}

type subsetCandidate struct {
	name string
	r    rendered
}

// subset returns the stage's subset hint: the report counts fewer successful
// requests than the data hold. nil when the counts agree or are unknown.
func (cx *cellContext) subset(st aisbench.Stage) *subsetHint {
	if h, ok := cx.subsets[st]; ok {
		return h
	}
	if cx.subsets == nil {
		cx.subsets = map[aisbench.Stage]*subsetHint{}
	}
	cx.subsets[st] = nil
	want := cx.rendered[st]
	if want.err != "" {
		return nil
	}
	reportedN, recomputedN := -1, -1
	rp := cx.in.Reported
	for _, c := range rp.Common {
		if c.Metric == "Success Requests" && c.Stage == string(st) {
			reportedN, _ = strconv.Atoi(c.Value)
			recomputedN, _ = strconv.Atoi(commonOf(want.common, "Success Requests"))
		}
	}
	if reportedN < 0 && rp.CSV != nil {
		reportedN, _ = strconv.Atoi(cellOf(rp.CSV, "E2EL", string(st), "N"))
		recomputedN, _ = strconv.Atoi(cellOf(want.table, "E2EL", string(st), "N"))
	}
	if reportedN <= 0 || recomputedN <= 0 || reportedN == recomputedN {
		return nil
	}
	if reportedN > recomputedN {
		h := &subsetHint{cause: CauseMore, detail: fmt.Sprintf("the report counts %d successful requests where the data hold %d: computed on more requests than these files hold (records or arrays lost since, or another run)", reportedN, recomputedN)}
		cx.subsets[st] = h
		return h
	}
	h := &subsetHint{cause: CauseSubset, detail: fmt.Sprintf("the report counts %d successful requests where the data hold %d: computed on a subset", reportedN, recomputedN)}
	if st == aisbench.StageTotal {
		recs := cx.in.Records
		okAt := func(i int) bool { return recs[i].Success && len(recs[i].TimePoints) >= 2 }
		n := 0
		for i := range recs {
			if okAt(i) {
				n++
			}
			if n == reportedN {
				h.candidates = append(h.candidates, cx.candidate(fmt.Sprintf("the first %d requests", reportedN), recs[:i+1]))
				break
			}
		}
		n = 0
		for i := len(recs) - 1; i >= 0; i-- {
			if okAt(i) {
				n++
			}
			if n == reportedN {
				h.candidates = append(h.candidates, cx.candidate(fmt.Sprintf("the last %d requests", reportedN), recs[i:]))
				break
			}
		}
	}
	cx.subsets[st] = h
	return h
}

func (cx *cellContext) candidate(name string, recs []record.Request) subsetCandidate {
	rep, err := recompute(recs, cx.in.MaxConcurrency, cx.stats)
	if err != nil {
		return subsetCandidate{name: name, r: rendered{err: err.Error()}}
	}
	return subsetCandidate{name: name, r: render(rep, aisbench.StageTotal)}
}

// subsetExplains sets the cause when a prefix or suffix of the run gives the
// reported value exactly.
func (cx *cellContext) subsetExplains(d *Diff, st aisbench.Stage, cell func(*Table, []Common) string) bool {
	h := cx.subset(st)
	if h == nil {
		return false
	}
	for _, c := range h.candidates {
		if c.r.err == "" && cell(c.r.table, c.r.common) == d.Reported {
			d.Cause, d.Detail = CauseSubset, fmt.Sprintf("exactly the value of %s alone (%s)", c.name, h.detail)
			return true
		}
	}
	return false
}
