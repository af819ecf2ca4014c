package comparison

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/pynum"
	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/stattest"
)

// Attribution is one thing that changed in the streams themselves between
// A and B, with the figures it moves: what tells a delta that comes from
// the streams' shape (a usage-only tail gone, another first event, another
// token source) from a server that got slower.
type Attribution struct {
	// Code names the rule: requests, failures, events, first-event,
	// last-event, token-source, framing, window.
	Code string
	// Subject is what the rule found changed: an event class, a failure's
	// cause, a framing construct, a stage.
	Subject string
	// A and B are the runs' values (Unit says of what); NaN when the rule
	// has none.
	A, B float64
	Unit string
	Text string
	// Metrics are the figures the change moves.
	Metrics []metric.Metric
}

// attrInput is what the attribution rules read.
type attrInput struct {
	a, b    *Side
	stages  []aisbench.Stage
	pairing *Pairing
	alpha   float64
}

// attributionRules run in this order, each a small function.
var attributionRules = []func(*attrInput) []Attribution{
	requestsRule, failuresRule, eventsRule, firstEventRule, lastEventRule, tokenSourceRule, framingRule, windowRule,
}

func attribute(a, b *Side, stages []aisbench.Stage, p *Pairing, alpha float64) []Attribution {
	in := &attrInput{a: a, b: b, stages: stages, pairing: p, alpha: alpha}
	var out []Attribution
	for _, rule := range attributionRules {
		out = append(out, rule(in)...)
	}
	return out
}

// materially says whether per-request values changed from xs to ys beyond
// chance: their means differ, and either each run holds one value (a
// change of the streams' shape) or the Mann-Whitney test finds the change
// significant.
func materially(xs, ys []float64, alpha float64) bool {
	if len(xs) == 0 || len(ys) == 0 || pynum.NumpyMean(xs) == pynum.NumpyMean(ys) {
		return false
	}
	if constant(xs) && constant(ys) {
		return true
	}
	res, err := stattest.MannWhitneyU(xs, ys)
	return err == nil && res.PValue < alpha
}

func constant(xs []float64) bool {
	return !slices.ContainsFunc(xs, func(x float64) bool { return x != xs[0] })
}

// kept are the indices of the side's requests AISBench keeps.
func (s *Side) keptIndices() []int {
	var out []int
	for i, k := range s.kept {
		if k {
			out = append(out, i)
		}
	}
	return out
}

// perKept is f of every kept request of s.
func perKept(s *Side, f func(*requestFacts) float64) []float64 {
	var out []float64
	for _, i := range s.keptIndices() {
		out = append(out, f(&s.facts[i]))
	}
	return out
}

// num spells a mean at two decimals at most.
func num(x float64) string { return strconv.FormatFloat(pynum.PyRound(x, 2), 'f', -1, 64) }

// signedNum is num with its sign.
func signedNum(x float64) string {
	if x >= 0 {
		return "+" + num(x)
	}
	return num(x)
}

func requestsRule(in *attrInput) []Attribution {
	var out []Attribution
	if na, nb := in.a.Requests.Added, in.b.Requests.Added; na != nb {
		out = append(out, Attribution{Code: "requests", Subject: "requests", A: float64(na), B: float64(nb), Unit: "requests",
			Text: fmt.Sprintf("requests: A %d, B %d", na, nb)})
	}
	if p := in.pairing; p.By != "" && (p.OnlyA > 0 || p.OnlyB > 0) {
		out = append(out, Attribution{Code: "requests", Subject: "pairs", A: float64(p.OnlyA), B: float64(p.OnlyB), Unit: "requests without a pair",
			Text: fmt.Sprintf("paired by %s: %d pairs; %d requests only in A, %d only in B (left out of the paired tests)", p.By, len(p.Pairs), p.OnlyA, p.OnlyB)})
	}
	return out
}

// cause is why AISBench's client fails request i ("" when it does not).
func (s *Side) cause(i int) string {
	f := &s.facts[i]
	switch {
	case s.kept[i]:
		return ""
	case f.errText != "":
		return f.errText
	case f.success:
		return "fewer than two time points (AISBench: the chunk size is less than 2)"
	}
	return "failed without an error text"
}

func failuresRule(in *attrInput) []Attribution {
	count := func(s *Side) map[string]int {
		m := map[string]int{}
		for i := range s.kept {
			if c := s.cause(i); c != "" {
				m[c]++
			}
		}
		return m
	}
	ca, cb := count(in.a), count(in.b)
	var causes []string
	for c := range ca {
		causes = append(causes, c)
	}
	for c := range cb {
		if _, ok := ca[c]; !ok {
			causes = append(causes, c)
		}
	}
	slices.Sort(causes)
	var out []Attribution
	for _, c := range causes {
		if ca[c] == cb[c] {
			continue
		}
		out = append(out, Attribution{Code: "failures", Subject: c, A: float64(ca[c]), B: float64(cb[c]), Unit: "requests",
			Text:    fmt.Sprintf("failures %q: A %d of %d requests, B %d of %d", shorten(c, 100), ca[c], in.a.Requests.Added, cb[c], in.b.Requests.Added),
			Metrics: []metric.Metric{SuccessRate}})
	}
	return out
}

