package audit

import (
	"math"
	"slices"
)

// WindowAnalysis explains the stable window beside AISBench's own choice.
type WindowAnalysis struct {
	MaxConcurrency int
	// Successful is the number of successful requests whose starts and ends
	// are walked (AISBench's stable-stage input).
	Successful int
	// ReachesAtStart counts request starts that brought the in-flight count to
	// C; AISBench's window needs two (the first is warm-up).
	ReachesAtStart int
	// PeakInFlight is the highest in-flight count seen, first at PeakAt.
	PeakInFlight int
	PeakAt       WindowEvent
	// AtOrAbove90Share is the share of the run (first start to last end) with
	// at least 90% of C in flight; AtCShare with exactly C or more.
	AtOrAbove90Share float64
	AtCShare         float64
	RunSeconds       float64
	// FirstStartSeconds is the earliest successful start, the origin of the
	// relative times AISBench logs.
	FirstStartSeconds float64
	// FirstReach, Start and End are the events behind AISBench's window: the
	// warm-up reach, the 2nd reach (window start) and the last event leaving C
	// in flight (window end); nil when they do not exist.
	FirstReach, Start, End *WindowEvent
	// Selectors are AISBench's window selectors, the current one first.
	Selectors []SelectorResult
}

// WindowEvent is one start or end in AISBench's walk.
type WindowEvent struct {
	Seconds  float64 // absolute, on the time points' clock
	Start    bool    // a request start (else an end)
	Request  int     // trace index
	ID       string
	InFlight int // in flight after the event
}

// A selector is one AISBench release's StablePerfMetricCalculator window rule.
const (
	// SelectorCurrent is the calculator since 13908d2 (2026-08-17): the 2nd
	// start reaching C to the last event leaving C in flight; requests starting
	// inside.
	SelectorCurrent = "aisbench-13908d2"
	// Selector1242df6 is the calculator from 1242df6 (2025-12-03) until
	// 13908d2: tolerance-based, WAVE_OFFSET = 0.02, INTERVAL_OFFSET = 0.001.
	Selector1242df6 = "aisbench-1242df6"
	// Selector3774965 is the first release's (3774965, 2025-11-12): as
	// 1242df6 without the INTERVAL_OFFSET look-ahead.
	Selector3774965 = "aisbench-3774965"
)

// SelectorResult is one selector's window and the stage AISBench would have
// computed over it (its counts with the failure-index quirk, as AISBench's).
type SelectorResult struct {
	Name        string
	Commit      string // full AISBench commit the rule was read from
	Description string
	// Stage is nil when the selector finds no window (Err says so).
	Err   error
	Stage *StageResult
	// StartSeconds and EndSeconds are its stage_section, absolute.
	StartSeconds, EndSeconds float64
}

type walkEvent struct {
	time  float64
	start bool
	pos   int // position among successful requests
}

// walk is AISBench's sorted event list: start then end per request, sorted
// by time with a stable sort (Python's: ties keep request order, a
// request's start first).
func (c *stageCalc) walk() []walkEvent {
	events := make([]walkEvent, 0, 2*len(c.successes))
	for i, r := range c.successes {
		events = append(events, walkEvent{r.start, true, i}, walkEvent{r.end, false, i})
	}
	slices.SortStableFunc(events, func(a, b walkEvent) int { return lessFirst(a.time, b.time) })
	return events
}

// lessFirst orders x before y when x < y, as sort.SliceStable with that
// less function does (the same algorithm), NaN included.
func lessFirst(x, y float64) int {
	switch {
	case x < y:
		return -1
	case y < x:
		return 1
	}
	return 0
}

func (c *stageCalc) windowEvent(e walkEvent, inFlight int) *WindowEvent {
	r := c.successes[e.pos]
	return &WindowEvent{Seconds: e.time, Start: e.start, Request: r.trace, ID: c.requests[r.trace].ID, InFlight: inFlight}
}

