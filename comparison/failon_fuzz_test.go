package comparison

import (
	"math"
	"testing"
)

// FuzzParseFailOn: any text either is refused or parses to an expression
// whose canonical form (String) parses back to the same expression, with
// a known metric, operator and kind and a finite threshold.
func FuzzParseFailOn(f *testing.F) {
	for _, s := range []string{
		"ITL.Average>+5%", "TPOT.P90>+2ms", "success<99.5%", "E2EL.P99.9>=2s", "throughput<-5%", "OutputTokens<=+3",
		"ttft.median < -10 %", "SuccessRate<0.995", "ITL>+1e-3s", "OutputTokenThroughput.Min<-2token/s", "ITL.p050>+0x1p-3s",
		"ITL>>5", "ITL.>+5%", ".Average>+5%", "ITL.Average=+5%", "<", "", "ITL.P>5",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fo, err := ParseFailOn(s)
		if err != nil {
			return
		}
		if _, ok := Lookup(string(fo.Metric)); !ok {
			t.Fatalf("%q: metric %q", s, fo.Metric)
		}
		switch fo.Op {
		case "<", "<=", ">", ">=":
		default:
			t.Fatalf("%q: op %q", s, fo.Op)
		}
		if fo.Kind != Relative && fo.Kind != Absolute && fo.Kind != Level {
			t.Fatalf("%q: kind %q", s, fo.Kind)
		}
		if math.IsNaN(fo.Threshold) || math.IsInf(fo.Threshold, 0) {
			t.Fatalf("%q: threshold %v", s, fo.Threshold)
		}
		back, err := ParseFailOn(fo.String())
		if err != nil {
			t.Fatalf("%q → %q: %v", s, fo.String(), err)
		}
		back.Text = fo.Text
		if back != fo {
			t.Fatalf("%q → %q → %+v, want %+v", s, fo.String(), back, fo)
		}
	})
}
