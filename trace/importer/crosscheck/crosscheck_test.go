package crosscheck

import (
	"math"
	"strings"
	"testing"
)

// TestStats: the values numpy gives for the same inputs (np.mean, np.std,
// np.percentile with its default linear method, np.diff).
func TestStats(t *testing.T) {
	xs := []float64{3, 1, 4, 1, 5, 9, 2, 6}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"mean", Mean(xs), 3.875},
		{"std", Std(xs), 2.5708704751503917},
		{"p50", Percentile(xs, 50), 3.5},
		{"p99", Percentile(xs, 99), 8.79},
		{"p1", Percentile(xs, 1), 1},
		{"p90", Percentile(xs, 90), 6.8999999999999995},
		{"p100", Percentile(xs, 100), 9},
		{"min", Min(xs), 1},
		{"max", Max(xs), 9},
		{"mean of none", Mean(nil), 0},
		{"percentile of none", Percentile(nil, 50), 0},
		{"one value", Percentile([]float64{7}, 99), 7},
	} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
	if d := Diff([]float64{1, 3, 6}); len(d) != 2 || d[0] != 2 || d[1] != 3 || Diff([]float64{1}) != nil {
		t.Errorf("diff %v", d)
	}
}

func TestComparison(t *testing.T) {
	c := &Comparison{Source: "s.json"}
	c.Add("count", 89, 89)
	c.Add("ttft.avg", 2343.219436988764, 2343.2194369887648)
	c.Add("zero", 0, 1e-12)
	if d := c.Differing(); len(d) != 0 {
		t.Fatalf("differing %v", d)
	}
	if s := c.String(); s != "s.json: 3 of 3 figures of the tool's own summary reproduced from the imported trace (count, ttft.avg, zero)" {
		t.Errorf("%s", s)
	}
	c.Add("latency.avg", 10, 10.001)
	c.Skipped = append(c.Skipped, "e2el (needs the end of each stream)")
	want := "s.json: 3 of 4 figures of the tool's own summary reproduced from the imported trace; latency.avg: 10 in the file, 10.001 from the trace; not reproducible: e2el (needs the end of each stream)"
	if s := c.String(); s != want {
		t.Errorf("got  %s\nwant %s", s, want)
	}
	if (Figure{File: math.NaN(), Trace: 1}).Agrees() || !(Figure{File: math.NaN(), Trace: math.NaN()}).Agrees() {
		t.Error("NaN")
	}
	if !strings.Contains(c.String(), "not reproducible") {
		t.Error(c)
	}
}
