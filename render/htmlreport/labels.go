package htmlreport

import (
	"strings"
	"unicode/utf8"
)

// Chart labels are placed in Go, from their text's estimated extent: no
// label may cover another, leave its chart, or be shortened past reading.
//
// The charts' text is set in system-ui (style.css). Its width is estimated
// with DejaVu Sans's advance widths: Chromium's system-ui on Debian, and
// wider than Liberation Sans, Arial's metrics (digits 0.636 em against
// 0.556), so that a face narrower than it only leaves more room; 2% more
// covers the box Chromium reports for a bold text (40.6 units for "C = 64"
// in bold 11, whose advances sum to 40.2). Weight 600 and up (the page's
// bold labels) takes DejaVu Sans Bold's.

// advance are DejaVu Sans's advance widths in thousandths of an em, from
// ' ' (U+0020) to '~' (U+007E); advanceBold DejaVu Sans Bold's.
var (
	advance = [95]uint16{
		317, 400, 459, 837, 636, 950, 779, 274, 390, 390, 500, 837, 317, 360, 317, 336,
		636, 636, 636, 636, 636, 636, 636, 636, 636, 636, 336, 336, 837, 837, 837, 530,
		1000, 684, 686, 698, 770, 631, 575, 774, 751, 294, 294, 655, 557, 862, 748, 787,
		603, 787, 694, 634, 610, 731, 684, 988, 685, 610, 685, 390, 336, 390, 837, 500,
		500, 612, 634, 549, 634, 615, 352, 634, 633, 277, 277, 579, 277, 974, 633, 611,
		634, 634, 411, 520, 392, 633, 591, 817, 591, 591, 524, 636, 336, 636, 837,
	}
	advanceBold = [95]uint16{
		348, 456, 520, 837, 695, 1001, 872, 306, 457, 457, 522, 837, 379, 415, 379, 365,
		695, 695, 695, 695, 695, 695, 695, 695, 695, 695, 399, 399, 837, 837, 837, 580,
		1000, 773, 762, 733, 830, 683, 683, 820, 836, 372, 372, 774, 637, 995, 836, 850,
		732, 850, 770, 720, 682, 812, 773, 1103, 770, 724, 725, 457, 365, 457, 837, 500,
		500, 674, 715, 592, 715, 678, 435, 715, 711, 342, 342, 665, 342, 1041, 711, 687,
		715, 715, 493, 595, 478, 711, 651, 923, 645, 651, 582, 711, 365, 711, 837,
	}
	// advanceOther are the other characters the charts print (regular,
	// bold); any other takes a whole em.
	advanceOther = map[rune][2]uint16{'…': {1000, 1000}, '·': {317, 379}, '★': {896, 896}, '−': {837, 837}, 'Δ': {684, 773}, 'µ': {636, 735}}
)

// ascent and descent are how far a text's box reaches above and below its
// baseline: DejaVu Sans's ascent and descent (0.928 and 0.236 em), and the
// up to 1.2 units a browser adds rounding them to whole pixels at the
// smallest scale the charts are drawn at (0.88, in a 1000 px window;
// Chromium makes a 10 px text's box 10 above and 3 below at scale 1).
func (f font) ascent() float64  { return 0.928*f.Size + 1.2 }
func (f font) descent() float64 { return 0.236*f.Size + 1.2 }

// font is a label's size (SVG user units) and weight.
type font struct {
	Size float64
	Bold bool
}

// Fonts of the charts' text, as style.css sets them.
var (
	fontTick  = font{11, false} // ticks, mark labels (warm-up)
	fontBold  = font{11, true}  // the C label, the window's, the start and end marks'
	fontAxis  = font{12, false}
	fontRID   = font{11.5, false}
	fontInfo  = font{10.5, false}
	fontInfo2 = font{10, false}
)

