package tools

import "math"

// attribute compares a tool's own summary with its summary under one rule
// switched to AISBench's: the quantities that move are the rule's doing.
func attribute(t Tool, rule Rule, own, switched *ToolResult) (Attribution, bool) {
	a := Attribution{Tool: t, Rule: rule, Deltas: deltas(own.Summary, switched.Summary)}
	if len(a.Deltas) == 0 {
		return a, false
	}
	a.PerRequest = map[Quantity]int{}
	o, s := own.Summary[Successes], switched.Summary[Successes]
	if o.Known && s.Known && o.X == s.X && o.X > 1 {
		for _, d := range a.Deltas {
			if (d.Quantity == ITLSamples || d.Quantity == OutputTokens) && d.Own.Known && d.Switched.Known {
				diff := d.Own.X - d.Switched.X
				if per := diff / o.X; per == math.Trunc(per) && per != 0 {
					a.PerRequest[d.Quantity] = int(per)
				}
			}
		}
	}
	return a, true
}

// residual compares AISBench's summary with a tool's under every rule
// switched to AISBench's.
func residual(t Tool, ais, all *ToolResult) Residual {
	return Residual{Tool: t, Deltas: deltas(ais.Summary, all.Summary)}
}

// deltas are the quantities whose values differ as the table spells them
// (a value known in one and not the other differs; two unknown values do
// not; a difference below the table's resolution is rounding, not a rule's).
func deltas(a, b Summary) []Delta {
	var ds []Delta
	for _, q := range Quantities {
		x, y := a[q], b[q]
		if !x.Known && !y.Known || spell(q, x) == spell(q, y) {
			continue
		}
		ds = append(ds, Delta{Quantity: q, Own: x, Switched: y})
	}
	return ds
}
