// Package findings says what a reviewer of a run's figures should know: each
// finding a code, a severity, the figure it concerns, a message and the
// numbers behind it, derived from the calculators' results (AISBench's and
// sseaudit's) by a table of rules, one small function each, in a fixed
// order. Findings are data, like the numbers they are about: the renderers
// print them under the tables and in JSON.
package findings

import (
	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/calc/ssemetrics"
	"github.com/sseaudit/sseaudit/run"
	"github.com/sseaudit/sseaudit/unit"
)

// Severity grades a finding.
type Severity string

const (
	SeverityInfo    Severity = "info"    // how a figure is made; worth knowing
	SeverityWarning Severity = "warning" // a figure reads differently from what it seems
	SeverityError   Severity = "error"   // a figure is wrong, missing or cannot be known
)

// The finding codes, in the order findings are reported.
const (
	NoTimeline         = "no-timeline"
	CommentInBlock     = "comment-in-block"
	FieldLines         = "event-field-lines"
	MultiLineData      = "multiline-data"
	BufferedStream     = "buffered-stream"
	UnknownTokens      = "unknown-token-counts"
	RoleOnlySetsTTFT   = "role-only-sets-ttft"
	UsageTailSetsEnd   = "usage-tail-sets-end"
	ITLNCountsRequests = "itl-n-counts-requests"
	TPOTBelowITL       = "tpot-below-itl"
	ZeroIntervals      = "zero-intervals"
	ConcurrencyBelowC  = "concurrency-below-c"
	NoStableWindow     = "no-stable-window"
	ShortStableWindow  = "short-stable-window"
	ConcurrencyCapped  = "concurrency-capped"
	FailureIndexQuirk  = "failure-index-quirk"
)

// Finding is one thing a reviewer should know about the figures.
type Finding struct {
	Code     string
	Severity Severity
	Stage    aisbench.Stage // "" when it concerns the whole run
	Figure   string         // the figure concerned, as the report names it
	Message  string
	Evidence []Evidence
	Requests []string // IDs of the requests concerned, trace order
}

// Evidence is one number behind a finding, in its unit (seconds for times).
type Evidence struct {
	Name  string
	Value float64
	Unit  unit.Unit
}

// Text is the evidence as the text report shows it ("intervals 187",
// "share 50%", "mean_shift 12.5 ms").
func (e Evidence) Text() string { return e.Name + " " + unit.Text(e.Unit, e.Value) }

func ev(name string, v float64, u unit.Unit) Evidence { return Evidence{name, v, u} }
func count(name string, n int) Evidence               { return Evidence{name, float64(n), unit.Count} }

// Thresholds tune the findings.
type Thresholds struct {
	MinWindowSeconds  float64 // a stable window shorter than this is reported (60)
	MinWindowRequests int     // a stable window with fewer requests is reported (128)
	// ITLIntervalsPerN: ITL N is reported when the pooled intervals are at
	// least this many times N (10).
	ITLIntervalsPerN float64
	// TPOTOverITL: TPOT is reported when its mean is below this fraction of
	// ITL's while events carry several tokens (0.5).
	TPOTOverITL float64
}

// DefaultThresholds are the thresholds a zero Thresholds field takes.
var DefaultThresholds = Thresholds{MinWindowSeconds: 60, MinWindowRequests: 128, ITLIntervalsPerN: 10, TPOTOverITL: 0.5}

// WithDefaults is t with DefaultThresholds' value for every zero field.
func (t Thresholds) WithDefaults() Thresholds {
	d := DefaultThresholds
	if t.MinWindowSeconds > 0 {
		d.MinWindowSeconds = t.MinWindowSeconds
	}
	if t.MinWindowRequests > 0 {
		d.MinWindowRequests = t.MinWindowRequests
	}
	if t.ITLIntervalsPerN > 0 {
		d.ITLIntervalsPerN = t.ITLIntervalsPerN
	}
	if t.TPOTOverITL > 0 {
		d.TPOTOverITL = t.TPOTOverITL
	}
	return d
}

// Input is what the rules read: the run, both calculators (derived) and
// their results, and the thresholds (with their defaults).
type Input struct {
	Run        *run.Run
	AIS        *aisbench.Calc
	AISResult  *aisbench.Result
	SSE        *ssemetrics.Calc
	SSEResult  *ssemetrics.Result
	Thresholds Thresholds
}

// A rule derives the findings of one kind (none, one, or one a stage).
type rule func(*Input) []Finding

// rules are every rule, in the order findings are reported.
var rules = []rule{
	noTimeline,
	framing(commentInBlock), framing(fieldLines), framing(multiLineData),
	bufferedStream, unknownTokens, roleOnlySetsTTFT, usageTailSetsEnd,
	perStage(itlNCountsRequests, tpotBelowITL, zeroIntervals),
	concurrencyBelowC,
	shortStableWindow, concurrencyCapped, failureIndexQuirk,
}

// Derive runs every rule.
func Derive(in *Input) []Finding {
	var out []Finding
	for _, r := range rules {
		out = append(out, r(in)...)
	}
	return out
}

// perStage runs the stage rules on the whole stage, then on the native one:
// the findings of a stage together.
func perStage(stageRules ...func(*Input, aisbench.Stage) *Finding) rule {
	return func(in *Input) []Finding {
		var out []Finding
		for _, stage := range aisbench.Stages {
			if in.SSEResult.Stage(stage).ITL == nil { // no requests
				continue
			}
			for _, r := range stageRules {
				if f := r(in, stage); f != nil {
					out = append(out, *f)
				}
			}
		}
		return out
	}
}

// one is a finding as a rule's result: none for nil.
func one(f *Finding) []Finding {
	if f == nil {
		return nil
	}
	return []Finding{*f}
}
