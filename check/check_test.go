package check

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/pynum"
	"github.com/sseaudit/sseaudit/record"
)

func i64(v int64) *int64 { return &v }

// workedExample is the run of aisbench-semantics.md §6 (C = 2), with a
// little noise so that statistics have digits past AISBench's rounding.
func workedExample() []record.Request {
	starts := []float64{0, 1, 3.1, 5.1, 7.1, 9.05, 10.3}
	ends := []float64{3, 5, 7, 9, 12, 12.5, 13.7}
	var recs []record.Request
	for i := range starts {
		s, e := starts[i]+0.0123*float64(i), ends[i]+0.00731*float64(i)
		tp := []float64{s, s + 0.5 + 0.01*float64(i)}
		for k := 1; k <= 4; k++ {
			tp = append(tp, tp[1]+(e-tp[1])*float64(k)/4)
		}
		recs = append(recs, record.Request{ID: string(rune('A' + i)), Success: true, TimePoints: tp, InputTokens: i64(1000 + int64(i)), OutputTokens: i64(100 + int64(3*i))})
	}
	return recs
}

// files renders what AISBench would write for a stage of records.
func files(t *testing.T, recs []record.Request, c int, stage aisbench.Stage) (csv, js []byte) {
	t.Helper()
	rep, err := recompute(recs, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := rep.WriteStageCSV(&a, stage); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteStageJSON(&b, stage); err != nil {
		t.Fatal(err)
	}
	return a.Bytes(), b.Bytes()
}

func reported(t *testing.T, csv, js []byte) *Reported {
	t.Helper()
	tab, err := ParseCSV("ds.csv", csv)
	if err != nil {
		t.Fatal(err)
	}
	cm, err := ParseJSON("ds.json", js)
	if err != nil {
		t.Fatal(err)
	}
	return &Reported{CSVFile: "ds.csv", JSONFile: "ds.json", CSV: tab, Common: cm, CSVBytes: csv, JSONBytes: js}
}

func cellText(t *testing.T, csv []byte, metric, stat string) string {
	t.Helper()
	tab, err := ParseCSV("x", csv)
	if err != nil {
		t.Fatal(err)
	}
	return cellOf(tab, metric, tab.Rows[0].Stage, stat)
}

// setCell replaces one cell of a CSV.
func setCell(t *testing.T, csv []byte, metric, stat, value string) []byte {
	t.Helper()
	lines := strings.Split(string(csv), "\r\n")
	header := strings.Split(lines[0], ",")
	col := -1
	for i, h := range header {
		if h == stat {
			col = i
		}
	}
	for i, l := range lines {
		f := strings.Split(l, ",")
		if f[0] == metric {
			f[col] = value
			lines[i] = strings.Join(f, ",")
			return []byte(strings.Join(lines, "\r\n"))
		}
	}
	t.Fatalf("no row %s", metric)
	return nil
}

func TestUntouchedReportAgrees(t *testing.T) {
	recs := workedExample()
	for _, st := range aisbench.Stages {
		csv, js := files(t, recs, 2, st)
		res, err := Run(Input{Reported: reported(t, csv, js), Records: recs, MaxConcurrency: 2}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Diffs) != 0 || res.Discrepant() {
			t.Errorf("%s: diffs %+v", st, res.Diffs)
		}
		if res.Compared != 8*8+12 {
			t.Errorf("%s: compared %d cells", st, res.Compared)
		}
	}
}

// TestCauses: each way a report can be wrong is found, named, and explained.
func TestCauses(t *testing.T) {
	recs := workedExample()
	csv, js := files(t, recs, 2, aisbench.StageTotal)
	stableCSV, _ := files(t, recs, 2, aisbench.StageStable)
	rep, _ := recompute(recs, 2, nil)
	rawAvg := rep.Total.Metric(metric.E2EL).Stats[0].Raw * 1000
	cases := []struct {
		name        string
		csv, js     []byte
		metric      string
		stat        string
		cause       Cause
		detailHas   string
		extraDiffOK bool
	}{
		{"hand edit", setCell(t, csv, "TTFT", "P90", "400.0 ms"), js, "TTFT", "P90", CauseHandEdit, "no rule", false},
		{"format", setCell(t, csv, "E2EL", "Min", strings.Replace(cellText(t, csv, "E2EL", "Min"), ".0 ms", " ms", 1)), js, "E2EL", "Min", CauseFormat, "the same number", false},
		{"rounding", setCell(t, csv, "E2EL", "Average", strings.TrimRight(strings.TrimRight(trunc(rawAvg, 3), "0"), ".")+" ms"), js, "E2EL", "Average", CauseRounding, "decimals", false},
		{"other stage", setCell(t, csv, "E2EL", "P90", cellText(t, stableCSV, "E2EL", "P90")), js, "E2EL", "P90", CauseStage, "stable stage", false},
		{"N", setCell(t, csv, "OutputTokens", "N", "5"), js, "OutputTokens", "N", CauseSubset, "5 of the 7", false},
		{"json edit", csv, []byte(strings.Replace(string(js), `"total": "`+commonOf(mustJSON(t, js), "Request Throughput")+`"`, `"total": "0.61 req/s"`, 1)), "Request Throughput", "", CauseHandEdit, "no rule", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Run(Input{Reported: reported(t, c.csv, c.js), Records: recs, MaxConcurrency: 2}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Diffs) != 1 {
				t.Fatalf("%d diffs, want 1: %+v", len(res.Diffs), res.Diffs)
			}
			d := res.Diffs[0]
			if d.Metric != c.metric || d.Statistic != c.stat || d.Stage != "total" || d.Cause != c.cause || !strings.Contains(d.Detail, c.detailHas) {
				t.Errorf("got %+v", d)
			}
			if !res.Discrepant() {
				t.Error("not discrepant")
			}
		})
	}
}

