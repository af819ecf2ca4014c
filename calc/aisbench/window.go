package aisbench

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
	// Stage is nil when the selector finds no window (Err says so), and
	// when the window was analysed without stages (AnalyzeWindowOnly).
	Err   error
	Stage *StageResult
	// StartSeconds and EndSeconds are its stage_section, absolute.
	StartSeconds, EndSeconds float64
}

// WalkEvent is a start or an end in AISBench's walk.
type WalkEvent struct {
	Time  float64
	Start bool
	Pos   int // the request's position among the successful requests
}

// Walk is AISBench's sorted event list of the successful requests' starts
// and ends: start then end per request, sorted by time with a stable sort
// (Python's: ties keep request order, a request's start first). Made once,
// when first asked (once derived), and read by the stable stage, the window
// analysis and the figures.
func (c *Calc) Walk() []WalkEvent {
	c.walkOnce.Do(func() {
		events := make([]WalkEvent, 0, 2*len(c.Kept))
		for p, i := range c.Kept {
			r := &c.Requests[i]
			events = append(events, WalkEvent{r.Start, true, p}, WalkEvent{r.End, false, p})
		}
		slices.SortStableFunc(events, func(a, b WalkEvent) int { return LessFirst(a.Time, b.Time) })
		c.walk = events
	})
	return c.walk
}

// LessFirst orders x before y when x < y, as sort.SliceStable with that
// less function does (the same algorithm), NaN included.
func LessFirst(x, y float64) int {
	switch {
	case x < y:
		return -1
	case y < x:
		return 1
	}
	return 0
}

func (c *Calc) windowEvent(e WalkEvent, inFlight int) *WindowEvent {
	i := c.Kept[e.Pos]
	return &WindowEvent{Seconds: e.Time, Start: e.Start, Request: i, ID: c.run.ID(i), InFlight: inFlight}
}

// stableWalk is one walk of AISBench's events towards C in flight: where
// the stable window starts and ends (the one place they are chosen) and what
// explains them.
type stableWalk struct {
	reachesAtStart int // request starts that brought the in-flight count to C
	// firstReach is the warm-up reach of C, start the 2nd reach (the window
	// start) and end the last event leaving C in flight (the window end, set
	// only with a start); nil when absent.
	firstReach, start, end *walkAt
	peak                   walkAt  // the first event at the highest count
	at90, atC              float64 // time with >= 90% of C, and >= C, in flight
}

// walkAt is an event of the walk and the in-flight count after it.
type walkAt struct {
	WalkEvent
	inFlight int
}

// stableWindow walks the successful requests' starts and ends (Walk) as
// StablePerfMetricCalculator does: its window runs from the second request
// start that brings the in-flight count to C (the first is warm-up) to the
// last event after which C are in flight. Walked once, when first asked.
func (c *Calc) stableWindow() *stableWalk {
	c.windowOnce.Do(func() {
		C := c.cfg.MaxConcurrency
		events := c.Walk()
		w := &stableWalk{}
		inFlight := 0
		var lastC *walkAt
		for i, e := range events {
			if e.Start {
				inFlight++
			} else {
				inFlight--
			}
			at := &walkAt{e, inFlight}
			if inFlight > w.peak.inFlight {
				w.peak = *at
			}
			if inFlight == C {
				if e.Start {
					w.reachesAtStart++
					switch w.reachesAtStart {
					case 1:
						w.firstReach = at
					case 2:
						w.start = at
					}
				}
				lastC = at
			}
			if i+1 < len(events) {
				dt := events[i+1].Time - e.Time
				if 10*inFlight >= 9*C {
					w.at90 += dt
				}
				if inFlight >= C {
					w.atC += dt
				}
			}
		}
		if w.start != nil {
			w.end = lastC
		}
		c.window = w
	})
	return c.window
}

// AnalyzeWindow explains the stable window (C known, at least one success,
// no NaN) beside the stable stage Stable computed, with the windows
// AISBench's earlier selectors would have picked.
func (c *Calc) AnalyzeWindow(stable *StageResult) *WindowAnalysis {
	return c.analyzeWindow(stable, true)
}

// AnalyzeWindowOnly is AnalyzeWindow without the earlier selectors' stages
// (SelectorResult.Stage nil): their windows alone, which is all the
// findings read.
func (c *Calc) AnalyzeWindowOnly(stable *StageResult) *WindowAnalysis {
	return c.analyzeWindow(stable, false)
}