// shorten cuts s to n runes at most, marking the cut.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func eventsRule(in *attrInput) []Attribution {
	var out []Attribution
	for _, c := range replay.Classes {
		xa := perKept(in.a, func(f *requestFacts) float64 { return float64(f.events[c]) })
		xb := perKept(in.b, func(f *requestFacts) float64 { return float64(f.events[c]) })
		if !materially(xa, xb, in.alpha) {
			continue
		}
		ma, mb := pynum.NumpyMean(xa), pynum.NumpyMean(xb)
		ra := pynum.NumpyMean(perKept(in.a, func(f *requestFacts) float64 { return float64(f.recorded[c]) }))
		rb := pynum.NumpyMean(perKept(in.b, func(f *requestFacts) float64 { return float64(f.recorded[c]) }))
		var what string
		switch {
		case mb == 0:
			what = fmt.Sprintf("B has no %s event (A: %s a request)", c, num(ma))
		case ma == 0:
			what = fmt.Sprintf("A has no %s event (B: %s a request)", c, num(mb))
		default:
			what = fmt.Sprintf("%s events a request: A %s, B %s (%s)", c, num(ma), num(mb), signedNum(mb-ma))
		}
		a := Attribution{Code: "events", Subject: c.String(), A: ma, B: mb, Unit: "events a request"}
		if ra != 0 || rb != 0 {
			a.Text = fmt.Sprintf("%s: AISBench's client records them, %s ITL interval a request", what, signedNum(rb-ra))
			a.Metrics = []metric.Metric{metric.ITL}
		} else {
			a.Text = what + ": AISBench's client records none of them (no time point)"
		}
		out = append(out, a)
	}
	return out
}

// classShares are the shares of the kept requests with events whose
// event (first or last recorded) is of each class.
func classShares(s *Side, which func(*requestFacts) replay.Class) map[replay.Class][]float64 {
	out := map[replay.Class][]float64{}
	for _, c := range replay.Classes {
		var xs []float64
		for _, i := range s.keptIndices() {
			if f := &s.facts[i]; f.hasEvents {
				x := 0.0
				if which(f) == c {
					x = 1
				}
				xs = append(xs, x)
			}
		}
		out[c] = xs
	}
	return out
}

// sharesText spells the classes' shares: "role 100%", "content 60%, role 40%".
func sharesText(sh map[replay.Class][]float64) string {
	var parts []string
	for _, c := range replay.Classes {
		if xs := sh[c]; len(xs) > 0 {
			if m := pynum.NumpyMean(xs); m > 0 {
				parts = append(parts, fmt.Sprintf("%s %s%%", c, num(m*100)))
			}
		}
	}
	if len(parts) == 0 {
		return "no recorded event"
	}
	return strings.Join(parts, ", ")
}

// endEventRule compares the class of the first (or last) recorded event.
func endEventRule(in *attrInput, code, text string, which func(*requestFacts) replay.Class, metrics []metric.Metric) []Attribution {
	sa, sb := classShares(in.a, which), classShares(in.b, which)
	changed := false
	for _, c := range replay.Classes {
		changed = changed || materially(sa[c], sb[c], in.alpha)
	}
	if !changed {
		return nil
	}
	return []Attribution{{Code: code, Subject: code, A: math.NaN(), B: math.NaN(), Unit: "share of requests",
		Text: fmt.Sprintf("%s: A %s; B %s", text, sharesText(sa), sharesText(sb)), Metrics: metrics}}
}

func firstEventRule(in *attrInput) []Attribution {
	return endEventRule(in, "first-event", "TTFT ends at the first recorded event", func(f *requestFacts) replay.Class { return f.first },
		[]metric.Metric{metric.TTFT, metric.TPOT})
}

func lastEventRule(in *attrInput) []Attribution {
	return endEventRule(in, "last-event", "E2EL ends at the last recorded event", func(f *requestFacts) replay.Class { return f.last },
		[]metric.Metric{metric.E2EL, metric.TPOT, metric.OutputTokenThroughput})
}

// tokenSources are replay's token sources, in output order.
var tokenSources = []string{"usage", "trace", "mixed", "unknown"}