// width is the advance width of s.
func (f font) width(s string) float64 {
	w := 0
	for _, r := range s {
		switch {
		case r >= ' ' && r <= '~' && f.Bold:
			w += int(advanceBold[r-' '])
		case r >= ' ' && r <= '~':
			w += int(advance[r-' '])
		default:
			a, ok := advanceOther[r]
			switch {
			case !ok:
				w += 1000
			case f.Bold:
				w += int(a[1])
			default:
				w += int(a[0])
			}
		}
	}
	return float64(w) * f.Size / 1000 * 1.02
}

// box is a rectangle in a chart's user units, y down.
type box struct{ X0, Y0, X1, Y1 float64 }

func (b box) overlaps(c box) bool { return b.X0 < c.X1 && c.X0 < b.X1 && b.Y0 < c.Y1 && c.Y0 < b.Y1 }
func (b box) inside(c box) bool   { return b.X0 >= c.X0 && b.X1 <= c.X1 && b.Y0 >= c.Y0 && b.Y1 <= c.Y1 }
func (b box) grow(d float64) box  { return box{b.X0 - d, b.Y0 - d, b.X1 + d, b.Y1 + d} }

// label is a text at (X, Y), Y its baseline, anchored "start", "middle" or
// "end" at X.
type label struct {
	Text   string
	X, Y   float64
	Anchor string
	Font   font
}

// box is the label's extent.
func (l label) box() box {
	w := l.Font.width(l.Text)
	x0 := l.X
	switch l.Anchor {
	case "middle":
		x0 -= w / 2
	case "end":
		x0 -= w
	}
	return box{x0, l.Y - l.Font.ascent(), x0 + w, l.Y + l.Font.descent()}
}

// placer places labels one after another inside a bound, each clear of the
// boxes taken before it by a gap.
type placer struct {
	within box
	gap    float64
	taken  []box
}

// free says whether b is inside the bound and clear of every box taken.
func (p *placer) free(b box) bool {
	if !b.inside(p.within) {
		return false
	}
	for _, t := range p.taken {
		if b.overlaps(t.grow(p.gap)) {
			return false
		}
	}
	return true
}

// take reserves a box: a label placed, or a mark no label may cover.
func (p *placer) take(b box) { p.taken = append(p.taken, b) }

// first takes the first candidate that is free; ok is false when none is.
func (p *placer) first(cands ...label) (l label, ok bool) {
	for _, c := range cands {
		if b := c.box(); p.free(b) {
			p.take(b)
			return c, true
		}
	}
	return label{}, false
}

// fit shortens s with an ellipsis until it is at most w wide (for a
// request id beside its strip: the whole id is the strip's tooltip).
func fit(s string, w float64, f font) string {
	if f.width(s) <= w {
		return s
	}
	for s != "" {
		_, n := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-n]
		if f.width(s+"…") <= w {
			return s + "…"
		}
	}
	return "…"
}

// wrap breaks a text made of segments into lines at most w wide, between
// segments: each segment carries its trailing separator (" · ", ", "),
// which a line ends in when the next segment goes to the next line
// (trailing spaces dropped). A segment wider than w alone is broken
// between characters. No text is lost.
func wrap(segs []string, w float64, f font) []string {
	var lines []string
	line := ""
	for _, seg := range segs {
		if line != "" && f.width(strings.TrimRight(line+seg, " ")) > w {
			lines = append(lines, strings.TrimRight(line, " "))
			line = ""
		}
		line += seg
		for f.width(strings.TrimRight(line, " ")) > w {
			// One segment alone is too wide: the longest head that fits.
			cut, n := 0, 0
			for i, r := range line {
				if f.width(line[:i+utf8.RuneLen(r)]) > w {
					break
				}
				cut, n = i+utf8.RuneLen(r), n+1
			}
			if n == 0 {
				_, cut = utf8.DecodeRuneInString(line)
			}
			lines = append(lines, line[:cut])
			line = line[cut:]
		}
	}
	if t := strings.TrimRight(line, " "); t != "" {
		lines = append(lines, t)
	}
	return lines
}
