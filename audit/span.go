package audit

import (
	"runtime"
	"slices"
)

// span is a request's run of samples: the intervals from..to of its time
// points (np.diff(tp[1:])[from:to], decoded from the stored record each
// time they are read), the token counts of its output events from..to
// (tokens), or values of its own. The intervals are the largest thing a
// report reads, one per ITL sample: decoded from the 4-byte packed time
// points when read rather than kept as float64, they cost Finalize no
// memory of their own (issue 8: memory flat as the trace grows).
type span struct {
	rec      *storedRecord // nil: own
	from, to int
	tokens   bool // the token counts of rec's output events from..to, not intervals
	own      []float64
}

// intervalSpan is every interval of rec: np.diff(tp[1:]).
func intervalSpan(rec *storedRecord) span {
	return span{rec: rec, to: max(rec.points()-2, 0)}
}

// tokenSpan is the token counts of rec's n output events (outputEvent),
// as float64: TokensPerEvent's samples.
func tokenSpan(rec *storedRecord, n int) span { return span{rec: rec, to: n, tokens: true} }

// ownSpan is values held as they are.
func ownSpan(values []float64) span { return span{own: values} }

func (s span) len() int {
	if s.rec != nil {
		return s.to - s.from
	}
	return len(s.own)
}

// sub is s[lo:hi].
func (s span) sub(lo, hi int) span {
	if s.rec != nil {
		return span{rec: s.rec, from: s.from + lo, to: s.from + hi, tokens: s.tokens}
	}
	return span{own: s.own[lo:hi:hi]}
}

// same says whether a and b are the same samples of the same request (or
// the same slice of the same array); empty spans are all the same.
func (a span) same(b span) bool {
	if a.len() == 0 || b.len() == 0 {
		return a.len() == b.len()
	}
	if a.rec != nil || b.rec != nil {
		return a.rec == b.rec && a.from == b.from && a.to == b.to && a.tokens == b.tokens
	}
	return len(a.own) == len(b.own) && &a.own[0] == &b.own[0]
}

// values are the samples: own values as they are, intervals decoded into
// *buf's memory (reused) with the subtractions np.diff does on the time
// points AISBench reads, so bit for bit what a stored array would hold.
// Read only.
func (s span) values(buf *[]float64) []float64 {
	if s.rec == nil {
		return s.own
	}
	out := (*buf)[:0]
	r := s.rec
	switch {
	case s.from == s.to:
	case s.tokens:
		i, k := 0, 0 // event, output event
		output := func(e storedEvent) {
			if outputEvent(e) {
				if s.from <= k && k < s.to {
					out = append(out, float64(r.Tokens.at(i)))
				}
				k++
			}
			i++
		}
		if r.Events.runs == nil {
			for _, e := range r.Events.plain {
				output(e)
			}
		}
		for _, run := range r.Events.runs {
			for range run.count {
				output(run.event)
			}
		}
	case !r.packed:
		// Interval j is tp[j+2] - tp[j+1].
		tp := r.seconds[s.from+1 : s.to+2]
		out = slices.Grow(out, len(tp)-1)[:len(tp)-1]
		for i := range out {
			out[i] = tp[i+1] - tp[i]
		}
	default:
		ns := r.t0Ns
		for _, step := range r.stepsNs[:s.from+1] {
			ns += int64(step)
		}
		prev := SecondsFromNanos(ns)
		steps := r.stepsNs[s.from+1 : s.to+1]
		out = slices.Grow(out, len(steps))[:len(steps)]
		for i, step := range steps {
			ns += int64(step)
			t := SecondsFromNanos(ns)
			out[i] = t - prev
			prev = t
		}
		runtime.KeepAlive(r.stepsOwner)
	}
	*buf = out
	return out
}
