package audit

import (
	"errors"
	"fmt"

	"github.com/sseaudit/sseaudit/replay"
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
	FindingCommentInBlock     = "comment-in-block"
	FindingFieldLines         = "event-field-lines"
	FindingMultiLineData      = "multiline-data"
	FindingBufferedStream     = "buffered-stream"
	FindingUnknownTokens      = "unknown-token-counts"
	FindingRoleOnlySetsTTFT   = "role-only-sets-ttft"
	FindingUsageTailSetsEnd   = "usage-tail-sets-end"
	FindingITLNCountsRequests = "itl-n-counts-requests"
	FindingTPOTBelowITL       = "tpot-below-itl"
	FindingZeroIntervals      = "zero-intervals"
	FindingConcurrencyBelowC  = "concurrency-below-c"
	FindingNoStableWindow     = "no-stable-window"
	FindingShortStableWindow  = "short-stable-window"
	FindingConcurrencyCapped  = "concurrency-capped"
	FindingFailureIndexQuirk  = "failure-index-quirk"
)

// Units of evidence besides the metric units.
const (
	UnitCount    Unit = "count"
	UnitFraction Unit = "fraction" // 0..1, rendered as a percentage in text
	UnitRatio    Unit = "ratio"
)

// Finding is one thing a reviewer should know about the figures: data, like
// the numbers it is about.
type Finding struct {
	Code     string
	Severity Severity
	Stage    Stage  // "" when it concerns the whole run
	Figure   string // the figure concerned, as the report names it
	Message  string
	Evidence []Evidence
	Requests []string // IDs of the requests concerned, trace order
}

// Evidence is one number behind a finding, in its unit (seconds for times).
type Evidence struct {
	Name  string
	Value float64
	Unit  Unit
}

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

