package htmlreport

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/sseaudit/sseaudit/audit"
	"github.com/sseaudit/sseaudit/record"
)

// Wrapped notes keep every character, in order, on lines no wider than
// asked; a segment too wide alone is broken between characters.
func TestWrap(t *testing.T) {
	segs := []string{"tm: usage_only · ", "36 events, 35 intervals (0 zero) · ", "role-only-sets-ttft, ", "usage-tail-sets-end, ", "slowest",
		", " + strings.Repeat("x", 80)}
	for _, w := range []float64{60, 150, 366, 2000} {
		lines := wrap(segs, w, fontInfo2)
		for _, l := range lines {
			if fontInfo2.width(l) > w {
				t.Errorf("width %v: line %q is %.1f wide", w, l, fontInfo2.width(l))
			}
		}
		squash := func(s string) string { return strings.ReplaceAll(s, " ", "") }
		if got, want := squash(strings.Join(lines, "")), squash(strings.Join(segs, "")); got != want {
			t.Errorf("width %v: lines %q lose text", w, lines)
		}
	}
	if got := wrap(segs[:3], 2000, fontInfo2); len(got) != 1 || got[0] != "tm: usage_only · 36 events, 35 intervals (0 zero) · role-only-sets-ttft," {
		t.Errorf("one line: %q", got)
	}
}

// DejaVu Sans's widths, and 2%: "C = 64" in bold 11 (Chromium's box:
// 40.6) and digits in regular.
func TestFontWidth(t *testing.T) {
	if w := fontBold.width("C = 64"); w < 40.6 || w > 41.5 {
		t.Errorf("C = 64 is %.2f wide, want 40.6 to 41.5 (DejaVu Sans Bold, 11 units)", w)
	}
	if w, want := fontTick.width("0123456789"), 10*0.636*11*1.02; math.Abs(w-want) > 1e-9 {
		t.Errorf("ten digits are %v wide, want %v", w, want)
	}
}

// parseLabel is a placed label back as a label, to measure its box.
func parseLabel(t *testing.T, p *placedText, text string, f font) box {
	t.Helper()
	x, err1 := strconv.ParseFloat(p.X, 64)
	y, err2 := strconv.ParseFloat(p.Y, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("label %q at %q %q", text, p.X, p.Y)
	}
	return label{text, x, y, p.Anchor, f}.box()
}

// A run whose window ends near its end (issue 20: "C = 64" collided with
// the window-end marker): the C label is clear of every mark's line and
// circle, and no label of the in-flight chart covers another or leaves the
// plot.
func TestInFlightLabelsClear(t *testing.T) {
	for _, c := range []int{4, 64} {
		b := audit.NewBuilder(audit.Config{MaxConcurrency: c})
		out := int64(5)
		// A closed loop of c clients, each request 1 s long: C in flight
		// until the last requests end, 1 s before the run's end.
		for k := range c {
			for j := range 60 {
				s := float64(k)*0.001 + float64(j)*1.0001
				b.Add(record.Request{Success: true, ID: "r" + strconv.Itoa(k*1000+j), TimePoints: []float64{s, s + 0.2, s + 0.6, s + 1}, InputTokens: &out, OutputTokens: &out})
			}
		}
		rep, err := b.Finalize()
		if err != nil {
			t.Fatal(err)
		}
		v := newInFlightView(rep)
		if v == nil || v.CLine == nil || v.CLine.Label == nil || len(v.Marks) != 3 {
			t.Fatalf("C = %d: no C label or marks: %+v", c, v)
		}
		plot := box{float64(v.Left()), float64(v.Top), float64(v.Right()), float64(v.Base())}
		cBox := parseLabel(t, v.CLine.Label, "C = "+strconv.Itoa(c), fontBold)
		boxes := []box{cBox}
		if v.WindowLabel != nil {
			boxes = append(boxes, parseLabel(t, v.WindowLabel, "native (stable) window", fontBold))
		}
		endX := 0.0
		for i, m := range v.Marks {
			x, _ := strconv.ParseFloat(m.X, 64)
			y, _ := strconv.ParseFloat(m.Y, 64)
			for _, mb := range []box{{x - 1, plot.Y0, x + 1, plot.Y1}, {x - 5, y - 5, x + 5, y + 5}} {
				if cBox.overlaps(mb) {
					t.Errorf("C = %d: the C label %v covers the %s mark %v", c, cBox, m.Class, mb)
				}
			}
			if m.Text == nil {
				t.Errorf("C = %d: mark %s has no label", c, m.Class)
				continue
			}
			f := fontBold
			if i == 0 {
				f = fontTick
			}
			boxes = append(boxes, parseLabel(t, m.Text, m.Label+" ("+m.Kind+" of "+m.ID+")", f))
			endX = x
		}
		if endX < float64(v.Right())-40 {
			t.Errorf("C = %d: the window ends at x %v, not beside the C label's usual place: the test tests nothing", c, endX)
		}
		for i, a := range boxes {
			if !a.inside(plot) {
				t.Errorf("C = %d: label %v leaves the plot %v", c, a, plot)
			}
			for _, b := range boxes[:i] {
				if a.overlaps(b) {
					t.Errorf("C = %d: labels %v and %v overlap", c, a, b)
				}
			}
		}
	}
}
