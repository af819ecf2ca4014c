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
// every stage, finding and figure. A run keeps one a request, so they are
// kept small (about 100 bytes): the sample spans are pieces of the run's
// intervals, read through the run, and only gaps that are not such a piece
// are held as values. Facts are read while their run is (before
// Run.Release).
type Facts struct {
	// IntervalsMean and ContentMean are NumpyMean of Intervals and
	// ContentGaps, taken once for every stage and figure (NaN when empty).
	IntervalsMean, ContentMean float64
	// PositiveLo and PositiveHi are the least and greatest of the
	// intervals above 0 (+Inf and -Inf when none is): the figures' range.
	PositiveLo, PositiveHi float64
	// TTFContent and TTFText are t0 to the first content event, and to the
	// first content or reasoning event (HasContent, HasText).
	TTFContent, TTFText float64

	run *run.Run // the intervals' and tokens' reader; nil when not derived
	own *ownGaps // gaps that are not a piece of the intervals
	// index is the request's; content and text are where its gaps lie in
	// its intervals (from -1: in own); tokens is its output events' count.
	index         uint32
	content, text piece
	tokens        uint32

	// OneInstant: 3 or more time points, all after t0 at one instant.
	OneInstant          bool
	HasContent, HasText bool
	Events              bool // the request's events are known
	TokensKnown         bool // every output event carries its own token count
}

// piece is where a request's gaps lie in its intervals: intervals[from:
// from+n], or, from -1, the n values held apart.
type piece struct {
	from int32
	n    uint32
}

// ownGaps are a request's gaps held as values (samples.Values): np.diff of
// the time points of events that are not consecutive.
type ownGaps struct{ content, text samples.Span }

// Intervals are the request's np.diff(tp[1:]), read from the run when
// read; empty for a request not derived.
func (f *Facts) Intervals() samples.Span {
	if f.run == nil {
		return samples.Span{}
	}
	return f.run.Intervals(int(f.index))
}

// ContentGaps and TextGaps are np.diff of the time points of the request's
// content events and of its content or reasoning events.
func (f *Facts) ContentGaps() samples.Span { return f.gaps(f.content, false) }
func (f *Facts) TextGaps() samples.Span    { return f.gaps(f.text, true) }

func (f *Facts) gaps(p piece, text bool) samples.Span {
	switch {
	case p.n == 0:
		return samples.Span{}
	case p.from < 0 && text:
		return f.own.text
	case p.from < 0:
		return f.own.content
	}
	return f.Intervals().Sub(int(p.from), int(p.from)+int(p.n))
}

// ContentFrom is where ContentGaps starts in Intervals when it is a piece of
// them (the content events one run), else -1.
func (f *Facts) ContentFrom() int {
	if !f.HasContent {
		return -1
	}
	return int(f.content.from)
}

// Tokens are the token counts of the request's output events (OutputEvent),
// its TokensPerEvent samples when TokensKnown.
func (f *Facts) Tokens() samples.Span {
	if f.tokens == 0 {
		return samples.Span{}
	}
	return samples.ReadSpan(tokenReader{f.run}, int(f.index), 0, int(f.tokens))
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
	f := Facts{run: r, index: uint32(i),
		IntervalsMean: pynum.NumpyMean(intervals), ContentMean: math.NaN(),
		PositiveLo: math.Inf(1), PositiveHi: math.Inf(-1)}
	// x > 0 is neither NaN nor a zero: plain comparisons are min and max
	// (Go's min and max, which order NaN and the zeros, cost 5× more).
	lo, hi := f.PositiveLo, f.PositiveHi
	for _, x := range intervals {
		if x > 0 {
			if x < lo {
				lo = x
			}
			if x > hi {
				hi = x
			}
		}
	}
	f.PositiveLo, f.PositiveHi = lo, hi
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
	// them, at least one), the first of those points, where the gaps lie
	// (a piece of the intervals, or values held apart), and their mean.
	gaps := func(n int, keep func(run.Event) bool) (float64, piece, []float64, float64) {
		if n == len(evs) && len(tp) > 2 {
			// every event: np.diff(tp[1:]) itself
			return tp[1], piece{0, uint32(len(intervals))}, nil, f.IntervalsMean
		}
		if len(tp) > 2 {
			// A contiguous run of events lo..hi: its gaps are intervals[lo:hi]
			// (np.diff of tp[lo+1:hi+2], the same subtractions).
			lo := slices.IndexFunc(evs, keep)
			hi := lo + n - 1
			if hi < len(evs) && !slices.ContainsFunc(evs[lo:hi+1], func(e run.Event) bool { return !keep(e) }) {
				return tp[lo+1], piece{int32(lo), uint32(hi - lo)}, nil, pynum.NumpyMean(intervals[lo:hi])
			}
		}
		ts := make([]float64, 0, n)
		for k, e := range evs {
			if keep(e) {
				ts = append(ts, tp[k+1])
			}
		}
		g := pynum.NumpyDiff(ts)
		return ts[0], piece{-1, uint32(len(g))}, g, pynum.NumpyMean(g)
	}
	if nContent > 0 {
		first, p, own, mean := gaps(nContent, run.Event.HasContent)
		f.HasContent, f.TTFContent, f.content, f.ContentMean = true, first-tp[0], p, mean
		if len(own) > 0 {
			f.own = &ownGaps{content: samples.Values(own)}
		}
	}
	if nText > 0 && nText == nContent {
		// Content implies text: the same events, the same gaps (shared).
		f.HasText, f.TTFText, f.text = true, f.TTFContent, f.content
		if f.own != nil {
			f.own.text = f.own.content
		}
	} else if nText > 0 {
		first, p, own, _ := gaps(nText, run.Event.HasText)
		f.HasText, f.TTFText, f.text = true, first-tp[0], p
		if len(own) > 0 {
			if f.own == nil {
				f.own = &ownGaps{}
			}
			f.own.text = samples.Values(own)
		}
	}
	if eventTokensKnown(r, i, evs) {
		n := 0
		for _, e := range evs {
			if OutputEvent(e) {
				n++
			}
		}
		f.TokensKnown, f.tokens = true, uint32(n)
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