func (t Thresholds) withDefaults() Thresholds {
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

// Finding returns the first finding with the code (and stage, unless ""), or nil.
func (r *Report) Finding(code string, stage Stage) *Finding {
	for i := range r.Findings {
		f := &r.Findings[i]
		if f.Code == code && (stage == "" || f.Stage == stage) {
			return f
		}
	}
	return nil
}

func ev(name string, v float64, u Unit) Evidence { return Evidence{name, v, u} }
func count(name string, n int) Evidence          { return Evidence{name, float64(n), UnitCount} }

// findings derives the findings from the finalized stages and the requests.
func (b *Builder) findings(rep *Report, facts []requestFacts, kept []int) []Finding {
	var out []Finding
	th := rep.Thresholds
	ok := make([]bool, len(b.requests))
	for _, i := range kept {
		ok[i] = true
	}

	// Framing constructs AISBench's client mishandles where a spec client does not.
	type construct struct {
		code, name, figure, what string
		n                        func(*SpecView) int
	}
	for _, c := range []construct{
		{FindingCommentInBlock, "comment_blocks", "requests and events",
			"a comment line followed by data in the same block: AISBench's client skips the whole block, data included",
			func(v *SpecView) int { return v.CommentInBlock }},
		{FindingFieldLines, "field_line_blocks", "Failed Requests",
			"event:, id: or retry: lines in a data block: AISBench's client parses the block as JSON, fails and retries into a failure",
			func(v *SpecView) int { return v.FieldLines }},
		{FindingMultiLineData, "multiline_blocks", "Failed Requests",
			"an event spread over several data: lines: AISBench's client parses the lines together as JSON, fails and retries into a failure",
			func(v *SpecView) int { return v.MultiLineData }},
	} {
		var ids []string
		blocks, failedOnly, lostReqs, lost := 0, 0, 0, 0
		for i := range b.requests {
			rec := &b.requests[i]
			if rec.Spec == nil || c.n(rec.Spec) == 0 {
				continue
			}
			hit := false
			if !ok[i] && rec.Spec.Success {
				failedOnly++
				hit = true
			} else if ok[i] {
				if d := rec.Spec.Events - (rec.points() - 1); d > 0 {
					lostReqs++
					lost += d
					hit = true
				}
			}
			if hit {
				blocks += c.n(rec.Spec)
				ids = append(ids, rec.ID)
			}
		}
		if ids == nil {
			continue
		}
		out = append(out, Finding{Code: c.code, Severity: SeverityError, Figure: c.figure,
			Message: fmt.Sprintf("%s, where a spec-compliant SSE client reads it: %d requests fail only in AISBench, %d lose events",
				c.what, failedOnly, lostReqs),
			Evidence: []Evidence{count("requests", len(ids)), count(c.name, blocks), count("failed_only_in_aisbench", failedOnly),
				count("requests_losing_events", lostReqs), count("events_lost", lost)},
			Requests: ids})
	}

	// Buffered streams.
	{
		var ids []string
		spread, ttftIsE2E := 0, 0
		for _, i := range kept {
			if !facts[i].oneInstant {
				continue
			}
			ids = append(ids, b.requests[i].ID)
			if facts[i].t1 == facts[i].tm {
				ttftIsE2E++
			}
			if v := b.requests[i].Spec; v != nil && v.Events >= 2 && v.LastNs > v.FirstNs {
				spread++
			}
		}
		if ids != nil {
			sev := SeverityWarning
			if len(ids) == len(kept) {
				sev = SeverityError
			}
			removed := func(m Metric) float64 {
				for _, r := range rep.Total.Removed {
					if r.Name == m {
						return 1
					}
				}
				return 0
			}
			out = append(out, Finding{Code: FindingBufferedStream, Severity: sev, Figure: "TTFT, TPOT, ITL",
				Message: fmt.Sprintf("%d of %d successful requests had every event recorded at one instant (one read, or the end of the body: a buffering proxy, CR-only line ends): their TTFT equals E2EL and their TPOT and intervals are 0; for %d of them a spec-compliant SSE client sees the events spread over time (a framing problem, not the server)",
					len(ids), len(kept), spread),
				Evidence: []Evidence{count("requests", len(ids)), ev("share_of_successful", float64(len(ids))/float64(len(kept)), UnitFraction),
					count("ttft_equals_e2el", ttftIsE2E), count("spread_for_spec_client", spread),
					ev("total_tpot_row_removed", removed(MetricTPOT), UnitCount), ev("total_itl_row_removed", removed(MetricITL), UnitCount)},
				Requests: ids})
		}
	}

	// Unknown token counts.
	var tokErrs []*UnknownTokensError
	collectTokenErrors(rep.Total.Err, &tokErrs)
	if len(tokErrs) > 0 {
		var evs []Evidence
		var ids []string
		for _, e := range tokErrs {
			evs = append(evs, count(e.Kind+"_missing", e.Missing), count(e.Kind+"_zero", e.Zero))
			for _, id := range e.IDs {
				if !contains(ids, id) {
					ids = append(ids, id)
				}
			}
		}
		out = append(out, Finding{Code: FindingUnknownTokens, Severity: SeverityError, Figure: "TPOT, OutputTokens, throughputs",
			Message:  "token counts are missing or 0 (no usage in the body, no token columns): AISBench would have counted them with its tokenizer, so its token figures cannot be reproduced exactly; sseaudit does not guess them",
			Evidence: evs, Requests: ids})
	}

	// Role-only first events and usage-only tails.
	{
		var roleIDs, tailIDs []string
		var roleShift, tailShift, tp []float64
		var decoded []storedEvent
		for _, i := range kept {
			rec := &b.requests[i]
			if !facts[i].events || rec.Events.len() == 0 {
				continue
			}
			evs := rec.Events.decode(&decoded)
			if evs[0].Class == replay.ClassRole {
				roleIDs = append(roleIDs, rec.ID)
				if facts[i].hasText {
					roleShift = append(roleShift, facts[i].ttfText-(facts[i].t1-facts[i].t0))
				}
			}
			last := len(evs) - 1
			if evs[last].Class == replay.ClassUsageOnly {
				j := last
				for j >= 0 && evs[j].Class == replay.ClassUsageOnly {
					j--
				}
				if j >= 0 {
					tp = rec.timePoints(tp)
					tailIDs = append(tailIDs, rec.ID)
					tailShift = append(tailShift, tp[last+1]-tp[j+1])
				}
			}
		}
		shiftFinding := func(code, figure, msg string, ids []string, shifts []float64) {
			if ids == nil {
				return
			}
			sev := SeverityInfo
			evs := []Evidence{count("requests", len(ids)), ev("share_of_successful", float64(len(ids))/float64(len(kept)), UnitFraction)}
			if len(shifts) > 0 {
				if NumpyMax(shifts) > 0 {
					sev = SeverityWarning
				}
				evs = append(evs, count("requests_with_shift_known", len(shifts)),
					ev("mean_shift", NumpyMean(shifts), UnitSeconds), ev("max_shift", NumpyMax(shifts), UnitSeconds))
			}
			out = append(out, Finding{Code: code, Severity: sev, Figure: figure, Message: msg, Evidence: evs, Requests: ids})
		}
		shiftFinding(FindingRoleOnlySetsTTFT, "TTFT",
			"the first recorded event carries only the role, no text: AISBench's TTFT ends there, earlier than the first text (shift = TTFText - TTFT)",
			roleIDs, roleShift)
		shiftFinding(FindingUsageTailSetsEnd, "E2EL (tm)",
			"the last recorded event is usage-only: AISBench's end time tm (and E2EL, TPOT, the last interval) is set by it, not by the last output (shift = its time - the last other event's)",
			tailIDs, tailShift)
	}

	// Per stage: ITL N, TPOT against ITL, zero intervals.
	for _, stage := range Stages {
		st := rep.Stage(stage)
		acc := st.ITL
		if acc == nil {
			continue
		}
		if itl := st.Metric(MetricITL); itl != nil && acc.AISBenchN > 0 && float64(acc.Intervals) >= th.ITLIntervalsPerN*float64(acc.AISBenchN) {
			out = append(out, Finding{Code: FindingITLNCountsRequests, Severity: SeverityInfo, Stage: stage, Figure: "ITL N",
				Message: fmt.Sprintf("AISBench's ITL N is %d, the requests with a nonzero interval; its statistics pool %d intervals (at least %g times N), weighted by each request's event count",
					acc.AISBenchN, acc.Intervals, th.ITLIntervalsPerN),
				Evidence: []Evidence{count("aisbench_n", acc.AISBenchN), count("intervals", acc.Intervals), count("zero_intervals", acc.ZeroIntervals),
					ev("intervals_per_n", float64(acc.Intervals)/float64(acc.AISBenchN), UnitRatio),
					ev("pooled_mean", acc.PooledMeanSeconds, UnitSeconds), ev("per_request_mean", acc.PerRequestMeanSeconds, UnitSeconds)}})
		}
		tpot, itl, tpe := st.Metric(MetricTPOT), st.Metric(MetricITL), st.SSEMetric(MetricTokensPerEvent)
		if tpot != nil && itl != nil && tpe != nil {
			tm, im := NumpyMean(tpot.Values), acc.PooledMeanSeconds // np.mean of ITL's values
			em, emax := tokensPerEvent(st, facts)
			if em >= 1.5 && tm < th.TPOTOverITL*im {
				out = append(out, Finding{Code: FindingTPOTBelowITL, Severity: SeverityWarning, Stage: stage, Figure: "TPOT",
					Message: "TPOT is far below ITL because events carry several tokens each (TokensPerEvent): TPOT divides decode time by tokens, ITL measures the gaps between events; no acceptance length is inferred from the ratio",
					Evidence: []Evidence{ev("tpot_mean", tm, UnitSeconds), ev("itl_mean", im, UnitSeconds), ev("itl_over_tpot", im/tm, UnitRatio),
						ev("tokens_per_event_mean", em, UnitTokensPerEvent), ev("tokens_per_event_max", emax, UnitTokensPerEvent),
						count("requests_with_event_tokens", tpe.N)}})
			}
		}
		if acc.ZeroIntervals > 0 {
			var ids []string
			for _, idx := range st.Requests {
				if facts[idx].zeroIntervals > 0 {
					ids = append(ids, b.requests[idx].ID)
				}
			}
			out = append(out, Finding{Code: FindingZeroIntervals, Severity: SeverityInfo, Stage: stage, Figure: "ITL",
				Message:  "intervals of exactly 0: several events completed in one read; they are real samples of AISBench's ITL and pull its mean and low percentiles down",
				Evidence: []Evidence{count("zero_intervals", acc.ZeroIntervals), count("intervals", acc.Intervals), ev("share", float64(acc.ZeroIntervals)/float64(acc.Intervals), UnitFraction), count("requests", acc.RequestsWithZero)},
				Requests: ids})
		}
	}

	// Concurrency and the stable window.
	if wa := rep.Window; wa != nil {
		C := wa.MaxConcurrency
		if wa.PeakInFlight < C {
			out = append(out, Finding{Code: FindingConcurrencyBelowC, Severity: SeverityWarning, Figure: "Max Concurrency",
				Message: fmt.Sprintf("in-flight requests never reached the configured max concurrency %d (peak %d): the load was lighter than configured, and AISBench finds no stable stage", C, wa.PeakInFlight),
				Evidence: []Evidence{count("max_concurrency", C), count("peak_in_flight", wa.PeakInFlight),
					ev("share_of_time_at_or_above_90pct_of_c", wa.AtOrAbove90Share, UnitFraction), ev("run", wa.RunSeconds, UnitSeconds)}})
		} else if errors.Is(rep.Stable.Err, ErrNoStableStage) {
			out = append(out, Finding{Code: FindingNoStableWindow, Severity: SeverityWarning, Stage: StageStable, Figure: "native (stable) stage",
				Message: fmt.Sprintf("in-flight requests reached %d at %d request start(s); AISBench's window needs a second one", C, wa.ReachesAtStart),
				Evidence: []Evidence{count("max_concurrency", C), count("starts_reaching_c", wa.ReachesAtStart), count("peak_in_flight", wa.PeakInFlight),
					ev("share_of_time_at_c", wa.AtCShare, UnitFraction)}})
		}
	}
	if st := rep.Stable; st.Window != nil {
		w := st.Window
		if w.DurationSeconds < th.MinWindowSeconds || w.Selected < th.MinWindowRequests {
			out = append(out, Finding{Code: FindingShortStableWindow, Severity: SeverityWarning, Stage: StageStable, Figure: "native (stable) stage",
				Message: "the stable window is too short or holds too few requests for its figures to be steady (thresholds: --min-window, --min-window-requests)",
				Evidence: []Evidence{ev("window", w.DurationSeconds, UnitSeconds), ev("min_window", th.MinWindowSeconds, UnitSeconds),
					count("requests", w.Selected), count("min_requests", th.MinWindowRequests)}})
		}
		if st.Err == nil && st.Common.ConcurrencyCapped {
			out = append(out, Finding{Code: FindingConcurrencyCapped, Severity: SeverityWarning, Stage: StageStable, Figure: "Concurrency",
				Message:  "AISBench prints the configured max concurrency instead of the computed sum(E2EL)/window, which exceeds it (the selected requests run past the window's ends)",
				Evidence: []Evidence{ev("concurrency", st.Common.Concurrency.Raw, UnitRatio), count("printed", st.Common.MaxConcurrency)}})
		}
		if q := st.Quirk; q.Changed {
			out = append(out, Finding{Code: FindingFailureIndexQuirk, Severity: SeverityError, Stage: StageStable, Figure: "Total/Success/Failed Requests, N",
				Message: "AISBench's stable stage reads success flags of the full request list at success-only positions, so failures earlier in the run change its counts and N",
				Evidence: []Evidence{count("aisbench_total", q.AISBenchTotal), count("aisbench_success", q.AISBenchSuccess), count("aisbench_failed", q.AISBenchFailed),
					count("intended_success", q.IntendedSuccess), count("intended_failed", q.IntendedFailed)}})
		}
	}
	return out
}

func collectTokenErrors(err error, out *[]*UnknownTokensError) {
	var te *UnknownTokensError
	switch e := err.(type) {
	case nil:
	case *UnknownTokensError:
		*out = append(*out, e)
	case interface{ Unwrap() []error }:
		for _, x := range e.Unwrap() {
			collectTokenErrors(x, out)
		}
	default:
		if errors.As(err, &te) {
			*out = append(*out, te)
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// tokensPerEvent is np.mean and np.max of a stage's TokensPerEvent samples
// (which the report does not keep), taken request by request in the stage's
// order, as over the pool; token counts are whole numbers, never NaN.
func tokensPerEvent(st *StageResult, facts []requestFacts) (mean, maximum float64) {
	var sum numpySum
	var buf []float64
	for _, idx := range st.Requests {
		f := &facts[idx]
		if !f.tokensKnown { // else at least one sample
			continue
		}
		tokens := f.tokens().values(&buf)
		if sum.n == 0 {
			maximum = tokens[0]
		}
		sum.add(tokens)
		if m := NumpyMax(tokens); m > maximum {
			maximum = m
		}
	}
	return sum.mean(), maximum
}
