package check

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/findings"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/pynum"
	"github.com/sseaudit/sseaudit/unit"
)

// The lint codes check adds to the audit's own findings.
const (
	FindingStatNotInTable   = "stat-not-in-table"
	FindingClaimMismatch    = "claim-mismatch"
	FindingPerCard          = "per-card-divisor"
	FindingRateBelowConfig  = "rate-below-configured"
	FindingCachedPrefix     = "cached-prefix-counted"
	FindingE2ESumOfPercents = "e2e-sum-of-percentiles"
)

// Cards is how many cards a per-card figure may be divided by: All, or a
// disaggregated deployment's Prefill and Decode sides (P8+D8: 16 in all).
type Cards struct {
	All             int
	Prefill, Decode int // 0 when not disaggregated
}

// ParseCards reads "16" or "P8+D8".
func ParseCards(s string) (*Cards, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.Atoi(s); err == nil {
		if n < 1 {
			return nil, fmt.Errorf("cards %q: want a positive count or P<n>+D<n>", s)
		}
		return &Cards{All: n}, nil
	}
	m := regexp.MustCompile(`^(?i)P(\d+)\s*\+\s*D(\d+)$`).FindStringSubmatch(s)
	if m == nil {
		return nil, fmt.Errorf("cards %q: want a count (16) or prefill+decode cards (P8+D8)", s)
	}
	p, err1 := strconv.Atoi(m[1])
	d, err2 := strconv.Atoi(m[2])
	if err1 != nil || err2 != nil || p < 1 || d < 1 || p > 1<<20 || d > 1<<20 {
		return nil, fmt.Errorf("cards %q: want positive card counts", s)
	}
	return &Cards{All: p + d, Prefill: p, Decode: d}, nil
}

func (c *Cards) String() string {
	if c.Prefill > 0 {
		return fmt.Sprintf("P%d+D%d", c.Prefill, c.Decode)
	}
	return strconv.Itoa(c.All)
}

// Claim is a figure quoted from a report's prose, to test against the data:
//
//	P95(TTFT)=812 ms            a statistic of a metric (any Pnn, Average, Min, Max, Median)
//	P90(E2EL)@stable=5.2 s      of a given stage (default: the report's)
//	Output Token Throughput=4100 token/s
//	Output Token Throughput per card=512
//	P90(E2EL)=P90(TTFT)+1024*P90(TPOT)   a figure quoted as a sum of percentiles
type Claim struct {
	Text     string
	Stat     string        // "" for a common metric
	Metric   metric.Metric // for a statistic
	Common   string        // the common metric's name
	PerCard  bool
	Stage    string // "" = the report's
	Value    float64
	Decimals int    // decimals the quoted value was written with
	Unit     string // as written: "ms", "s", "token/s", "req/s" or ""
	Formula  bool   // the value is Stat(TTFT) + L*Stat(TPOT)
	FormulaL float64
	FormulaQ string // the statistic of the formula's terms
}

var metricAliases = map[string]metric.Metric{
	"e2el": metric.E2EL, "e2e": metric.E2EL, "latency": metric.E2EL,
	"ttft": metric.TTFT, "tpot": metric.TPOT, "itl": metric.ITL,
	"inputtokens": metric.InputTokens, "outputtokens": metric.OutputTokens,
	"outputtokenthroughput": metric.OutputTokenThroughput, "prefilltokenthroughput": metric.PrefillTokenThroughput,
}

var commonNames = []string{"Benchmark Duration", "Total Requests", "Failed Requests", "Success Requests", "Concurrency",
	"Max Concurrency", "Request Throughput", "Total Input Tokens", "Total Generated Tokens",
	"Input Token Throughput", "Output Token Throughput", "Total Token Throughput"}

func squash(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), "")) }

