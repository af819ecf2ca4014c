package findings

import (
	"errors"
	"fmt"
	"slices"

	"github.com/sseaudit/sseaudit/calc/aisbench"
	"github.com/sseaudit/sseaudit/metric"
	"github.com/sseaudit/sseaudit/pynum"
	"github.com/sseaudit/sseaudit/record"
	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/run"
	"github.com/sseaudit/sseaudit/unit"
)

// noTimeline reports a trace whose send times are unknown: AISBench's
// figures that divide by the run's span are computed from requests that
// all start at 0.
func noTimeline(in *Input) []Finding {
	reason := in.AISResult.NoTimeline
	if reason == "" || in.AISResult.Total == nil || in.AISResult.Total.Err != nil {
		return nil
	}
	st := in.AISResult.Total
	return []Finding{{Code: NoTimeline, Severity: SeverityError, Stage: aisbench.StageTotal,
		Figure:   "Benchmark Duration, Concurrency, Request Throughput, token throughputs",
		Message:  fmt.Sprintf("the requests' send times are unknown (%s): the whole stage's duration, concurrency and throughputs are computed as if every request started at 0, and are not the run's; E2EL, TTFT, TPOT, ITL and the token counts are per request and stand", reason),
		Evidence: []Evidence{count("requests", len(st.Requests)), ev("duration_as_computed", st.DurationSeconds, unit.Seconds)}}}
}

// construct is a framing AISBench's client mishandles where a spec client
// does not.
type construct struct {
	code, name, figure, what string
	n                        func(*record.SpecView) int
}

var (
	commentInBlock = construct{CommentInBlock, "comment_blocks", "requests and events",
		"a comment line followed by data in the same block: AISBench's client skips the whole block, data included",
		func(v *record.SpecView) int { return v.CommentInBlock }}
	fieldLines = construct{FieldLines, "field_line_blocks", "Failed Requests",
		"event:, id: or retry: lines in a data block: AISBench's client parses the block as JSON, fails and retries into a failure",
		func(v *record.SpecView) int { return v.FieldLines }}
	multiLineData = construct{MultiLineData, "multiline_blocks", "Failed Requests",
		"an event spread over several data: lines: AISBench's client parses the lines together as JSON, fails and retries into a failure",
		func(v *record.SpecView) int { return v.MultiLineData }}
)

// framing reports the requests whose bytes hold the construct c where it
// made AISBench's client fail a request the spec client finishes, or lose
// events the spec client reads.
func framing(c construct) rule {
	return func(in *Input) []Finding {
		var ids []string
		blocks, failedOnly, lostReqs, lost := 0, 0, 0, 0
		for i := range in.Run.Len() {
			v := in.Run.Spec(i)
			if v == nil || c.n(v) == 0 {
				continue
			}
			hit := false
			if ok := in.AIS.Flags[i]; !ok && v.Success {
				failedOnly++
				hit = true
			} else if ok {
				if d := v.Events - (in.Run.Points(i) - 1); d > 0 {
					lostReqs++
					lost += d
					hit = true
				}
			}
			if hit {
				blocks += c.n(v)
				ids = append(ids, in.Run.ID(i))
			}
		}
		if ids == nil {
			return nil
		}
		return []Finding{{Code: c.code, Severity: SeverityError, Figure: c.figure,
			Message: fmt.Sprintf("%s, where a spec-compliant SSE client reads it: %d requests fail only in AISBench, %d lose events",
				c.what, failedOnly, lostReqs),
			Evidence: []Evidence{count("requests", len(ids)), count(c.name, blocks), count("failed_only_in_aisbench", failedOnly),
				count("requests_losing_events", lostReqs), count("events_lost", lost)},
			Requests: ids}}
	}
}

