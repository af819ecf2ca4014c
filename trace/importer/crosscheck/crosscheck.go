// Package crosscheck compares a tool's own summary with the same figures
// computed from the trace an importer made of that tool's per-request file,
// under the tool's definitions (its TTFT average, its request count, ...).
//
// Each importer knows its tool's definitions and fills a Comparison: the
// figure as the tool wrote it beside the figure from the imported requests.
// A figure that agrees shows that the trace carries what the tool measured;
// one that differs names what the file does not hold (or a tool version
// whose definition changed). Figures agree within a relative 1e-9: the
// imported time points are rebuilt from the tool's rounded values, so the
// last digits may move, and the statistics here are plain (not numpy's
// pairwise sums).
package crosscheck

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Tolerance is the relative difference within which two figures agree.
const Tolerance = 1e-9

// Figure is one figure of a tool's summary.
type Figure struct {
	Name  string  // as the tool names it (a key of its file)
	File  float64 // what the tool wrote
	Trace float64 // what the imported trace gives under the tool's definition
}

// Agrees reports whether the two values agree within Tolerance (relative,
// or absolute near zero); two NaNs agree.
func (f Figure) Agrees() bool {
	if math.IsNaN(f.File) || math.IsNaN(f.Trace) {
		return math.IsNaN(f.File) && math.IsNaN(f.Trace)
	}
	d := math.Abs(f.File - f.Trace)
	return d <= Tolerance*max(1, math.Abs(f.File), math.Abs(f.Trace))
}

// Comparison is a tool's summary against the trace.
type Comparison struct {
	Source  string // the file holding the tool's summary
	Figures []Figure
	// Skipped names the figures of the summary that the trace cannot give
	// (and why), for the record.
	Skipped []string
}

// Add appends a figure.
func (c *Comparison) Add(name string, file, trace float64) {
	c.Figures = append(c.Figures, Figure{name, file, trace})
}

// Differing is the figures that do not agree.
func (c *Comparison) Differing() []Figure {
	var out []Figure
	for _, f := range c.Figures {
		if !f.Agrees() {
			out = append(out, f)
		}
	}
	return out
}

// String says how many figures agree, lists those that differ and those
// skipped.
func (c *Comparison) String() string {
	var b strings.Builder
	diff := c.Differing()
	fmt.Fprintf(&b, "%s: %d of %d figures of the tool's own summary reproduced from the imported trace", c.Source, len(c.Figures)-len(diff), len(c.Figures))
	if len(c.Figures) > 0 && len(diff) == 0 {
		names := make([]string, len(c.Figures))
		for i, f := range c.Figures {
			names[i] = f.Name
		}
		fmt.Fprintf(&b, " (%s)", strings.Join(names, ", "))
	}
	for _, f := range diff {
		fmt.Fprintf(&b, "; %s: %s in the file, %s from the trace", f.Name, num(f.File), num(f.Trace))
	}
	if len(c.Skipped) > 0 {
		fmt.Fprintf(&b, "; not reproducible: %s", strings.Join(c.Skipped, "; "))
	}
	return b.String()
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Mean is the arithmetic mean; 0 for no values (as the tools' `np.mean(xs
// or 0)`).
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// Std is the population standard deviation (np.std); 0 for no values.
func Std(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	m := Mean(xs)
	s := 0.0
	for _, x := range xs {
		s += (x - m) * (x - m)
	}
	return math.Sqrt(s / float64(len(xs)))
}

// Percentile is np.percentile(xs, p) with numpy's default linear method; 0
// for no values.
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	v := float64(len(s)-1) * p / 100
	lo := int(math.Floor(v))
	if lo >= len(s)-1 {
		return s[len(s)-1]
	}
	return s[lo] + (s[lo+1]-s[lo])*(v-float64(lo))
}

// Min and Max of the values; 0 for none.
func Min(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return slices.Min(xs)
}

// Max of the values; 0 for none.
func Max(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return slices.Max(xs)
}

// Diff is the differences of consecutive values (np.diff).
func Diff(xs []float64) []float64 {
	if len(xs) < 2 {
		return nil
	}
	out := make([]float64, len(xs)-1)
	for i := range out {
		out[i] = xs[i+1] - xs[i]
	}
	return out
}
