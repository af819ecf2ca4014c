package comparison

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/samples"
	"github.com/sseaudit/sseaudit/unit"
)

// Kind is what a --fail-on threshold is measured against.
type Kind string

const (
	// Relative: the change of B against A in percent (a signed "+5%").
	Relative Kind = "relative"
	// Absolute: the change B - A in the metric's unit (a signed "+2ms").
	Absolute Kind = "absolute"
	// Level: B's value itself (an unsigned "99.5%", "2s"); no test needed.
	Level Kind = "level"
)

// FailOn is one --fail-on expression, METRIC[.STAT] OP VALUE: the
// condition under which a comparison fails (exit 3).
type FailOn struct {
	Text   string // as given
	Metric metric.Metric
	// Stat is a statistic of the report (Average, Median, P90, ...: pooled
	// over intervals for ITL and ContentUpdateInterval, as audit report
	// computes them); "" is the comparison's center (the median of the
	// per-request values, or a run-level metric's value).
	Stat string
	Op   string // <, <=, > or >=
	Kind Kind
	// Threshold is in percent (Relative) or in the metric's unit (Absolute,
	// Level: seconds for times, a fraction for SuccessRate).
	Threshold float64
}

// ParseFailOn parses "METRIC[.STAT] OP VALUE": ITL.Average>+5% (the
// report's ITL Average rose by more than 5%), TPOT.P90>+2ms (rose by more
// than 2 ms), E2EL>+10% (the median E2EL), success<99.5% (B's success rate
// under 99.5%). A signed value is a change of B against A, relative with
// %, else absolute in the metric's unit (times need us, ms or s); an
// unsigned value is B's level. Metric names are case-insensitive
// (success, throughput are aliases).
func ParseFailOn(text string) (FailOn, error) {
	s := strings.Join(strings.Fields(text), "")
	bad := func(format string, args ...any) (FailOn, error) {
		return FailOn{}, fmt.Errorf("--fail-on %q: %s", text, fmt.Sprintf(format, args...))
	}
	i := strings.IndexAny(s, "<>")
	if i <= 0 {
		return bad("want METRIC[.STAT] OP VALUE, e.g. 'ITL.Average>+5%%', 'TPOT.P90>+2ms', 'success<99.5%%'")
	}
	lhs, rest := s[:i], s[i:]
	op := rest[:1]
	if strings.HasPrefix(rest[1:], "=") {
		op = rest[:2]
	}
	value := rest[len(op):]
	name, stat, hasStat := strings.Cut(lhs, ".")
	d, ok := Lookup(name)
	if !ok {
		return bad("unknown metric %q (want one of %s)", name, Names())
	}
	f := FailOn{Text: text, Metric: d.Name, Op: op}
	if hasStat {
		if !d.PerRequest {
			return bad("%s is one value a run: it has no statistic %q", d.Name, stat)
		}
		canon, ok := canonicalStat(stat)
		if !ok {
			return bad("unknown statistic %q (want Average, Median, Min, Max or Pnn, e.g. P90, P99.9)", stat)
		}
		f.Stat = canon
	}
	if value == "" {
		return bad("missing the value after %s", op)
	}
	signed := value[0] == '+' || value[0] == '-'
	number, suffix := splitNumber(value)
	x, err := strconv.ParseFloat(number, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return bad("%q is not a number", number)
	}
	switch {
	case suffix == "%" && signed:
		f.Kind, f.Threshold = Relative, x
		return f, nil
	case suffix == "%" && d.Unit == unit.Fraction:
		f.Kind, f.Threshold = Level, x/100
		return f, nil
	case suffix == "%":
		return bad("a change needs its sign: +%s (or -%s)", value, value)
	}
	f.Kind = Level
	if signed {
		f.Kind = Absolute
	}
	scale, err := unitScale(d, suffix)
	if err != nil {
		return bad("%v", err)
	}
	f.Threshold = x * scale
	return f, nil
}

// splitNumber cuts a value into its number and its unit suffix.
func splitNumber(v string) (number, suffix string) {
	i := len(v)
	for i > 0 && (v[i-1] == '%' || ('a' <= v[i-1] && v[i-1] <= 'z') || ('A' <= v[i-1] && v[i-1] <= 'Z') || v[i-1] == '/') {
		i--
	}
	// An exponent's "e" belongs to the number: 1e-3s.
	return v[:i], v[i:]
}

