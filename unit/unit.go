// Package unit keeps units as data and spells values in them: a metric's
// values stay in the unit they are computed in (seconds, tokens, token/s)
// until a renderer asks for text, and every renderer (text, markdown, CSV,
// JSON, HTML, what-if, check) spells a number through here, so that a value
// reads the same everywhere: AISBench's milliseconds as it prints them, and
// sseaudit's figures at AISBench's resolution.
package unit

import (
	"math"
	"strconv"

	"github.com/sseaudit/sseaudit/pynum"
)

// Unit is the unit a value is kept in.
type Unit string

const (
	Seconds         Unit = "s"      // rendered in milliseconds, as AISBench does
	Tokens          Unit = "tokens" // counts, rendered bare
	TokensPerSecond Unit = "token/s"
	TokensPerEvent  Unit = "token/event"
	// The units of evidence besides the metrics'.
	Count    Unit = "count"
	Fraction Unit = "fraction" // 0..1, rendered as a percentage in text
	Ratio    Unit = "ratio"
)

// Scale turns a value kept in u into its display unit: seconds to ms.
func Scale(u Unit) float64 {
	if u == Seconds {
		return 1000
	}
	return 1
}

// Label is the display unit shown beside a value kept in u: "ms" for times.
func Label(u Unit) string {
	if u == Seconds {
		return "ms"
	}
	return string(u)
}

// AISBenchNumber is the number AISBench prints for a statistic it rounded
// (round(x, 4) in u), without unit: times as round(v*1000, 4) in ms.
func AISBenchNumber(u Unit, rounded float64) string {
	if u == Seconds {
		return pynum.PyFloatRepr(pynum.PyRound(rounded*1000, 4))
	}
	return pynum.PyFloatRepr(rounded)
}

// AISBenchText is AISBench's _add_units_to_metrics: the number it prints
// and its unit ("12.5 ms", "30.1 token/s"; counts bare), as <ds>.csv holds it.
func AISBenchText(u Unit, rounded float64) string {
	switch u {
	case Seconds:
		return AISBenchNumber(u, rounded) + " ms"
	case TokensPerSecond:
		return pynum.PyFloatRepr(rounded) + " token/s"
	}
	return pynum.PyFloatRepr(rounded)
}

// Value is a value of sseaudit's figures in its display unit, at most four
// decimals (AISBench's resolution); "-" for NaN.
func Value(u Unit, x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return pynum.PyFloatRepr(pynum.PyRound(x*Scale(u), 4))
}

// Text is a value with its unit as a sentence shows it: a count as a whole
// number ("187"), a fraction as a percentage ("50%"), a ratio bare, and
// anything else as Value and its label ("12.5 ms").
func Text(u Unit, x float64) string {
	switch u {
	case Count:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case Fraction:
		return pynum.PyFloatRepr(pynum.PyRound(x*100, 1)) + "%"
	case Ratio:
		return Value(u, x)
	}
	return Value(u, x) + " " + Label(u)
}

// Plural is a count with its noun: "1 request", "2 requests".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