// bufferedStream reports requests whose every event was recorded at one
// instant.
func bufferedStream(in *Input) []Finding {
	kept := in.AIS.Kept
	var ids []string
	spread, ttftIsE2E := 0, 0
	for _, i := range kept {
		if !in.SSE.Facts[i].OneInstant {
			continue
		}
		ids = append(ids, in.Run.ID(i))
		if p := &in.AIS.Requests[i]; p.First == p.End {
			ttftIsE2E++
		}
		if v := in.Run.Spec(i); v != nil && v.Events >= 2 && v.LastNs > v.FirstNs {
			spread++
		}
	}
	if ids == nil {
		return nil
	}
	sev := SeverityWarning
	if len(ids) == len(kept) {
		sev = SeverityError
	}
	removed := func(m metric.Metric) float64 {
		if slices.ContainsFunc(in.AISResult.Total.Removed, func(r metric.Removed) bool { return r.Name == m }) {
			return 1
		}
		return 0
	}
	return []Finding{{Code: BufferedStream, Severity: sev, Figure: "TTFT, TPOT, ITL",
		Message: fmt.Sprintf("%d of %d successful requests had every event recorded at one instant (one read, or the end of the body: a buffering proxy, CR-only line ends): their TTFT equals E2EL and their TPOT and intervals are 0; for %d of them a spec-compliant SSE client sees the events spread over time (a framing problem, not the server)",
			len(ids), len(kept), spread),
		Evidence: []Evidence{count("requests", len(ids)), ev("share_of_successful", float64(len(ids))/float64(len(kept)), unit.Fraction),
			count("ttft_equals_e2el", ttftIsE2E), count("spread_for_spec_client", spread),
			ev("total_tpot_row_removed", removed(metric.TPOT), unit.Count), ev("total_itl_row_removed", removed(metric.ITL), unit.Count)},
		Requests: ids}}
}