func (c *Calc) analyzeWindow(stable *StageResult, stages bool) *WindowAnalysis {
	events := c.Walk()
	w := c.stableWindow()
	wa := &WindowAnalysis{MaxConcurrency: c.cfg.MaxConcurrency, Successful: len(c.Kept), FirstStartSeconds: c.minStart(),
		ReachesAtStart: w.reachesAtStart, PeakInFlight: w.peak.inFlight}
	if w.peak.inFlight > 0 {
		wa.PeakAt = *c.windowEvent(w.peak.WalkEvent, w.peak.inFlight)
	}
	mark := func(at *walkAt) *WindowEvent {
		if at == nil {
			return nil
		}
		return c.windowEvent(at.WalkEvent, at.inFlight)
	}
	wa.FirstReach, wa.Start, wa.End = mark(w.firstReach), mark(w.start), mark(w.end)
	wa.RunSeconds = events[len(events)-1].Time - events[0].Time
	if wa.RunSeconds > 0 {
		wa.AtOrAbove90Share = w.at90 / wa.RunSeconds
		wa.AtCShare = w.atC / wa.RunSeconds
	}

	cur := SelectorResult{Name: SelectorCurrent, Commit: "13908d26d0e7325b6cdbac89735543fa578f7a7a",
		Description: "2nd start reaching C to the last event leaving C in flight; requests starting inside"}
	if stable.Window != nil {
		cur.Stage = stable
		cur.StartSeconds, cur.EndSeconds = stable.Window.StartSeconds, stable.Window.EndSeconds
	} else {
		cur.Err = ErrNoStableStage
	}
	wa.Selectors = append(wa.Selectors,
		cur,
		c.legacySelector(events, true, stages),
		c.legacySelector(events, false, stages))
	return wa
}

// legacySelector reproduces _get_requests_id of AISBench 1242df6 (lookAhead)
// or 3774965, literally, and computes the stage over its selection.
func (c *Calc) legacySelector(events []WalkEvent, lookAhead, stage bool) SelectorResult {
	res := SelectorResult{Name: Selector3774965, Commit: "3774965778dd3419ce9f1b092d9eb252eeb28227",
		Description: "tolerance-based: starts at C, then starts at >= int(C*(1-WAVE_OFFSET)) after the 3rd; ends at the first end below that after all starts or the first end once all have started (WAVE_OFFSET = 0.02)"}
	if lookAhead {
		res = SelectorResult{Name: Selector1242df6, Commit: "1242df6000502d906acbfced37f5d54d0cb5e31b",
			Description: "as aisbench-3774965, but an end below the threshold does not close the window when starts within INTERVAL_OFFSET = 0.001 s bring the count back (WAVE_OFFSET = 0.02)"}
	}
	C := c.cfg.MaxConcurrency
	// int(self.max_concurrency * (1 - WAVE_OFFSET)) in float64, as Python.
	one, wave := 1.0, 0.02
	threshold := int(math.Trunc(float64(C) * (one - wave)))
	const intervalOffset = 0.001
	n := len(c.Kept)
	conc := make([]int, len(events))
	var ids []int
	var section [2]float64
	requested := 0
	for i, e := range events {
		prev := 0
		if i > 0 {
			prev = conc[i-1]
		} // conc[-1] is the list's last element, still 0 at i = 0
		if e.Start {
			conc[i] = prev + 1
			requested++
		} else {
			conc[i] = prev - 1
		}
		if e.Start && conc[i] == C {
			ids = append(ids, e.Pos)
			if len(ids) == 2 {
				section[0] = e.Time
			}
		} else if e.Start && conc[i] >= threshold && len(ids) > 2 {
			ids = append(ids, e.Pos)
		} else if requested == n && !e.Start {
			section[1] = e.Time
			break
		} else if len(ids) > 1 && !e.Start && conc[i] < threshold {
			exit := true
			if lookAhead {
				cur := conc[i]
				for _, next := range events[i+1:] {
					if next.Time-e.Time > intervalOffset {
						break
					}
					if !next.Start {
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
				section[1] = e.Time
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
	if !stage {
		return res
	}
	st := &StageResult{Stage: StageStable}
	st.Window = &Window{StartSeconds: section[0], EndSeconds: section[1], DurationSeconds: section[1] - section[0],
		OffsetSeconds: c.minStart(), Selected: len(ids), Of: n, Positions: ids}
	st.Quirk = c.quirk(ids)
	c.fill(st, ids, section[1]-section[0], len(ids), st.Quirk.AISBenchSuccess, nil) // no Extra: no writer shows a selector's
	res.Stage = st
	return res
}
