package tools

import (
	"github.com/sseaudit/sseaudit/unit"
)

// Quantity is one row of the table across tools: the same quantity as
// each tool computes it.
type Quantity int

const (
	TTFTMean Quantity = iota
	TTFTP99
	ITLMean
	ITLSamples
	TPOTMean
	E2EMean
	OutputTokens
	OutputThroughput
	Successes
	Duration
	numQuantities
)

// Quantities lists the rows in order.
var Quantities = func() []Quantity {
	qs := make([]Quantity, numQuantities)
	for i := range qs {
		qs[i] = Quantity(i)
	}
	return qs
}()

var quantityInfo = [numQuantities]struct {
	label, key string
	unit       unit.Unit
}{
	{"TTFT mean", "ttft_mean_ms", unit.Seconds},
	{"TTFT P99", "ttft_p99_ms", unit.Seconds},
	{"ITL mean", "itl_mean_ms", unit.Seconds},
	{"ITL samples", "itl_samples", unit.Count},
	{"TPOT mean", "tpot_mean_ms", unit.Seconds},
	{"E2E mean", "e2e_mean_ms", unit.Seconds},
	{"output tokens", "output_tokens", unit.Tokens},
	{"output throughput", "output_throughput", unit.TokensPerSecond},
	{"successes", "successes", unit.Count},
	{"duration", "duration_ms", unit.Seconds},
}

// Label is the row's name; Key its JSON key (with its unit); Unit the unit
// its values are kept in.
func (q Quantity) Label() string   { return quantityInfo[q].label }
func (q Quantity) Key() string     { return quantityInfo[q].key }
func (q Quantity) Unit() unit.Unit { return quantityInfo[q].unit }

// Value is one tool's value of a quantity, or why it has none.
type Value struct {
	X     float64
	Known bool
	Why   string
}

func known(x float64) Value { return Value{X: x, Known: true} }

func unknown(why string) Value { return Value{Why: why} }

// Summary is a tool's values of every quantity.
type Summary [numQuantities]Value

// Key is one of a tool's result keys as the tool saves it: its value
// (int64, float64, string, or nil for None), or why it is not computed.
type Key struct {
	Name        string
	Value       any
	NotComputed string
}

// ToolResult is what one tool reports from the trace.
type ToolResult struct {
	Tool Tool
	// Err is why the tool reports nothing: an exception its own metric code
	// raises on these bytes ("" for none).
	Err     string
	Keys    []Key
	Summary Summary
	Notes   []string
}

// Rule is one rule in which a tool differs from AISBench.
type Rule struct {
	Name     string // for JSON: "framing", "every_message", ...
	Own      string // what the tool does
	AISBench string // what AISBench does instead
}

// Delta is a quantity that moves when a rule is switched: the tool's own
// value and its value under AISBench's rule.
type Delta struct {
	Quantity Quantity
	Own      Value
	Switched Value
}

// Attribution is a rule of a tool that changes its figures: recomputed with
// that one rule switched to AISBench's, these quantities move.
type Attribution struct {
	Tool   Tool
	Rule   Rule
	Deltas []Delta
	// PerRequest, for ITL samples and output tokens, is the move divided by
	// the successes when it is a whole number (the same move in every
	// request); 0 otherwise.
	PerRequest map[Quantity]int
}

// Residual is a tool with every rule switched to AISBench's: the quantities
// on which it still differs from AISBench's own (none: every difference is
// attributed).
type Residual struct {
	Tool   Tool
	Deltas []Delta // Own is AISBench's, Switched the tool's with every rule switched
}

// Report is every tool's numbers from one trace.
type Report struct {
	Trace    string
	API      string // chat or completions
	APIFrom  string // how the API was chosen: "--api", "metadata", "payload"
	Requests int
	SpanS    float64 // the first t0 to the last end: each tool's wall-clock duration
	Tools    []*ToolResult
	Why      []Attribution
	Residual []Residual
}
