package comparison

import (
	"math"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/metric"
)

func TestParseFailOn(t *testing.T) {
	for _, tc := range []struct {
		text string
		want FailOn
	}{
		{"ITL.Average>+5%", FailOn{Metric: metric.ITL, Stat: "Average", Op: ">", Kind: Relative, Threshold: 5}},
		{"TPOT.P90>+2ms", FailOn{Metric: metric.TPOT, Stat: "P90", Op: ">", Kind: Absolute, Threshold: 2e-3}},
		{"success<99.5%", FailOn{Metric: SuccessRate, Op: "<", Kind: Level, Threshold: 0.995}},
		{"SuccessRate < 0.995", FailOn{Metric: SuccessRate, Op: "<", Kind: Level, Threshold: 0.995}},
		{"e2el.p99.9 >= 2s", FailOn{Metric: metric.E2EL, Stat: "P99.9", Op: ">=", Kind: Level, Threshold: 2}},
		{"ttft<=-10%", FailOn{Metric: metric.TTFT, Op: "<=", Kind: Relative, Threshold: -10}},
		{"throughput<-5%", FailOn{Metric: OutputThroughput, Op: "<", Kind: Relative, Threshold: -5}},
		{"OutputTokens.Median>+3", FailOn{Metric: metric.OutputTokens, Stat: "Median", Op: ">", Kind: Absolute, Threshold: 3}},
		{"OutputTokenThroughput.average<-2token/s", FailOn{Metric: metric.OutputTokenThroughput, Stat: "Average", Op: "<", Kind: Absolute, Threshold: -2}},
		{"ITL>+500us", FailOn{Metric: metric.ITL, Op: ">", Kind: Absolute, Threshold: 500e-6}},
	} {
		got, err := ParseFailOn(tc.text)
		if err != nil {
			t.Errorf("%q: %v", tc.text, err)
			continue
		}
		tc.want.Text = tc.text
		if math.Abs(got.Threshold-tc.want.Threshold) <= 1e-15*math.Abs(tc.want.Threshold) {
			tc.want.Threshold = got.Threshold // 2ms is 2*1e-3, not 2e-3
		}
		if got != tc.want {
			t.Errorf("%q: %+v, want %+v", tc.text, got, tc.want)
		}
	}
	for _, tc := range []struct{ text, msg string }{
		{"ITL", "want METRIC[.STAT] OP VALUE"},
		{">5%", "want METRIC[.STAT] OP VALUE"},
		{"Foo>+5%", `unknown metric "Foo"`},
		{"ITL.P200>+5%", `unknown statistic "P200"`},
		{"ITL.Avg>+5%", `unknown statistic "Avg"`},
		{"success.Average<99%", "one value a run"},
		{"ITL>", "missing the value"},
		{"ITL>5%", "a change needs its sign"},
		{"ITL>+2", "give ITL's time a unit"},
		{"ITL>+2h", "give ITL's time a unit"},
		{"OutputTokens>+2ms", "not its unit"},
		{"success<99.5", "" /* a level of 99.5: a fraction above 1 never holds, but parses */},
		{"ITL>+abc%", "is not a number"},
		{"ITL>+NaN%", "is not a number"},
		{"ITL>+Inf%", "is not a number"},
	} {
		_, err := ParseFailOn(tc.text)
		switch {
		case tc.msg == "" && err != nil:
			t.Errorf("%q: %v", tc.text, err)
		case tc.msg != "" && (err == nil || !strings.Contains(err.Error(), tc.msg)):
			t.Errorf("%q: error %v, want one saying %q", tc.text, err, tc.msg)
		}
	}
}

// TestFailOnString: String reads back to the same expression.
func TestFailOnString(t *testing.T) {
	for _, text := range []string{"ITL.Average>+5%", "TPOT.P90>+2ms", "success<99.5%", "E2EL<=1.5s", "throughput<-3.5", "TTFT.P99.9>=-0.25ms"} {
		f, err := ParseFailOn(text)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseFailOn(f.String())
		if err != nil {
			t.Fatalf("%q → %q: %v", text, f.String(), err)
		}
		back.Text = f.Text
		if back != f {
			t.Errorf("%q → %q → %+v, want %+v", text, f.String(), back, f)
		}
	}
}

func TestFailOnHolds(t *testing.T) {
	f := FailOn{Op: "<", Threshold: 1}
	for op, want := range map[string][3]bool{"<": {true, false, false}, "<=": {true, true, false}, ">": {false, false, true}, ">=": {false, true, true}} {
		f.Op = op
		for i, x := range []float64{0, 1, 2} {
			if f.holds(x) != want[i] {
				t.Errorf("%v %s 1: %v", x, op, f.holds(x))
			}
		}
		if f.holds(math.NaN()) {
			t.Errorf("NaN %s 1 holds", op)
		}
	}
}