func mustJSON(t *testing.T, js []byte) []Common {
	cm, err := ParseJSON("x", js)
	if err != nil {
		t.Fatal(err)
	}
	return cm
}

func trunc(x float64, k int) string {
	s := fmtNum(x)
	if i := strings.IndexByte(s, '.'); i >= 0 && len(s) > i+1+k {
		return s[:i+1+k]
	}
	return s
}

// TestSubset: a report AISBench made from the first requests only is
// named a subset, exactly.
func TestSubset(t *testing.T) {
	recs := workedExample()
	csv, js := files(t, recs[:5], 2, aisbench.StageTotal)
	res, err := Run(Input{Reported: reported(t, csv, js), Records: recs, MaxConcurrency: 2}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Diffs) == 0 {
		t.Fatal("no diffs")
	}
	for _, d := range res.Diffs {
		if d.Cause != CauseSubset {
			t.Errorf("%+v: want a subset", d)
		}
	}
	found := false
	for _, d := range res.Diffs {
		if d.Metric == "E2EL" && d.Statistic == "P90" && strings.Contains(d.Detail, "exactly the value of the first 5 requests") {
			found = true
		}
	}
	if !found {
		t.Errorf("E2EL P90 not traced to the first 5 requests: %+v", res.Diffs)
	}
}

// TestRowsAndColumns: a removed row, a missing row and a missing column.
func TestRowsAndColumns(t *testing.T) {
	recs := workedExample()
	csv, js := files(t, recs, 2, aisbench.StageTotal)
	lines := strings.Split(string(csv), "\r\n")
	// Drop the TPOT row, name a column P100 (AISBench accepts P1..P99), add
	// a row AISBench never writes.
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(l, "TPOT,") {
			continue
		}
		out = append(out, strings.Replace(l, "P99", "P100", 1))
	}
	out = append(out[:len(out)-1], "GoodputRate,total,1,2,3,4,5,6,7,8", "")
	res, err := Run(Input{Reported: reported(t, []byte(strings.Join(out, "\r\n")), js), Records: recs, MaxConcurrency: 2}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Cause{"TPOT/(row)": CauseMissing, "(header)/P100": CauseExtra, "GoodputRate/(row)": CauseExtra}
	for _, d := range res.Diffs {
		k := d.Metric + "/" + d.Statistic
		if c, ok := want[k]; ok && c == d.Cause {
			delete(want, k)
		}
	}
	if len(want) > 0 {
		t.Errorf("not found: %v in %+v", want, res.Diffs)
	}
}

