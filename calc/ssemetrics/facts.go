package ssemetrics

import (
	"math"
	"slices"

	"github.com/sseaudit/sseaudit/pynum"
	"github.com/sseaudit/sseaudit/replay"
	"github.com/sseaudit/sseaudit/run"
	"github.com/sseaudit/sseaudit/samples"
)

// Facts are the per-request values behind sseaudit's metrics, derived once
// from a successful request's time points and events (Derive) and read by
// every stage, finding and figure.
type Facts struct {
	// Intervals are the request's np.diff(tp[1:]), read from the run when
	// read; ContentGaps and TextGaps np.diff of the time points of its
	// content events and of its content or reasoning events; Tokens the
	// token counts of its output events (OutputEvent), its TokensPerEvent
	// samples when TokensKnown. Empty for a request not derived.
	Intervals, ContentGaps, TextGaps, Tokens samples.Span
	// ContentFrom is where ContentGaps starts in Intervals when it is a
	// piece of them (the content events one run), else -1.
	ContentFrom int
	// IntervalsMean and ContentMean are NumpyMean of Intervals and
	// ContentGaps, taken once for every stage and figure (NaN when empty).
	IntervalsMean, ContentMean float64
	// PositiveLo and PositiveHi are the least and greatest of the
	// intervals above 0 (+Inf and -Inf when none is): the figures' range.
	PositiveLo, PositiveHi float64
	// TTFContent and TTFText are t0 to the first content event, and to the
	// first content or reasoning event (HasContent, HasText).
	TTFContent, TTFText float64
	// OneInstant: 3 or more time points, all after t0 at one instant.
	OneInstant          bool
	HasContent, HasText bool
	Events              bool // the request's events are known
	TokensKnown         bool // every output event carries its own token count
}

// OutputEvent says whether an event is output a user sees: text or tool calls.
func OutputEvent(e run.Event) bool { return e.HasText() || e.Class == replay.ClassToolCall }

// eventTokensKnown says whether every output event of request i carries its
// own token count (events without text or tool calls carry none unless they
// say so).
func eventTokensKnown(r *run.Run, i int, evs []run.Event) bool {
	any := false
	for k, e := range evs {
		if OutputEvent(e) {
			if r.EventTokens(i, k) < 0 {
				return false
			}
			any = true
		}
	}
	return any
}

// Derive derives request i's facts from its time points tp, their
// intervals np.diff(tp[1:]) and its events evs (run.Events; none kept). The
// gap spans are the intervals' when every event counts (or a piece of them
// when the events counted are consecutive), text gaps are the content gaps
// when the same events count.
func Derive(r *run.Run, i int, tp, intervals []float64, evs []run.Event) Facts {
	held := r.Intervals(i)
	f := Facts{Intervals: held, ContentFrom: -1,
		IntervalsMean: pynum.NumpyMean(intervals), ContentMean: math.NaN(),
		PositiveLo: math.Inf(1), PositiveHi: math.Inf(-1)}
	for _, x := range intervals {
		if x > 0 {
			f.PositiveLo, f.PositiveHi = min(f.PositiveLo, x), max(f.PositiveHi, x)
		}
	}
	f.OneInstant = len(tp) >= 3 && !slices.ContainsFunc(tp[2:], func(t float64) bool { return t != tp[1] })
	if evs == nil || len(evs) != len(tp)-1 {
		return f
	}
	f.Events = true
	nContent, nText := 0, 0
	for _, e := range evs {
		if e.HasContent() {
			nContent++
		}
		if e.HasText() {
			nText++
		}
	}
	// gaps is np.diff of the time points of the events keep selects (n of
	// them, at least one), the first of those points, where the gaps start
	// in intervals when they are a piece of them (else -1), and their mean.
	gaps := func(n int, keep func(run.Event) bool) (float64, samples.Span, int, float64) {
		if n == len(evs) && len(tp) > 2 {
			return tp[1], held, 0, f.IntervalsMean // every event: np.diff(tp[1:]) itself
		}
		if len(tp) > 2 {
			// A contiguous run of events lo..hi: its gaps are intervals[lo:hi]
			// (np.diff of tp[lo+1:hi+2], the same subtractions).
			lo := slices.IndexFunc(evs, keep)
			hi := lo + n - 1
			if hi < len(evs) && !slices.ContainsFunc(evs[lo:hi+1], func(e run.Event) bool { return !keep(e) }) {
				return tp[lo+1], held.Sub(lo, hi), lo, pynum.NumpyMean(intervals[lo:hi])
			}
		}
		ts := make([]float64, 0, n)
		for k, e := range evs {
			if keep(e) {
				ts = append(ts, tp[k+1])
			}
		}
		g := pynum.NumpyDiff(ts)
		return ts[0], samples.Values(g), -1, pynum.NumpyMean(g)
	}
	if nContent > 0 {
		first, g, from, mean := gaps(nContent, run.Event.HasContent)
		f.HasContent, f.TTFContent, f.ContentGaps, f.ContentFrom = true, first-tp[0], g, from
		f.ContentMean = mean
	}
	if nText > 0 && nText == nContent {
		// Content implies text: the same events, the same gaps (shared).
		f.HasText, f.TTFText, f.TextGaps = true, f.TTFContent, f.ContentGaps
	} else if nText > 0 {
		first, g, _, _ := gaps(nText, run.Event.HasText)
		f.HasText, f.TTFText, f.TextGaps = true, first-tp[0], g
	}
	if eventTokensKnown(r, i, evs) {
		n := 0
		for _, e := range evs {
			if OutputEvent(e) {
				n++
			}
		}
		f.TokensKnown, f.Tokens = true, samples.ReadSpan(tokenReader{r}, i, 0, n)
	}
	return f
}

// tokenReader reads the token counts of a request's output events as
// float64: the samples of its Tokens span, decoded when read (a speculative
// trace has as many as it has events).
type tokenReader struct{ r *run.Run }

func (t tokenReader) Samples(i, from, to int, buf []float64) []float64 {
	k := 0 // output events so far
	for e, ev := range t.r.EachEvent(i) {
		if OutputEvent(ev) {
			if from <= k && k < to {
				buf = append(buf, float64(t.r.EventTokens(i, e)))
			}
			k++
		}
	}
	return buf
}