// unitScale is the factor that turns a value given with suffix into the
// metric's unit.
func unitScale(d Def, suffix string) (float64, error) {
	switch d.Unit {
	case unit.Seconds:
		switch suffix {
		case "s":
			return 1, nil
		case "ms":
			return 1e-3, nil
		case "us":
			return 1e-6, nil
		}
		return 0, fmt.Errorf("give %s's time a unit: us, ms or s", d.Name)
	case unit.Fraction:
		if suffix == "" {
			return 1, nil
		}
		return 0, fmt.Errorf("%s is a fraction: give it in %% or as 0..1", d.Name)
	}
	if suffix == "" || suffix == string(d.Unit) {
		return 1, nil
	}
	return 0, fmt.Errorf("%s is in %s: %q is not its unit", d.Name, d.Unit, suffix)
}

// canonicalStat spells a statistic as the report does: Average, Median,
// Min, Max, Pnn (any case on the command line).
func canonicalStat(s string) (string, bool) {
	for _, name := range []string{"Average", "Median", "Min", "Max"} {
		if strings.EqualFold(s, name) {
			return name, true
		}
	}
	if s != "" && (s[0] == 'p' || s[0] == 'P') {
		s = "P" + s[1:]
	}
	if _, ok := samples.ParseStatistic(s); ok && s != "P" {
		return s, true
	}
	return "", false
}

// String is the expression in canonical form: ParseFailOn reads it back
// to the same FailOn (but Text).
func (f FailOn) String() string {
	lhs := string(f.Metric)
	if f.Stat != "" {
		lhs += "." + f.Stat
	}
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	signed := func(x float64) string {
		if math.Signbit(x) {
			return num(x)
		}
		return "+" + num(x)
	}
	var v string
	d := def(f.Metric)
	switch {
	case f.Kind == Relative:
		v = signed(f.Threshold) + "%"
	case d.Unit == unit.Fraction && f.Kind == Level:
		v = num(f.Threshold)
	case d.Unit == unit.Seconds && f.Kind == Level:
		v = num(f.Threshold) + "s"
	case d.Unit == unit.Seconds:
		v = signed(f.Threshold) + "s"
	case f.Kind == Level:
		v = num(f.Threshold)
	default:
		v = signed(f.Threshold)
	}
	return lhs + f.Op + v
}

// holds says whether x op threshold.
func (f FailOn) holds(x float64) bool {
	switch f.Op {
	case "<":
		return x < f.Threshold
	case "<=":
		return x <= f.Threshold
	case ">":
		return x > f.Threshold
	}
	return x >= f.Threshold
}

// Stats are the statistics the expressions need beyond AISBench's default
// columns (Config.Stats of both runs).
func Stats(fs []FailOn) []string {
	var out []string
	for _, f := range fs {
		if f.Stat != "" {
			out = append(out, f.Stat)
		}
	}
	return out
}

// FailOnResult is one expression evaluated in every stage compared.
type FailOnResult struct {
	FailOn
	// Violated: the condition holds in some stage, by a significant change
	// when it is a change of a tested metric.
	Violated bool
	Stages   []FailOnStage
}

// FailOnStage is an expression evaluated in one stage.
type FailOnStage struct {
	Stage aisbench.Stage
	// A and B are the values compared (the statistic, the center or the
	// run-level value), in the metric's unit; NaN when missing.
	A, B float64
	// Measured is what the threshold is held against: the change in
	// percent (Relative), B - A (Absolute) or B (Level).
	Measured float64
	Holds    bool // Measured op Threshold
	// Tested: the condition needs a significant change (a change of a
	// per-request metric); Significant is the metric's test's verdict.
	Tested, Significant bool
	Violated            bool
	Note                string
}

// evaluate evaluates f in every stage of c.
func evaluate(f FailOn, c *Comparison) FailOnResult {
	r := FailOnResult{FailOn: f}
	for _, sc := range c.Stages {
		mc := sc.Metric(f.Metric)
		if mc == nil {
			continue
		}
		e := FailOnStage{Stage: sc.Stage, A: mc.A.Median, B: mc.B.Median}
		if f.Stat != "" {
			e.A, e.B = mc.A.Statistic(f.Stat), mc.B.Statistic(f.Stat)
		}
		switch f.Kind {
		case Relative:
			e.Measured = relChange(e.A, e.B)
		case Absolute:
			e.Measured = e.B - e.A
		default:
			e.Measured = e.B
		}
		e.Holds = f.holds(e.Measured)
		e.Tested = f.Kind != Level && mc.PerRequest
		e.Significant = mc.Significant
		e.Violated = e.Holds && (!e.Tested || e.Significant)
		switch {
		case math.IsNaN(e.Measured):
			e.Note = "no value to hold against the threshold"
		case e.Holds && !e.Violated:
			e.Note = "the change is not significant"
		}
		r.Violated = r.Violated || e.Violated
		r.Stages = append(r.Stages, e)
	}
	return r
}