// TestNotComputable: a stable report for a run without a stable stage.
func TestNotComputable(t *testing.T) {
	recs := workedExample()
	csv, js := files(t, recs, 2, aisbench.StageStable)
	res, err := Run(Input{Reported: reported(t, csv, js), Records: recs[:1], MaxConcurrency: 2}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Diffs) == 0 || res.Diffs[0].Cause != CauseNoStage || !strings.Contains(res.Diffs[0].Detail, "Can not find a stable stage") {
		t.Errorf("%+v", res.Diffs)
	}
}

func TestRoundingOf(t *testing.T) {
	cases := []struct {
		rv, raw float64
		want    string
	}{
		{747.18, 747.1800925, "rounded to 2 decimals"},
		{747.1, 747.1800925, "truncated to 1 decimals"},
		{750, 747.1800925, "rounded to 2 significant digits"},
		{0.13, 0.125, "rounded half up to 2 decimals"},
	}
	for _, c := range cases {
		got, ok := roundingOf(c.rv, c.raw, 0, 0.0001)
		if !ok || got != c.want {
			t.Errorf("roundingOf(%v, %v) = %q, %v; want %q", c.rv, c.raw, got, ok, c.want)
		}
	}
	if got, ok := roundingOf(700, 747.18, 747.2, 0.1); ok {
		t.Errorf("700 from 747.18: %q", got)
	}
}

func TestCompareSources(t *testing.T) {
	a := workedExample()
	b := workedExample()
	for i := range b {
		tp := b[i].TimePoints
		for k := range tp {
			tp[k] += 100 // another clock origin
		}
	}
	b[2].TimePoints[1] += 0.01 // TTFT 10 ms longer
	b[4].OutputTokens = i64(99)
	b[5].Success = false
	ms, off := CompareSources(a, b, DefaultTolerance)
	if off != -100 {
		t.Errorf("offset %v", off)
	}
	got := map[string]bool{}
	for _, m := range ms {
		got[m.Field+"@"+m.TraceID] = true
	}
	for _, w := range []string{"TTFT@C", "output_tokens@E", "success@F"} {
		if !got[w] {
			t.Errorf("missing %s in %v", w, ms)
		}
	}
	if len(ms) != 3 {
		t.Errorf("%d mismatches: %v", len(ms), ms)
	}
	ms, _ = CompareSources(a, b[:3], DefaultTolerance)
	if ms[0].Field != "requests" {
		t.Errorf("%v", ms)
	}
}

// TestComparePaired: with pairs, a details request no trace request
// matches is a mismatch of its own, and the requests after it are still
// compared with their own (a trace missing request B, and holding one no
// details request matches).
func TestComparePaired(t *testing.T) {
	details := workedExample()
	var tr []record.Request
	pairs := make([]int, len(details))
	for i, r := range details {
		pairs[i] = -1
		if r.ID == "B" {
			continue
		}
		pairs[i] = len(tr)
		tr = append(tr, r)
	}
	stray := details[0]
	stray.ID = "Z"
	tr = append(tr, stray)
	ms, _ := ComparePaired(tr, details, pairs, DefaultTolerance)
	var got []string
	for _, m := range ms {
		got = append(got, m.Field+"@"+m.DetailsID+"/"+m.TraceID)
	}
	if want := []string{"request@B/", "request@/Z"}; !slices.Equal(got, want) {
		t.Errorf("mismatches %q, want %q", got, want)
	}
	// By position, everything after B would be compared with the wrong request.
	if ms, _ := CompareSources(tr, details, DefaultTolerance); len(ms) <= 2 {
		t.Errorf("by position: %v", ms)
	}
}