// unknownTokens reports token counts AISBench would have counted itself.
func unknownTokens(in *Input) []Finding {
	var tokErrs []*aisbench.UnknownTokensError
	collectTokenErrors(in.AISResult.Total.Err, &tokErrs)
	if len(tokErrs) == 0 {
		return nil
	}
	var evs []Evidence
	var ids []string
	for _, e := range tokErrs {
		evs = append(evs, count(e.Kind+"_missing", e.Missing), count(e.Kind+"_zero", e.Zero))
		for _, id := range e.IDs {
			if !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	return []Finding{{Code: UnknownTokens, Severity: SeverityError, Figure: "TPOT, OutputTokens, throughputs",
		Message:  "token counts are missing or 0 (no usage in the body, no token columns): AISBench would have counted them with its tokenizer, so its token figures cannot be reproduced exactly; sseaudit does not guess them",
		Evidence: evs, Requests: ids}}
}

func collectTokenErrors(err error, out *[]*aisbench.UnknownTokensError) {
	var te *aisbench.UnknownTokensError
	switch e := err.(type) {
	case nil:
	case *aisbench.UnknownTokensError:
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

// roleOnlySetsTTFT reports requests whose first recorded event is role-only.
func roleOnlySetsTTFT(in *Input) []Finding {
	var ids []string
	var shifts []float64
	var decoded []run.Event
	for _, i := range in.AIS.Kept {
		f := &in.SSE.Facts[i]
		if !f.Events || in.Run.EventCount(i) == 0 {
			continue
		}
		if evs := in.Run.Events(i, &decoded); evs[0].Class == replay.ClassRole {
			ids = append(ids, in.Run.ID(i))
			if f.HasText {
				shifts = append(shifts, f.TTFText-in.AIS.Requests[i].TTFT)
			}
		}
	}
	return one(shiftFinding(in, RoleOnlySetsTTFT, "TTFT",
		"the first recorded event carries only the role, no text: AISBench's TTFT ends there, earlier than the first text (shift = TTFText - TTFT)",
		ids, shifts))
}

// usageTailSetsEnd reports requests whose last recorded event is usage-only.
func usageTailSetsEnd(in *Input) []Finding {
	var ids []string
	var shifts, tp []float64
	var decoded []run.Event
	for _, i := range in.AIS.Kept {
		if !in.SSE.Facts[i].Events || in.Run.EventCount(i) == 0 {
			continue
		}
		evs := in.Run.Events(i, &decoded)
		last := len(evs) - 1
		if evs[last].Class != replay.ClassUsageOnly {
			continue
		}
		j := last
		for j >= 0 && evs[j].Class == replay.ClassUsageOnly {
			j--
		}
		if j >= 0 {
			tp = in.Run.TimePoints(i, tp)
			ids = append(ids, in.Run.ID(i))
			shifts = append(shifts, tp[last+1]-tp[j+1])
		}
	}
	return one(shiftFinding(in, UsageTailSetsEnd, "E2EL (tm)",
		"the last recorded event is usage-only: AISBench's end time tm (and E2EL, TPOT, the last interval) is set by it, not by the last output (shift = its time - the last other event's)",
		ids, shifts))
}

// shiftFinding is a finding about requests (ids) whose figure an event
// shifts, by shifts where known.
func shiftFinding(in *Input, code, figure, msg string, ids []string, shifts []float64) *Finding {
	if ids == nil {
		return nil
	}
	sev := SeverityInfo
	evs := []Evidence{count("requests", len(ids)), ev("share_of_successful", float64(len(ids))/float64(len(in.AIS.Kept)), unit.Fraction)}
	if len(shifts) > 0 {
		if pynum.NumpyMax(shifts) > 0 {
			sev = SeverityWarning
		}
		evs = append(evs, count("requests_with_shift_known", len(shifts)),
			ev("mean_shift", pynum.NumpyMean(shifts), unit.Seconds), ev("max_shift", pynum.NumpyMax(shifts), unit.Seconds))
	}
	return &Finding{Code: code, Severity: sev, Figure: figure, Message: msg, Evidence: evs, Requests: ids}
}

// itlNCountsRequests reports an ITL N far below the intervals it stands for.
func itlNCountsRequests(in *Input, stage aisbench.Stage) *Finding {
	acc, th := in.SSEResult.Stage(stage).ITL, in.Thresholds
	if !(in.AISResult.Stage(stage).Metric(metric.ITL) != nil && acc.AISBenchN > 0 && float64(acc.Intervals) >= th.ITLIntervalsPerN*float64(acc.AISBenchN)) {
		return nil
	}
	return &Finding{Code: ITLNCountsRequests, Severity: SeverityInfo, Stage: stage, Figure: "ITL N",
		Message: fmt.Sprintf("AISBench's ITL N is %d, the requests with a nonzero interval; its statistics pool %d intervals (at least %g times N), weighted by each request's event count",
			acc.AISBenchN, acc.Intervals, th.ITLIntervalsPerN),
		Evidence: []Evidence{count("aisbench_n", acc.AISBenchN), count("intervals", acc.Intervals), count("zero_intervals", acc.ZeroIntervals),
			ev("intervals_per_n", float64(acc.Intervals)/float64(acc.AISBenchN), unit.Ratio),
			ev("pooled_mean", acc.PooledMeanSeconds, unit.Seconds), ev("per_request_mean", acc.PerRequestMeanSeconds, unit.Seconds)}}
}

// tpotBelowITL reports a TPOT far below ITL while events carry several tokens.
func tpotBelowITL(in *Input, stage aisbench.Stage) *Finding {
	st, sse := in.AISResult.Stage(stage), in.SSEResult.Stage(stage)
	tpot, itl, tpe := st.Metric(metric.TPOT), st.Metric(metric.ITL), sse.Metric(metric.TokensPerEvent)
	if tpot == nil || itl == nil || tpe == nil {
		return nil
	}
	tm, im := pynum.NumpyMean(tpot.Values), sse.ITL.PooledMeanSeconds // np.mean of ITL's values
	em, emax := in.SSE.TokensPerEvent(st.Requests)
	if !(em >= 1.5 && tm < in.Thresholds.TPOTOverITL*im) {
		return nil
	}
	return &Finding{Code: TPOTBelowITL, Severity: SeverityWarning, Stage: stage, Figure: "TPOT",
		Message: "TPOT is far below ITL because events carry several tokens each (TokensPerEvent): TPOT divides decode time by tokens, ITL measures the gaps between events; no acceptance length is inferred from the ratio",
		Evidence: []Evidence{ev("tpot_mean", tm, unit.Seconds), ev("itl_mean", im, unit.Seconds), ev("itl_over_tpot", im/tm, unit.Ratio),
			ev("tokens_per_event_mean", em, unit.TokensPerEvent), ev("tokens_per_event_max", emax, unit.TokensPerEvent),
			count("requests_with_event_tokens", tpe.N)}}
}

// zeroIntervals reports intervals of exactly 0.
func zeroIntervals(in *Input, stage aisbench.Stage) *Finding {
	acc := in.SSEResult.Stage(stage).ITL
	if acc.ZeroIntervals == 0 {
		return nil
	}
	var ids []string
	for _, i := range in.AISResult.Stage(stage).Requests {
		if in.AIS.Requests[i].ZeroIntervals > 0 {
			ids = append(ids, in.Run.ID(i))
		}
	}
	return &Finding{Code: ZeroIntervals, Severity: SeverityInfo, Stage: stage, Figure: "ITL",
		Message:  "intervals of exactly 0: several events completed in one read; they are real samples of AISBench's ITL and pull its mean and low percentiles down",
		Evidence: []Evidence{count("zero_intervals", acc.ZeroIntervals), count("intervals", acc.Intervals), ev("share", float64(acc.ZeroIntervals)/float64(acc.Intervals), unit.Fraction), count("requests", acc.RequestsWithZero)},
		Requests: ids}
}

// concurrencyBelowC reports a run that never reached C, or one that did but
// not at a second request start.
func concurrencyBelowC(in *Input) []Finding {
	wa := in.AISResult.Window
	if wa == nil {
		return nil
	}
	C := wa.MaxConcurrency
	if wa.PeakInFlight < C {
		return []Finding{{Code: ConcurrencyBelowC, Severity: SeverityWarning, Figure: "Max Concurrency",
			Message: fmt.Sprintf("in-flight requests never reached the configured max concurrency %d (peak %d): the load was lighter than configured, and AISBench finds no stable stage", C, wa.PeakInFlight),
			Evidence: []Evidence{count("max_concurrency", C), count("peak_in_flight", wa.PeakInFlight),
				ev("share_of_time_at_or_above_90pct_of_c", wa.AtOrAbove90Share, unit.Fraction), ev("run", wa.RunSeconds, unit.Seconds)}}}
	}
	if !errors.Is(in.AISResult.Stable.Err, aisbench.ErrNoStableStage) {
		return nil
	}
	return []Finding{{Code: NoStableWindow, Severity: SeverityWarning, Stage: aisbench.StageStable, Figure: "native (stable) stage",
		Message: fmt.Sprintf("in-flight requests reached %d at %d request start(s); AISBench's window needs a second one", C, wa.ReachesAtStart),
		Evidence: []Evidence{count("max_concurrency", C), count("starts_reaching_c", wa.ReachesAtStart), count("peak_in_flight", wa.PeakInFlight),
			ev("share_of_time_at_c", wa.AtCShare, unit.Fraction)}}}
}

// shortStableWindow reports a stable window too short for steady figures.
func shortStableWindow(in *Input) []Finding {
	w, th := in.AISResult.Stable.Window, in.Thresholds
	if w == nil || !(w.DurationSeconds < th.MinWindowSeconds || w.Selected < th.MinWindowRequests) {
		return nil
	}
	return []Finding{{Code: ShortStableWindow, Severity: SeverityWarning, Stage: aisbench.StageStable, Figure: "native (stable) stage",
		Message: "the stable window is too short or holds too few requests for its figures to be steady (thresholds: --min-window, --min-window-requests)",
		Evidence: []Evidence{ev("window", w.DurationSeconds, unit.Seconds), ev("min_window", th.MinWindowSeconds, unit.Seconds),
			count("requests", w.Selected), count("min_requests", th.MinWindowRequests)}}}
}

// concurrencyCapped reports the stable stage printing C for its Concurrency.
func concurrencyCapped(in *Input) []Finding {
	st := in.AISResult.Stable
	if st.Window == nil || st.Err != nil || !st.Common.ConcurrencyCapped {
		return nil
	}
	return []Finding{{Code: ConcurrencyCapped, Severity: SeverityWarning, Stage: aisbench.StageStable, Figure: "Concurrency",
		Message:  "AISBench prints the configured max concurrency instead of the computed sum(E2EL)/window, which exceeds it (the selected requests run past the window's ends)",
		Evidence: []Evidence{ev("concurrency", st.Common.Concurrency.Raw, unit.Ratio), count("printed", st.Common.MaxConcurrency)}}}
}

// failureIndexQuirk reports the stable stage's counts changed by its quirk.
func failureIndexQuirk(in *Input) []Finding {
	st := in.AISResult.Stable
	if q := st.Quirk; st.Window != nil && q.Changed {
		return []Finding{{Code: FailureIndexQuirk, Severity: SeverityError, Stage: aisbench.StageStable, Figure: "Total/Success/Failed Requests, N",
			Message: "AISBench's stable stage reads success flags of the full request list at success-only positions, so failures earlier in the run change its counts and N",
			Evidence: []Evidence{count("aisbench_total", q.AISBenchTotal), count("aisbench_success", q.AISBenchSuccess), count("aisbench_failed", q.AISBenchFailed),
				count("intended_success", q.IntendedSuccess), count("intended_failed", q.IntendedFailed)}}}
	}
	return nil
}