var (
	statRe    = regexp.MustCompile(`^\s*(Average|Mean|Min|Max|Median|P\d{1,2}(?:\.\d+)?)\s*\(\s*([A-Za-z0-9 ]+?)\s*\)\s*$`)
	valueRe   = regexp.MustCompile(`^\s*([-+]?\d+(?:\.(\d*))?(?:[eE][-+]?\d+)?)\s*(ms|s|token/s|tokens/s|tok/s|req/s|%)?\s*$`)
	formulaRe = regexp.MustCompile(`^\s*(P\d{1,2}|Median|Average)\s*\(\s*TTFT\s*\)\s*\+\s*(\d+(?:\.\d+)?)\s*[*x×]\s*(P\d{1,2}|Median|Average)\s*\(\s*TPOT\s*\)\s*$`)
)

// ParseClaim reads one --claim.
func ParseClaim(s string) (Claim, error) {
	c := Claim{Text: s}
	lhs, rhs, ok := strings.Cut(s, "=")
	if !ok {
		return c, fmt.Errorf("claim %q: want FIGURE=VALUE, e.g. P95(TTFT)=812ms", s)
	}
	if l, st, ok := strings.Cut(lhs, "@"); ok {
		lhs, c.Stage = l, strings.TrimSpace(st)
		if _, err := aisbench.ParseStage(c.Stage); err != nil {
			return c, fmt.Errorf("claim %q: stage %q: want total or stable", s, c.Stage)
		}
	}
	if m := statRe.FindStringSubmatch(lhs); m != nil {
		c.Stat = m[1]
		if c.Stat == "Mean" {
			c.Stat = "Average"
		}
		met, ok := metricAliases[squash(m[2])]
		if !ok {
			return c, fmt.Errorf("claim %q: metric %q: want E2EL, TTFT, TPOT, ITL, InputTokens, OutputTokens, OutputTokenThroughput or PrefillTokenThroughput", s, m[2])
		}
		c.Metric = met
		if valid, _ := aisbench.ValidateStats([]string{c.Stat}); len(valid) != 1 || valid[0] != c.Stat {
			return c, fmt.Errorf("claim %q: %q is not a statistic AISBench computes (Average, Min, Max, Median, P1..P99)", s, c.Stat)
		}
	} else {
		name := lhs
		if n, ok := strings.CutSuffix(strings.TrimSpace(lhs), "per card"); ok {
			name, c.PerCard = n, true
		}
		for _, cn := range commonNames {
			if squash(cn) == squash(name) {
				c.Common = cn
			}
		}
		if c.Common == "" {
			return c, fmt.Errorf("claim %q: %q is neither STAT(METRIC) nor one of AISBench's common metrics (%s)", s, strings.TrimSpace(lhs), strings.Join(commonNames, ", "))
		}
	}
	if m := formulaRe.FindStringSubmatch(rhs); m != nil {
		if c.Metric != metric.E2EL || m[1] != m[3] {
			return c, fmt.Errorf("claim %q: a sum of percentiles is tested for STAT(E2EL)=STAT(TTFT)+L*STAT(TPOT) with one statistic", s)
		}
		c.Formula, c.FormulaQ = true, m[1]
		c.FormulaL, _ = strconv.ParseFloat(m[2], 64)
		return c, nil
	}
	m := valueRe.FindStringSubmatch(rhs)
	if m == nil {
		return c, fmt.Errorf("claim %q: value %q: want a number with an optional unit (ms, s, token/s, req/s)", s, strings.TrimSpace(rhs))
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil || math.IsInf(v, 0) {
		return c, fmt.Errorf("claim %q: value %q is not a finite number", s, m[1])
	}
	c.Value, c.Decimals, c.Unit = v, len(m[2]), m[3]
	if c.Unit == "tokens/s" || c.Unit == "tok/s" {
		c.Unit = "token/s"
	}
	if c.Stat != "" && c.Metric.Unit() == unit.Seconds {
		switch c.Unit {
		case "s":
			c.Value *= 1000
			c.Decimals = max(0, c.Decimals-3)
			c.Unit = "ms"
		case "ms", "":
			c.Unit = "ms"
		default:
			return c, fmt.Errorf("claim %q: unit %q for a time: want ms or s", s, c.Unit)
		}
	}
	return c, nil
}

// ClaimResult is a claim tested.
type ClaimResult struct {
	Claim  Claim
	Stage  string
	Tested bool // false when the data cannot say (no such stage, no --cards)
	Holds  bool
	// Actual is the figure recomputed the AISBench way, in the claim's unit.
	Actual  float64
	InTable bool // the statistic is a column of the report's table
	Detail  string
}

// lint tests the claims and derives the report's lint findings.
func lint(in Input, rep *audit.Report, opts Options, stages []string) ([]ClaimResult, []findings.Finding) {
	var claims []ClaimResult
	var found []findings.Finding
	defStage := ""
	for _, s := range stages {
		if st, err := aisbench.ParseStage(s); err == nil && string(st) == s {
			defStage = s
			break
		}
	}
	lc := claimLinter{in: in, rep: rep, cards: opts.Cards, statValue: claimStats(in, opts.Claims)}
	if in.Reported.CSV != nil {
		lc.tableStats = in.Reported.CSV.Stats
	}
	for _, c := range opts.Claims {
		cr := ClaimResult{Claim: c, Stage: c.Stage}
		if cr.Stage == "" {
			cr.Stage = defStage
		}
		claims = append(claims, lc.test(cr, &found))
	}
	for _, s := range stages {
		st, err := aisbench.ParseStage(s)
		if err != nil || string(st) != s || rep.Stage(st).Err != nil {
			continue
		}
		if opts.Cards != nil {
			found = append(found, cardFinding(rep.Stage(st), opts.Cards))
		}
		if f, ok := cachedFinding(in, rep.Stage(st)); ok {
			found = append(found, f)
		}
	}
	if opts.Rate > 0 && rep.Total.Err == nil {
		if f, ok := rateFinding(in, rep, opts.Rate); ok {
			found = append(found, f)
		}
	}
	// The audit's own findings about the stages the report speaks of.
	for _, f := range rep.Findings {
		if f.Stage == "" || contains(stages, string(f.Stage)) {
			found = append(found, f)
		}
	}
	return claims, found
}

// claimStats is the value AISBench prints for every statistic the claims
// need (in ms for times), computed in as few passes as AISBench's 8-column
// limit allows (a pass is a full recomputation).
func claimStats(in Input, claims []Claim) statFunc {
	var need []string
	seen := map[string]bool{}
	for _, c := range claims {
		for _, s := range []string{c.Stat, c.FormulaQ, "Average", "Median", "Max"} {
			if s != "" && !seen[s] {
				seen[s] = true
				need = append(need, s)
			}
		}
	}
	statCache := map[string]*audit.Report{}
	for i := 0; i < len(need); i += 8 {
		chunk := need[i:min(i+8, len(need))]
		r, err := recompute(in.Records, in.MaxConcurrency, chunk)
		if err != nil {
			continue
		}
		for _, s := range chunk {
			statCache[s] = r
		}
	}
	return func(stage aisbench.Stage, m metric.Metric, stat string) (float64, bool) {
		r := statCache[stat]
		if r == nil || r.Stage(stage).Err != nil {
			return 0, false
		}
		mr := r.Stage(stage).Metric(m)
		if mr == nil {
			return 0, false
		}
		for _, st := range mr.Stats {
			if st.Name != stat {
				continue
			}
			v := st.Rounded
			if mr.Unit == unit.Seconds {
				v = pynum.PyRound(v*1000, 4)
			}
			return v, true
		}
		return 0, false
	}
}

// claimLinter tests claims against the recomputed report.
type claimLinter struct {
	in         Input
	rep        *audit.Report
	cards      *Cards
	statValue  statFunc
	tableStats []string // the report's statistics columns
}

// test tests one claim, adding what it finds to found.
func (lc *claimLinter) test(cr ClaimResult, found *[]findings.Finding) ClaimResult {
	c := cr.Claim
	st, err := aisbench.ParseStage(cr.Stage)
	if err != nil || lc.rep.Stage(st).Err != nil {
		cr.Detail = fmt.Sprintf("the %s stage has no numbers: cannot test", cr.Stage)
		return cr
	}
	switch {
	case c.Stat != "":
		cr.InTable = contains(lc.tableStats, c.Stat)
		actual, ok := lc.statValue(st, c.Metric, c.Stat)
		if !ok {
			cr.Detail = fmt.Sprintf("AISBench has no %s row in the %s stage: cannot test", c.Metric, st)
			break
		}
		cr.Tested, cr.Actual = true, actual
		if c.Formula {
			testFormula(&cr, st, lc.statValue, found)
			break
		}
		cr.Holds = agrees(c.Value, c.Decimals, actual)
		cr.Detail = fmt.Sprintf("%s(%s) of the %s stage is %s %s", c.Stat, c.Metric, st, fmtNum(actual), unitOf(c.Metric))
		if !cr.InTable {
			*found = append(*found, findings.Finding{Code: FindingStatNotInTable, Severity: findings.SeverityWarning, Stage: st, Figure: c.Stat + "(" + string(c.Metric) + ")",
				Message:  fmt.Sprintf("%s(%s) is quoted (%s) but the table has no %s column (it has %s): nothing in AISBench's files backs it; computed the AISBench way it is %s %s", c.Stat, c.Metric, c.Text, c.Stat, strings.Join(lc.tableStats, ", "), fmtNum(actual), unitOf(c.Metric)),
				Evidence: []findings.Evidence{{Name: "quoted", Value: c.Value, Unit: claimUnit(c)}, {Name: "recomputed", Value: actual, Unit: claimUnit(c)}}})
		}
		if !cr.Holds && c.Metric == metric.E2EL {
			impliedSum(&cr, st, lc.statValue, found)
		}
	case c.PerCard:
		perCard(&cr, st, lc.rep, lc.cards)
	default:
		actual, ok := commonValue(lc.rep.Stage(st), c.Common)
		if !ok {
			cr.Detail = fmt.Sprintf("%s is not defined for the %s stage: cannot test", c.Common, st)
			break
		}
		cr.Tested, cr.Actual = true, actual
		cr.Holds = agrees(c.Value, c.Decimals, actual)
		cr.Detail = fmt.Sprintf("%s of the %s stage is %s", c.Common, st, fmtNum(actual))
	}
	if cr.Tested && !cr.Holds && !c.Formula {
		*found = append(*found, findings.Finding{Code: FindingClaimMismatch, Severity: findings.SeverityError, Stage: st, Figure: claimFigure(c),
			Message:  fmt.Sprintf("quoted %q, but %s", c.Text, cr.Detail),
			Evidence: []findings.Evidence{{Name: "quoted", Value: c.Value, Unit: claimUnit(c)}, {Name: "recomputed", Value: cr.Actual, Unit: claimUnit(c)}}})
	}
	return cr
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

func claimFigure(c Claim) string {
	if c.Stat != "" {
		return c.Stat + "(" + string(c.Metric) + ")"
	}
	if c.PerCard {
		return c.Common + " per card"
	}
	return c.Common
}

func claimUnit(c Claim) unit.Unit {
	switch {
	case c.Stat != "" && c.Metric.Unit() == unit.Seconds:
		return unit.Unit("ms")
	case c.Stat != "":
		return c.Metric.Unit()
	}
	return unit.Unit(c.Unit)
}

// unitOf is the unit a metric's values are shown in.
func unitOf(m metric.Metric) string { return unit.Label(m.Unit()) }

// agrees: the quoted value is the actual one at the quoted precision.
func agrees(quoted float64, decimals int, actual float64) bool {
	tol := 0.5 * math.Pow(10, -float64(decimals))
	return math.Abs(quoted-actual) <= tol*(1+1e-9)
}

func fmtNum(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// commonValue is a common metric's value as AISBench writes it (rounded).
func commonValue(st *aisbench.StageResult, name string) (float64, bool) {
	c := st.Common
	switch name {
	case "Benchmark Duration":
		return c.BenchmarkDurationMs, true
	case "Total Requests":
		return float64(c.TotalRequests), true
	case "Failed Requests":
		return float64(c.FailedRequests), true
	case "Success Requests":
		return float64(c.SuccessRequests), true
	case "Concurrency":
		if c.ConcurrencyCapped {
			return float64(c.MaxConcurrency), true
		}
		return c.Concurrency.Rounded, true
	case "Max Concurrency":
		return float64(c.MaxConcurrency), true
	case "Request Throughput":
		return c.RequestThroughput.Rounded, true
	case "Total Input Tokens":
		return float64(c.TotalInputTokens), true
	case "Total Generated Tokens":
		return float64(c.TotalGeneratedTokens), true
	case "Input Token Throughput":
		return c.InputTokenThroughput.Rounded, c.HasTokenThroughput
	case "Output Token Throughput":
		return c.OutputTokenThroughput.Rounded, c.HasTokenThroughput
	case "Total Token Throughput":
		return c.TotalTokenThroughput.Rounded, c.HasTokenThroughput
	}
	return 0, false
}

type statFunc func(aisbench.Stage, metric.Metric, string) (float64, bool)

// testFormula tests "Pq(E2EL) = Pq(TTFT) + L*Pq(TPOT)": the sum against the
// actual Pq(E2EL).
func testFormula(cr *ClaimResult, st aisbench.Stage, stat statFunc, found *[]findings.Finding) {
	c := cr.Claim
	ttft, ok1 := stat(st, metric.TTFT, c.FormulaQ)
	tpot, ok2 := stat(st, metric.TPOT, c.FormulaQ)
	if !ok1 || !ok2 {
		cr.Tested = false
		cr.Detail = fmt.Sprintf("the %s stage has no TTFT or TPOT row: cannot test", st)
		return
	}
	sum := ttft + c.FormulaL*tpot
	cr.Holds = math.Abs(sum-cr.Actual) <= 0.05 // AISBench's 0.1 ms resolution
	cr.Detail = fmt.Sprintf("%s(TTFT) + %s x %s(TPOT) = %s + %s x %s = %s ms; the actual %s(E2EL) is %s ms", c.FormulaQ, fmtNum(c.FormulaL), c.FormulaQ,
		fmtNum(ttft), fmtNum(c.FormulaL), fmtNum(tpot), fmtNum(roundTo(sum, 4)), c.Stat, fmtNum(cr.Actual))
	if !cr.Holds {
		*found = append(*found, sumFinding(st, c.Stat, cr.Actual, ttft, tpot, c.FormulaL, sum, c.Text))
	}
}

func roundTo(x float64, k int) float64 { return pynum.PyRound(x, k) }

func sumFinding(st aisbench.Stage, q string, actual, ttft, tpot, l, sum float64, text string) findings.Finding {
	return findings.Finding{Code: FindingE2ESumOfPercents, Severity: findings.SeverityError, Stage: st, Figure: q + "(E2EL)",
		Message: fmt.Sprintf("%q: %s(E2EL) is quoted as %s(TTFT) + L x %s(TPOT) with L = %s (%s ms); percentiles do not add (the slowest first tokens and the slowest decodes are not the same requests): the actual %s(E2EL) is %s ms (%+.1f%%)",
			text, q, q, q, fmtNum(roundTo(l, 2)), fmtNum(roundTo(sum, 4)), q, fmtNum(actual), 100*(sum-actual)/actual),
		Evidence: []findings.Evidence{{Name: "quoted", Value: sum, Unit: "ms"}, {Name: q + "(E2EL)", Value: actual, Unit: "ms"},
			{Name: q + "(TTFT)", Value: ttft, Unit: "ms"}, {Name: q + "(TPOT)", Value: tpot, Unit: "ms"}, {Name: "L", Value: l, Unit: unit.Tokens}}}
}

// impliedSum checks whether a wrong Pq(E2EL) is Pq(TTFT) + L*Pq(TPOT) for an
// output length L the run suggests.
func impliedSum(cr *ClaimResult, st aisbench.Stage, stat statFunc, found *[]findings.Finding) {
	c := cr.Claim
	if c.Stat == "Average" {
		return // means do add: Average(E2EL) = Average(TTFT) + Average(decode)
	}
	ttft, ok1 := stat(st, metric.TTFT, c.Stat)
	tpot, ok2 := stat(st, metric.TPOT, c.Stat)
	if !ok1 || !ok2 || tpot <= 0 {
		return
	}
	implied := (c.Value - ttft) / tpot
	tolL := math.Max(0.5, 0.5*math.Pow(10, -float64(c.Decimals))/tpot)
	var cands []struct {
		name string
		v    float64
	}
	for _, s := range []string{"Average", "Median", c.Stat, "Max"} {
		if v, ok := stat(st, metric.OutputTokens, s); ok {
			cands = append(cands, struct {
				name string
				v    float64
			}{s + "(OutputTokens)", v}, struct {
				name string
				v    float64
			}{s + "(OutputTokens) - 1", v - 1})
		}
	}
	for _, k := range cands {
		if math.Abs(implied-k.v) <= tolL {
			f := sumFinding(st, c.Stat, cr.Actual, ttft, tpot, k.v, ttft+k.v*tpot, c.Text)
			f.Message += fmt.Sprintf("; L = %s is %s", fmtNum(roundTo(k.v, 4)), k.name)
			*found = append(*found, f)
			cr.Detail += fmt.Sprintf("; the quoted value is %s(TTFT) + L x %s(TPOT) with L = %s (%s)", c.Stat, c.Stat, fmtNum(roundTo(k.v, 4)), k.name)
			return
		}
	}
	if implied > 1 && math.Abs(implied-math.Round(implied)) <= 0.5*math.Pow(10, -float64(c.Decimals))/tpot {
		l := math.Round(implied)
		*found = append(*found, sumFinding(st, c.Stat, cr.Actual, ttft, tpot, l, ttft+l*tpot, c.Text))
		cr.Detail += fmt.Sprintf("; the quoted value is %s(TTFT) + %s x %s(TPOT)", c.Stat, fmtNum(l), c.Stat)
	}
}

// divisors are the labelled divisors a per-card figure may use.
func divisors(cards *Cards, common string) []struct {
	label string
	n     int
} {
	type d = struct {
		label string
		n     int
	}
	out := []d{{fmt.Sprintf("all %d cards", cards.All), cards.All}}
	if cards.Prefill > 0 {
		switch common {
		case "Input Token Throughput":
			out = append(out, d{fmt.Sprintf("the %d P-side cards", cards.Prefill), cards.Prefill})
		case "Output Token Throughput":
			out = append(out, d{fmt.Sprintf("the %d D-side cards", cards.Decode), cards.Decode})
		default:
			out = append(out, d{fmt.Sprintf("the %d D-side cards", cards.Decode), cards.Decode})
		}
	}
	return out
}

func perCard(cr *ClaimResult, st aisbench.Stage, rep *audit.Report, cards *Cards) {
	c := cr.Claim
	v, ok := commonValue(rep.Stage(st), c.Common)
	if !ok {
		cr.Detail = fmt.Sprintf("%s is not defined for the %s stage: cannot test", c.Common, st)
		return
	}
	if cards == nil {
		cr.Detail = fmt.Sprintf("a per-card figure without its divisor: give --cards (16, or P8+D8) to test it; %s is %s", c.Common, fmtNum(v))
		return
	}
	cr.Tested = true
	var parts []string
	for _, d := range divisors(cards, c.Common) {
		per := v / float64(d.n)
		parts = append(parts, fmt.Sprintf("%s / %d = %s (%s)", c.Common, d.n, fmtNum(roundTo(per, 4)), d.label))
		if !cr.Holds && agrees(c.Value, c.Decimals, per) {
			cr.Holds, cr.Actual = true, per
			cr.Detail = "matches " + d.label + "; "
		}
	}
	if !cr.Holds {
		cr.Actual = v / float64(cards.All)
		cr.Detail = "matches no divisor; "
	}
	cr.Detail += strings.Join(parts, ", ")
}

// cardFinding lists a stage's throughputs per card, each divisor labelled.
func cardFinding(st *aisbench.StageResult, cards *Cards) findings.Finding {
	f := findings.Finding{Code: FindingPerCard, Severity: findings.SeverityInfo, Stage: st.Stage, Figure: "per card"}
	var parts []string
	for _, name := range []string{"Output Token Throughput", "Input Token Throughput", "Total Token Throughput", "Request Throughput"} {
		v, ok := commonValue(st, name)
		if !ok {
			continue
		}
		for _, d := range divisors(cards, name) {
			per := v / float64(d.n)
			parts = append(parts, fmt.Sprintf("%s per card = %s (/%d, %s)", name, fmtNum(roundTo(per, 4)), d.n, d.label))
			f.Evidence = append(f.Evidence, findings.Evidence{Name: fmt.Sprintf("%s / %d", name, d.n), Value: per, Unit: "per card"})
		}
	}
	f.Message = fmt.Sprintf("cards %s: a per-card figure means nothing without its divisor; %s", cards, strings.Join(parts, "; "))
	return f
}

// cachedFinding: the input throughput counts prompt tokens the server took
// from its prefix cache.
func cachedFinding(in Input, st *aisbench.StageResult) (findings.Finding, bool) {
	if in.CachedTokens == nil || st.DurationSeconds <= 0 {
		return findings.Finding{}, false
	}
	var input, cached int64
	known := 0
	var prefill []float64
	for _, i := range st.Requests {
		if i >= len(in.Records) || i >= len(in.CachedTokens) {
			continue
		}
		r := in.Records[i]
		if r.InputTokens == nil {
			continue
		}
		in0 := *r.InputTokens
		input += in0
		var c int64
		if p := in.CachedTokens[i]; p != nil {
			c = min(*p, in0)
			known++
		}
		cached += c
		if ttft := r.TimePoints[1] - r.TimePoints[0]; ttft > 0 {
			prefill = append(prefill, float64(in0-c)/ttft)
		} else {
			prefill = append(prefill, 0)
		}
	}
	if cached == 0 {
		return findings.Finding{}, false
	}
	t := st.DurationSeconds
	reported := float64(input) / t
	uncached := float64(input-cached) / t
	f := findings.Finding{Code: FindingCachedPrefix, Severity: findings.SeverityWarning, Stage: st.Stage, Figure: "Input Token Throughput",
		Message: fmt.Sprintf("Input Token Throughput %s token/s counts %d prompt tokens served from the prefix cache (%.1f%% of %d; usage.prompt_tokens_details.cached_tokens of %d requests): the uncached prefill is %s token/s (mean PrefillTokenThroughput %s uncached)",
			fmtNum(roundTo(reported, 4)), cached, 100*float64(cached)/float64(input), input, known, fmtNum(roundTo(uncached, 4)), fmtNum(roundTo(pynum.NumpyMean(prefill), 4))),
		Evidence: []findings.Evidence{{Name: "input tokens", Value: float64(input), Unit: unit.Tokens}, {Name: "cached tokens", Value: float64(cached), Unit: unit.Tokens},
			{Name: "Input Token Throughput", Value: reported, Unit: unit.TokensPerSecond}, {Name: "uncached input throughput", Value: uncached, Unit: unit.TokensPerSecond}}}
	return f, true
}

// rateFinding explains a request throughput below the configured rate: the
// run's duration T is the sending span S plus the drain D after the last
// send; at the configured rate R the n requests need (n-1)/R of sending and
// 1/R more. The excess splits into time the client could not send because C
// requests were in flight (concurrency limit), the rest of the sending
// span's excess (ramp-up and client pacing), and the drain beyond 1/R
// (residence time of the last requests).
func rateFinding(in Input, rep *audit.Report, rate float64) (findings.Finding, bool) {
	st := rep.Total
	x := st.Common.RequestThroughput.Raw
	if x >= rate*0.99 {
		return findings.Finding{}, false
	}
	type ev struct {
		t     float64
		start bool
	}
	var starts, ends []float64
	var evs []ev
	for _, i := range st.Requests {
		tp := in.Records[i].TimePoints
		starts = append(starts, tp[0])
		ends = append(ends, tp[len(tp)-1])
		evs = append(evs, ev{tp[0], true}, ev{tp[len(tp)-1], false})
	}
	n := len(starts)
	sort.Float64s(starts)
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].t < evs[j].t })
	first, lastStart := starts[0], starts[n-1]
	lastEnd := ends[0]
	for _, e := range ends {
		lastEnd = math.Max(lastEnd, e)
	}
	span, drain := lastStart-first, lastEnd-lastStart
	ideal := float64(n) / rate
	deficit := st.DurationSeconds - ideal
	// Time within the sending span with C requests in flight.
	blocked := 0.0
	if c := in.MaxConcurrency; c > 0 {
		inFlight, since := 0, 0.0
		for _, e := range evs {
			if e.t > lastStart {
				if inFlight >= c {
					blocked += lastStart - since
				}
				break
			}
			if inFlight >= c {
				blocked += e.t - since
			}
			if e.start {
				inFlight++
			} else {
				inFlight--
			}
			since = e.t
		}
	}
	spanExcess := span - float64(n-1)/rate
	limit := math.Min(math.Max(blocked, 0), math.Max(spanExcess, 0))
	ramp := math.Max(spanExcess-limit, 0)
	residence := drain - 1/rate
	share := func(v float64) float64 {
		if deficit <= 0 {
			return 0
		}
		return 100 * v / deficit
	}
	var e2el []float64
	if m := st.Metric(metric.E2EL); m != nil {
		e2el = m.Values
	}
	littles := math.Inf(1)
	if len(e2el) > 0 && in.MaxConcurrency > 0 {
		littles = float64(in.MaxConcurrency) / pynum.NumpyMean(e2el)
	}
	msg := fmt.Sprintf("request throughput %s req/s is below the configured %s req/s (%d requests in %s s where the rate needs %s s): concurrency limit %s s (%.0f%%; C = %d allows about C/mean(E2EL) = %s req/s), ramp-up and pacing %s s (%.0f%%), residence time of the last requests %s s (%.0f%%)",
		fmtNum(roundTo(x, 4)), fmtNum(rate), n, fmtNum(roundTo(st.DurationSeconds, 4)), fmtNum(roundTo(ideal, 4)),
		fmtNum(roundTo(limit, 4)), share(limit), in.MaxConcurrency, fmtNum(roundTo(littles, 4)),
		fmtNum(roundTo(ramp, 4)), share(ramp), fmtNum(roundTo(residence, 4)), share(residence))
	return findings.Finding{Code: FindingRateBelowConfig, Severity: findings.SeverityWarning, Stage: aisbench.StageTotal, Figure: "Request Throughput", Message: msg,
		Evidence: []findings.Evidence{{Name: "request throughput", Value: x, Unit: "req/s"}, {Name: "configured rate", Value: rate, Unit: "req/s"},
			{Name: "concurrency limit", Value: limit, Unit: unit.Seconds}, {Name: "ramp-up and pacing", Value: ramp, Unit: unit.Seconds},
			{Name: "residence time", Value: residence, Unit: unit.Seconds}, {Name: "C/mean(E2EL)", Value: littles, Unit: "req/s"}}}, true
}