func tokenSourceRule(in *attrInput) []Attribution {
	shares := func(s *Side) map[string][]float64 {
		out := map[string][]float64{}
		for _, src := range tokenSources {
			out[src] = perKept(s, func(f *requestFacts) float64 {
				if f.tokenSource == src {
					return 1
				}
				return 0
			})
		}
		return out
	}
	sa, sb := shares(in.a), shares(in.b)
	changed := false
	for _, src := range tokenSources {
		changed = changed || materially(sa[src], sb[src], in.alpha)
	}
	if !changed {
		return nil
	}
	text := func(sh map[string][]float64) string {
		var parts []string
		for _, src := range tokenSources {
			if xs := sh[src]; len(xs) > 0 && pynum.NumpyMean(xs) > 0 {
				parts = append(parts, fmt.Sprintf("%s %s%%", src, num(pynum.NumpyMean(xs)*100)))
			}
		}
		return strings.Join(parts, ", ")
	}
	return []Attribution{{Code: "token-source", Subject: "token-source", A: math.NaN(), B: math.NaN(), Unit: "share of requests",
		Text:    fmt.Sprintf("token counts come from: A %s; B %s", text(sa), text(sb)),
		Metrics: []metric.Metric{metric.OutputTokens, metric.TPOT, metric.OutputTokenThroughput, OutputThroughput}}}
}

// framingConstructs are the constructs AISBench's client mishandles
// (record.SpecView), with what it does with them.
var framingConstructs = []struct {
	name, what string
	count      func(*requestFacts) int
	metrics    []metric.Metric
}{
	{"comment_in_block", "a block starting with ':' that holds a data: line (AISBench's client skips the data)",
		func(f *requestFacts) int { return f.commentInBlock }, []metric.Metric{metric.ITL, metric.OutputTokens}},
	{"field_lines", "a data block with an event:, id: or retry: line (AISBench's client fails on its JSON)",
		func(f *requestFacts) int { return f.fieldLines }, []metric.Metric{SuccessRate}},
	{"multi_line_data", "a data block with two or more data: lines (AISBench's client fails on its JSON)",
		func(f *requestFacts) int { return f.multiLineData }, []metric.Metric{SuccessRate}},
}

func framingRule(in *attrInput) []Attribution {
	var out []Attribution
	for _, fc := range framingConstructs {
		has := func(s *Side) []float64 {
			var xs []float64
			for i := range s.facts {
				if f := &s.facts[i]; f.spec {
					x := 0.0
					if fc.count(f) > 0 {
						x = 1
					}
					xs = append(xs, x)
				}
			}
			return xs
		}
		xa, xb := has(in.a), has(in.b)
		if !materially(xa, xb, in.alpha) {
			continue
		}
		na, nb := pynum.NumpySum(xa), pynum.NumpySum(xb)
		out = append(out, Attribution{Code: "framing", Subject: fc.name, A: na, B: nb, Unit: "requests",
			Text:    fmt.Sprintf("requests with %s: A %s of %d, B %s of %d", fc.what, num(na), len(xa), num(nb), len(xb)),
			Metrics: fc.metrics})
	}
	return out
}

// windowRule describes the stable windows when they differ.
func windowRule(in *attrInput) []Attribution {
	if !slices.Contains(in.stages, aisbench.StageStable) {
		return nil
	}
	sa, sb := in.a.stage(aisbench.StageStable), in.b.stage(aisbench.StageStable)
	desc := func(s *Side, st *sideStage) (string, float64) {
		if st.window == nil {
			return fmt.Sprintf("no stable window (%v)", st.err), math.NaN()
		}
		w := st.window
		return fmt.Sprintf("%s s from %s s after the first start, %d of %d successful requests",
			strconv.FormatFloat(w.DurationSeconds, 'f', 3, 64), strconv.FormatFloat(w.StartSeconds-w.OffsetSeconds, 'f', 3, 64), w.Selected, w.Of), w.DurationSeconds
	}
	if wa, wb := sa.window, sb.window; wa != nil && wb != nil && wa.DurationSeconds == wb.DurationSeconds &&
		wa.StartSeconds-wa.OffsetSeconds == wb.StartSeconds-wb.OffsetSeconds && wa.Selected == wb.Selected && wa.Of == wb.Of {
		return nil // the same window
	}
	ta, da := desc(in.a, sa)
	tb, db := desc(in.b, sb)
	text := fmt.Sprintf("stable window: A %s; B %s", ta, tb)
	if p := in.pairing; p.By != "" && sa.window != nil && sb.window != nil {
		inA, inB := map[int]bool{}, map[int]bool{}
		for _, i := range sa.requests {
			inA[i] = true
		}
		for _, i := range sb.requests {
			inB[i] = true
		}
		both := 0
		for _, pr := range p.Pairs {
			if inA[pr[0]] && inB[pr[1]] {
				both++
			}
		}
		text += fmt.Sprintf("; %d pairs selected in both", both)
	}
	return []Attribution{{Code: "window", Subject: string(aisbench.StageStable), A: da, B: db, Unit: "s", Text: text}}
}