// analyzeWindow fills Report.Window (C known, at least one success, no NaN)
// from walk's events, once the stable stage is computed.
func (c *stageCalc) analyzeWindow(rep *Report, events []walkEvent) {
	C := c.maxConcurrency
	wa := &WindowAnalysis{MaxConcurrency: C, Successful: len(c.successes), FirstStartSeconds: c.minStart()}
	inFlight := 0
	var at90, atC float64
	var lastC *WindowEvent
	for i, e := range events {
		if e.start {
			inFlight++
		} else {
			inFlight--
		}
		if inFlight > wa.PeakInFlight {
			wa.PeakInFlight = inFlight
			wa.PeakAt = *c.windowEvent(e, inFlight)
		}
		if inFlight == C {
			if e.start {
				wa.ReachesAtStart++
				switch wa.ReachesAtStart {
				case 1:
					wa.FirstReach = c.windowEvent(e, inFlight)
				case 2:
					wa.Start = c.windowEvent(e, inFlight)
				}
			}
			lastC = c.windowEvent(e, inFlight)
		}
		if i+1 < len(events) {
			dt := events[i+1].time - e.time
			if 10*inFlight >= 9*C {
				at90 += dt
			}
			if inFlight >= C {
				atC += dt
			}
		}
	}
	// AISBench's end is the last event of any kind leaving C in flight.
	if wa.Start != nil {
		wa.End = lastC
	}
	wa.RunSeconds = events[len(events)-1].time - events[0].time
	if wa.RunSeconds > 0 {
		wa.AtOrAbove90Share = at90 / wa.RunSeconds
		wa.AtCShare = atC / wa.RunSeconds
	}

	cur := SelectorResult{Name: SelectorCurrent, Commit: "13908d26d0e7325b6cdbac89735543fa578f7a7a",
		Description: "2nd start reaching C to the last event leaving C in flight; requests starting inside"}
	if rep.Stable.Window != nil {
		cur.Stage = rep.Stable
		cur.StartSeconds, cur.EndSeconds = rep.Stable.Window.StartSeconds, rep.Stable.Window.EndSeconds
	} else {
		cur.Err = ErrNoStableStage
	}
	wa.Selectors = append(wa.Selectors,
		cur,
		c.legacySelector(events, true),
		c.legacySelector(events, false))
	rep.Window = wa
}

// legacySelector reproduces _get_requests_id of AISBench 1242df6 (lookAhead)
// or 3774965, literally, and computes the stage over its selection.
func (c *stageCalc) legacySelector(events []walkEvent, lookAhead bool) SelectorResult {
	res := SelectorResult{Name: Selector3774965, Commit: "3774965778dd3419ce9f1b092d9eb252eeb28227",
		Description: "tolerance-based: starts at C, then starts at >= int(C*(1-WAVE_OFFSET)) after the 3rd; ends at the first end below that after all starts or the first end once all have started (WAVE_OFFSET = 0.02)"}
	if lookAhead {
		res = SelectorResult{Name: Selector1242df6, Commit: "1242df6000502d906acbfced37f5d54d0cb5e31b",
			Description: "as aisbench-3774965, but an end below the threshold does not close the window when starts within INTERVAL_OFFSET = 0.001 s bring the count back (WAVE_OFFSET = 0.02)"}
	}
	C := c.maxConcurrency
	// int(self.max_concurrency * (1 - WAVE_OFFSET)) in float64, as Python.
	one, wave := 1.0, 0.02
	threshold := int(math.Trunc(float64(C) * (one - wave)))
	const intervalOffset = 0.001
	n := len(c.successes)
	conc := make([]int, len(events))
	var ids []int
	var section [2]float64
	requested := 0
	for i, e := range events {
		prev := 0
		if i > 0 {
			prev = conc[i-1]
		} // conc[-1] is the list's last element, still 0 at i = 0
		if e.start {
			conc[i] = prev + 1
			requested++
		} else {
			conc[i] = prev - 1
		}
		if e.start && conc[i] == C {
			ids = append(ids, e.pos)
			if len(ids) == 2 {
				section[0] = e.time
			}
		} else if e.start && conc[i] >= threshold && len(ids) > 2 {
			ids = append(ids, e.pos)
		} else if requested == n && !e.start {
			section[1] = e.time
			break
		} else if len(ids) > 1 && !e.start && conc[i] < threshold {
			exit := true
			if lookAhead {
				cur := conc[i]
				for _, next := range events[i+1:] {
					if next.time-e.time > intervalOffset {
						break
					}
					if !next.start {
						cur--
					} else {
						cur++
						if cur >= threshold {
							exit = false
							break
						}
					}
				}
			}
			if exit {
				section[1] = e.time
				break
			}
		}
	}
	if len(ids) > 0 {
		ids = ids[1:] // the first reach is warm-up
	}
	if len(ids) == 0 {
		res.Err = ErrNoStableStage
		return res
	}
	res.StartSeconds, res.EndSeconds = section[0], section[1]
	st := &StageResult{Stage: StageStable}
	aisSuccess := 0
	for _, p := range ids {
		if c.successFlags[p] {
			aisSuccess++
		}
	}
	st.Window = &Window{StartSeconds: section[0], EndSeconds: section[1], DurationSeconds: section[1] - section[0],
		OffsetSeconds: c.minStart(), Selected: len(ids), Of: n, Positions: ids}
	st.Quirk = FailureIndexQuirk{Changed: aisSuccess != len(ids), IntendedTotal: len(ids), IntendedSuccess: len(ids),
		AISBenchTotal: len(ids), AISBenchSuccess: aisSuccess, AISBenchFailed: len(ids) - aisSuccess}
	c.fill(st, ids, section[1]-section[0], len(ids), aisSuccess, nil) // no Extra: no writer shows a selector's
	res.Stage = st
	return res
}

func (c *stageCalc) minStart() float64 {
	m := c.successes[0].start
	for _, r := range c.successes[1:] {
		if r.start < m {
			m = r.start
		}
	}
	return m
}