func TestParseClaim(t *testing.T) {
	good := []struct {
		in      string
		stat    string
		metric  metric.Metric
		common  string
		value   float64
		perCard bool
	}{
		{"P95(TTFT)=812ms", "P95", metric.TTFT, "", 812, false},
		{"P90(E2E)@stable=5.2 s", "P90", metric.E2EL, "", 5200, false},
		{"Mean(TPOT)=31.25", "Average", metric.TPOT, "", 31.25, false},
		{"output token throughput=4100 token/s", "", "", "Output Token Throughput", 4100, false},
		{"Output Token Throughput per card = 512", "", "", "Output Token Throughput", 512, true},
	}
	for _, g := range good {
		c, err := ParseClaim(g.in)
		if err != nil {
			t.Errorf("%q: %v", g.in, err)
			continue
		}
		if c.Stat != g.stat || c.Metric != g.metric || c.Common != g.common || c.Value != g.value || c.PerCard != g.perCard {
			t.Errorf("%q: %+v", g.in, c)
		}
	}
	c, err := ParseClaim("P90(E2EL)=P90(TTFT)+1024*P90(TPOT)")
	if err != nil || !c.Formula || c.FormulaL != 1024 || c.FormulaQ != "P90" {
		t.Errorf("formula: %+v %v", c, err)
	}
	for _, bad := range []string{"P95(TTFT)", "P100(TTFT)=1", "P95(FOO)=1", "Goodput=3", "P90(E2EL)=P90(TTFT)+3*P99(TPOT)", "P90(TTFT)=fast", "P90(TTFT)@warmup=1", "P90(TTFT)=3 token/s"} {
		if _, err := ParseClaim(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestParseCards(t *testing.T) {
	if c, err := ParseCards("P8+D8"); err != nil || c.All != 16 || c.Prefill != 8 || c.Decode != 8 {
		t.Errorf("%+v %v", c, err)
	}
	if c, err := ParseCards("16"); err != nil || c.All != 16 || c.Prefill != 0 {
		t.Errorf("%+v %v", c, err)
	}
	for _, bad := range []string{"", "0", "P8", "P0+D8", "eight"} {
		if _, err := ParseCards(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestLints: claims, per-card figures, the rate and the percentile sum.
func TestLints(t *testing.T) {
	recs := workedExample()
	csv, js := files(t, recs, 2, aisbench.StageTotal)
	rep, _ := recompute(recs, 2, []string{"P90"})
	p90 := func(m metric.Metric) float64 { return pynum.PyRound(rep.Total.Metric(m).Stats[0].Rounded*1000, 4) }
	l := rep.Total.Common.TotalGeneratedTokens / int64(len(recs)) // not the mean exactly: a round L
	sum := p90(metric.TTFT) + float64(l)*p90(metric.TPOT)
	var claims []Claim
	for _, s := range []string{
		"P95(TTFT)=1ms",
		"P90(E2EL)=" + fmtNum(pynum.PyRound(sum, 1)) + "ms",
		"P90(E2EL)=P90(TTFT)+" + fmtNum(float64(l)) + "*P90(TPOT)",
		"Output Token Throughput per card=" + fmtNum(pynum.PyRound(rep.Total.Common.OutputTokenThroughput.Rounded/8, 2)),
		"P90(TTFT)=" + fmtNum(p90(metric.TTFT)) + "ms",
	} {
		c, err := ParseClaim(s)
		if err != nil {
			t.Fatal(err)
		}
		claims = append(claims, c)
	}
	cards, _ := ParseCards("P8+D8")
	res, err := Run(Input{Reported: reported(t, csv, js), Records: recs, MaxConcurrency: 2}, Options{Claims: claims, Cards: cards, Rate: 5})
	if err != nil {
		t.Fatal(err)
	}
	holds := []bool{false, false, false, true, true}
	for i, c := range res.Claims {
		if !c.Tested || c.Holds != holds[i] {
			t.Errorf("claim %q: tested %v holds %v (%s)", c.Claim.Text, c.Tested, c.Holds, c.Detail)
		}
	}
	if !strings.Contains(res.Claims[3].Detail, "matches the 8 D-side cards") {
		t.Errorf("per card: %s", res.Claims[3].Detail)
	}
	codes := map[string]int{}
	for _, f := range res.Findings {
		codes[f.Code]++
	}
	for code, n := range map[string]int{FindingStatNotInTable: 1, FindingE2ESumOfPercents: 2, FindingPerCard: 1, FindingRateBelowConfig: 1} {
		if codes[code] != n {
			t.Errorf("%d %s findings, want %d (%v)", codes[code], code, n, codes)
		}
	}
	if !res.Discrepant() || len(res.Diffs) != 0 {
		t.Errorf("discrepant %v, diffs %v", res.Discrepant(), res.Diffs)
	}
}

// TestCachedPrefix: the uncached input throughput beside AISBench's.
func TestCachedPrefix(t *testing.T) {
	recs := workedExample()
	csv, js := files(t, recs, 2, aisbench.StageTotal)
	cached := make([]*int64, len(recs))
	for i := range cached {
		cached[i] = i64(600)
	}
	res, err := Run(Input{Reported: reported(t, csv, js), Records: recs, MaxConcurrency: 2, CachedTokens: cached}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		if f.Code == FindingCachedPrefix {
			if !strings.Contains(f.Message, "counts 4200 prompt tokens served from the prefix cache") {
				t.Errorf("%s", f.Message)
			}
			return
		}
	}
	t.Errorf("no cached-prefix finding: %+v", res.Findings)
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ csv, want string }{
		{"", "empty file"},
		{"a,b,c\r\n", "header"},
		{"Performance Parameters,Stage,Average,N\r\nE2EL,total,1 ms\r\n", "line 2: 3 fields: want 4"},
		{"Performance Parameters,Stage,Average,N\r\nE2EL,total,1 ms,3\r\nE2EL,total,1 ms,3\r\n", "line 3: metric E2EL stage total again"},
		{"Performance Parameters,Stage,Average,N\r\n\"E2EL,total\r\n", "not CSV"},
	} {
		_, err := ParseCSV("ds.csv", []byte(c.csv))
		var pe *ParseError
		if err == nil || !errors.As(err, &pe) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.csv, err, c.want)
		}
	}
	for _, c := range []struct{ js, want string }{
		{"[]", "want a JSON object"},
		{`{"a": 1}`, `metric "a": want an object`},
		{`{"a": {"total": [1]}}`, "want a number or a string"},
		{`{"a": {}, "a": {}}`, `metric "a" twice`},
		{`{"a": {}} x`, "after the JSON object"},
	} {
		_, err := ParseJSON("ds.json", []byte(c.js))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.js, err, c.want)
		}
	}
}

func FuzzParseCSV(f *testing.F) {
	csv, _ := files(&testing.T{}, workedExample(), 2, aisbench.StageTotal)
	f.Add(csv)
	f.Add([]byte("Performance Parameters,Stage,N\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := ParseCSV("x", data)
		if err != nil {
			return
		}
		for _, r := range tab.Rows {
			if len(r.Cells) != len(tab.Stats) {
				t.Errorf("row %d: %d cells for %d stats", r.Line, len(r.Cells), len(tab.Stats))
			}
		}
	})
}

func FuzzParseJSON(f *testing.F) {
	_, js := files(&testing.T{}, workedExample(), 2, aisbench.StageTotal)
	f.Add(js)
	f.Add([]byte(`{"a": {}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cm, err := ParseJSON("x", data)
		if err == nil && cm == nil {
			t.Error("nil entries without an error")
		}
	})
}

func FuzzParseClaim(f *testing.F) {
	for _, s := range []string{"P95(TTFT)=812ms", "P90(E2EL)@stable=5.2 s", "Output Token Throughput per card=512", "P90(E2EL)=P90(TTFT)+1024*P90(TPOT)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseClaim(s)
		if err != nil {
			return
		}
		if c.Stat == "" && c.Common == "" {
			t.Errorf("%q: neither a statistic nor a common metric", s)
		}
	})
}

// FuzzRun: any parsable report checks without a panic, and a report equal
// to the recomputation never differs.
// FuzzRun: any report that parses is checked without a panic, and the
// check holds together: the files AISBench writes for the records check
// clean; every difference names a known cause, a stage the report speaks
// of, and two different texts; the same input gives the same result; the
// result renders as text and as valid JSON.
func FuzzRun(f *testing.F) {
	recs := workedExample()
	csv, js := files(&testing.T{}, recs, 2, aisbench.StageTotal)
	stableCSV, stableJS := files(&testing.T{}, recs, 2, aisbench.StageStable)
	f.Add(csv, js)
	f.Add(stableCSV, stableJS)
	f.Add(stableCSV, js)
	f.Add([]byte(strings.Replace(string(csv), "3940", "3941", 1)), js)
	causes := []Cause{CauseFormat, CauseRounding, CauseSubset, CauseMore, CauseStage, CauseMissing, CauseExtra, CauseNoStage, CauseSources, CauseHandEdit}
	f.Fuzz(func(t *testing.T, csvIn, jsIn []byte) {
		tab, err1 := ParseCSV("x", csvIn)
		cm, err2 := ParseJSON("y", jsIn)
		if err1 != nil || err2 != nil {
			return
		}
		in := Input{Reported: &Reported{CSVFile: "x", JSONFile: "y", CSV: tab, Common: cm, CSVBytes: csvIn, JSONBytes: jsIn},
			Records: recs, MaxConcurrency: 2}
		res, err := Run(in, Options{})
		if err != nil {
			if len(in.Reported.Stages()) == 0 {
				return // nothing to check: Run says so
			}
			t.Fatalf("Run: %v", err)
		}
		if (bytes.Equal(csvIn, csv) && bytes.Equal(jsIn, js)) || (bytes.Equal(csvIn, stableCSV) && bytes.Equal(jsIn, stableJS)) {
			if res.Discrepant() {
				t.Fatalf("AISBench's own files are discrepant: %+v", res.Diffs)
			}
		}
		for _, d := range res.Diffs {
			if !slices.Contains(causes, d.Cause) {
				t.Fatalf("unknown cause %q in %+v", d.Cause, d)
			}
			if d.Reported == d.Recomputed {
				t.Fatalf("a difference between equal texts: %+v", d)
			}
			if d.Stage != "" && !slices.Contains(res.Stages, d.Stage) {
				t.Fatalf("a difference in stage %q, the report speaks of %v: %+v", d.Stage, res.Stages, d)
			}
		}
		again, err := Run(in, Options{})
		if err != nil || !reflect.DeepEqual(again.Diffs, res.Diffs) || again.Compared != res.Compared {
			t.Fatalf("a second Run differs: %v", err)
		}
		var text, doc bytes.Buffer
		if err := res.WriteText(&text); err != nil {
			t.Fatal(err)
		}
		if err := res.WriteJSON(&doc); err != nil || !json.Valid(doc.Bytes()) {
			t.Fatalf("JSON: %v, valid %v", err, json.Valid(doc.Bytes()))
		}
	})
}

// TestMislabelledStage: the stable stage's table sold as the total stage.
func TestMislabelledStage(t *testing.T) {
	recs := workedExample()
	csv, _ := files(t, recs, 2, aisbench.StageStable)
	_, js := files(t, recs, 2, aisbench.StageTotal)
	csv = []byte(strings.ReplaceAll(string(csv), ",stable,", ",total,"))
	res, err := Run(Input{Reported: reported(t, csv, js), Records: recs, MaxConcurrency: 2}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	stage := 0
	for _, d := range res.Diffs {
		if d.Cause == CauseStage {
			stage++
		} else if d.Statistic != "N" {
			t.Errorf("%+v: want the stable stage's value", d)
		}
	}
	if stage < len(res.Diffs)/2 || len(res.Diffs) == 0 {
		t.Errorf("%d of %d diffs attributed to the other stage", stage, len(res.Diffs))
	}
}
